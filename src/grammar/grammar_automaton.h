// The compiled form of a grammar's structure, independent of any vocabulary: one byte-level DFA
// per rule that survives inlining, with call edges (nonterminals) and whole-token edges, plus the
// analyses the Earley parser and the token classifier need (nullable rules, FOLLOW1 byte sets).
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {

inline constexpr uint32_t kDeadState = 0xFFFFFFFFu;

struct CallEdge {
  uint32_t rule;    // automaton rule index
  uint32_t target;  // DFA state after the call returns
};

struct TokenEdge {
  uint32_t token_set;  // index into GrammarAutomaton::token_sets
  uint32_t target;
};

struct TokenSetDef {
  std::vector<int32_t> ids;  // sorted
  bool exclude = false;
  SourceLocation location;
};

struct AutomatonLimits {
  uint32_t inline_max_states = 600;      // a non-recursive rule this small is inlined into its callers
  uint32_t max_nfa_states = 4u << 20;    // per rule, before determinisation
  uint32_t max_dfa_states = 1u << 18;    // in total
};

struct GrammarAutomaton {
  // Per DFA state (global numbering across rules).
  std::vector<uint32_t> state_rule;
  std::vector<uint8_t> accepting;
  std::vector<uint8_t> simple;  // no call edges, no token edges, not accepting: a plain byte DFA step
  std::vector<uint32_t> trans;  // [state * num_classes + class] -> state or kDeadState
  std::vector<uint32_t> call_begin;  // CSR offsets into calls (size states + 1)
  std::vector<CallEdge> calls;
  std::vector<uint32_t> tok_begin;  // CSR offsets into toks (size states + 1)
  std::vector<TokenEdge> toks;

  std::array<uint8_t, 256> byte_class{};
  uint32_t num_classes = 1;

  // Per automaton rule.
  std::vector<uint32_t> rule_start;
  std::vector<uint8_t> rule_nullable;
  std::vector<std::string> rule_names;
  std::vector<std::bitset<256>> follow1;  // bytes that can come right after the rule completes
  std::vector<TokenSetDef> token_sets;

  // Augmented start: aug_start --root--> aug_accept. The language may end when (aug_accept, 0) is live.
  uint32_t aug_rule = 0, aug_start = 0, aug_accept = 0;

  uint32_t num_states() const { return static_cast<uint32_t>(state_rule.size()); }
  uint32_t next(uint32_t state, uint8_t byte) const { return trans[state * num_classes + byte_class[byte]]; }
  size_t memory_bytes() const;
};

// Throws GrammarError (TooLarge, EmptyLanguage, TooDeep).
GrammarAutomaton build_automaton(const Grammar& g, const AutomatonLimits& limits = {});

}  // namespace ninfer::grammar
