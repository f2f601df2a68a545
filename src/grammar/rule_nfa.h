// Thompson construction of one byte-level NFA per rule, inlining small non-recursive rules.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "grammar/grammar_ir.h"
#include "grammar/rule_origins.h"

namespace ninfer::grammar {

struct NfaByteEdge {
  uint8_t lo, hi;
  uint32_t target;
};

struct NfaState {
  std::vector<uint32_t> eps;
  std::vector<NfaByteEdge> bytes;
  std::vector<std::pair<int32_t, uint32_t>> calls;   // (IR rule, target)
  std::vector<std::pair<int32_t, uint32_t>> tokens;  // (IR TokenSet expression, target)
  uint32_t origin = kNoOrigin;                       // innermost labelled rule (OriginTree node)
};

struct RuleNfa {
  std::vector<NfaState> states;
  uint32_t start = 0, accept = 0;
};

// Which IR rules are inlined at their references (non-recursive and small).
std::vector<uint8_t> choose_inlined_rules(const Grammar& g, uint32_t inline_max_states);

// Builds the NFA of rule `rule`; references to inlined rules are expanded in place. With
// `origins`, each state records the labelled rules it is inside.
// Throws GrammarError TooLarge past `max_states`, TooDeep past the expansion depth limit.
RuleNfa build_rule_nfa(const Grammar& g, int32_t rule, const std::vector<uint8_t>& inlined, uint32_t max_states,
                       OriginTree* origins = nullptr);

}  // namespace ninfer::grammar
