// A grammar compiled for one token domain: the automaton plus, for every DFA state that can sit
// at the top of a parse (a kernel state), the tokens it accepts on its own (context-independent)
// and the trie nodes of the tokens whose fate depends on the callers (context-dependent).
// Immutable after compile(); shared by every matcher of the same constraint.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "grammar/grammar_automaton.h"
#include "grammar/grammar_ir.h"
#include "grammar/token_domain.h"

namespace ninfer::grammar {

struct CompileOptions {
  AutomatonLimits limits;
};

struct StateTokens {
  int32_t accepted = -1;              // index into CompiledGrammar::bitsets_ (-1: none accepted)
  uint32_t accepted_count = 0;
  std::vector<uint32_t> uncertain;    // trie nodes (preorder, ascending) to verify against the full parse
};

struct CompileStats {
  double seconds = 0;            // wall time of compile()
  double automaton_seconds = 0;  // structure only
  uint32_t dfa_states = 0;
  uint32_t kernel_states = 0;
  uint32_t rules = 0;
  uint32_t distinct_bitsets = 0;
  uint64_t uncertain_nodes = 0;  // summed over states
};

class CompiledGrammar {
 public:
  const GrammarAutomaton& automaton() const { return automaton_; }
  const TokenDomain& domain() const { return *domain_; }
  const std::shared_ptr<const TokenDomain>& domain_ptr() const { return domain_; }
  const StateTokens& state_tokens(uint32_t state) const { return states_[state]; }
  const uint32_t* bitset(int32_t index) const { return bitsets_.data() + size_t(index) * words_; }
  // Token-set edges as masks over the domain, indexed like automaton().token_sets.
  const uint32_t* token_set_mask(uint32_t set) const { return token_set_masks_.data() + size_t(set) * words_; }
  int32_t words() const { return words_; }
  const CompileStats& stats() const { return stats_; }
  size_t memory_bytes() const;

 private:
  friend std::shared_ptr<const CompiledGrammar> compile(const Grammar&, std::shared_ptr<const TokenDomain>,
                                                        const CompileOptions&);
  GrammarAutomaton automaton_;
  std::shared_ptr<const TokenDomain> domain_;
  std::vector<StateTokens> states_;
  std::vector<uint32_t> bitsets_;
  std::vector<uint32_t> token_set_masks_;
  int32_t words_ = 0;
  CompileStats stats_;
};

// Throws GrammarError (UnknownToken for token ids outside the domain or never generable, plus
// the automaton's errors).
std::shared_ptr<const CompiledGrammar> compile(const Grammar& g, std::shared_ptr<const TokenDomain> domain,
                                               const CompileOptions& options = {});

}  // namespace ninfer::grammar
