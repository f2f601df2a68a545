// Which labelled rules (RuleOrigin) are open in each automaton state, for explanations: inlining
// copies a rule into its callers' DFAs, so an automaton rule holds a tree of labelled rules, and
// each DFA state points at the innermost one it is inside. A node is (parent node, IR rule),
// interned across the whole automaton; a state inside several (the start of an alternation)
// points at their nearest common ancestor, so labels degrade to the enclosing rule, never lie.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {

inline constexpr uint32_t kNoOrigin = 0xFFFFFFFFu;

struct OriginNode {
  uint32_t parent = kNoOrigin;
  uint32_t origin = 0;  // index into GrammarAutomaton::origins
  uint32_t depth = 0;   // 1 for a node without parent
  uint32_t place = Grammar::kUnknownPlace;  // which of the origin's pointers this use stands at
};

class OriginTree {
 public:
  explicit OriginTree(const Grammar& g) : g_(g) {}
  // The node of labelled IR rule `rule` opened inside `parent` (through a reference at `place`,
  // Grammar::place_of); `parent` itself when the rule is unlabelled.
  uint32_t enter(uint32_t parent, int32_t rule, uint32_t place = Grammar::kUnknownPlace);
  // Nearest common ancestor (kNoOrigin when there is none). Subset construction asks once per
  // NFA state of every DFA state: equal nodes, by far the usual case, return at once.
  uint32_t common(uint32_t x, uint32_t y) const { return x == y ? x : common_slow(x, y); }

  std::vector<OriginNode> nodes;
  std::vector<RuleOrigin> origins;  // the labels the nodes name

 private:
  uint32_t common_slow(uint32_t x, uint32_t y) const;
  const Grammar& g_;
  std::map<std::tuple<uint32_t, int32_t, uint32_t>, uint32_t> node_of_;  // (parent, rule, place) -> node
  std::unordered_map<int32_t, uint32_t> origin_of_;    // IR rule -> origins index
};

}  // namespace ninfer::grammar
