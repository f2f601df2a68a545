// A regular over-approximation of "what may follow when a rule completes", built lazily as a
// DFA over sets of grammar DFA states. Returning from a rule jumps to every place that calls it
// (the call stack is forgotten), so the language is a superset of the real continuations: a
// byte string it rejects can never follow, which lets the token classifier reject tokens that
// run past the end of their rule without consulting the runtime parse.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_automaton.h"

namespace ninfer::grammar {

class FollowAutomaton {
 public:
  static constexpr uint32_t kEmpty = 0;  // nothing can follow: dead
  static constexpr uint32_t kAny = 1;    // a whole-token edge is reachable: anything may follow

  explicit FollowAutomaton(const GrammarAutomaton& a);

  // Continuations right after rule `rule` completes.
  uint32_t after_rule(uint32_t rule);
  uint32_t step(uint32_t set, uint8_t byte);
  uint32_t unite(uint32_t a, uint32_t b);
  size_t num_sets() const { return sets_.size(); }

 private:
  const GrammarAutomaton& a_;
  std::vector<std::vector<uint32_t>> callers_;  // per rule: states its callers resume in
  std::vector<std::vector<uint32_t>> sets_;     // interned closed sets (sorted)
  std::vector<uint32_t> trans_;                 // [set * num_classes + class], UINT32_MAX = not built
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash_;
  std::unordered_map<uint64_t, uint32_t> unions_;
  std::vector<uint32_t> after_rule_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;

  uint32_t intern(std::vector<uint32_t> states);  // closes, sorts, dedups
};

}  // namespace ninfer::grammar
