// A grammar compiled for one token domain: the automaton plus, per DFA state that can sit at the
// top of a parse (a kernel state), the tokens it accepts on its own (context-independent) and the
// trie nodes of the tokens whose fate depends on the callers (context-dependent).
// The language is fixed at compile(); the per-state token classes are computed eagerly or on
// first use (thread-safe, published once), so the object is shared freely between matchers.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_automaton.h"
#include "grammar/grammar_ir.h"
#include "grammar/token_domain.h"

namespace ninfer::grammar {

class TokenClassifier;

struct CompileOptions {
  AutomatonLimits limits;
  // Eager: classify every kernel state inside compile() (slower compile, no first-use cost).
  // Lazy (default): classify the start state in compile() and the others on first use.
  bool eager = false;
  // Also eager when the grammar has at most this many kernel states: a serving engine prefers to
  // pay small grammars' classification once at preparation rather than on decode steps.
  uint32_t eager_max_kernel_states = 0;
};

// Tokens whose fate depends only on one property of an any-order object's key set: whether the
// object may close (all required keys present, counts within bounds) or whether another key may
// still come, or whether an undeclared name may start. "Own": the object is the kernel item's own rule; "caller": the objects that called
// the kernel item's rule (the token runs past the rule's end into them).
enum CondKind : uint8_t { kOwnClose, kOwnMore, kOwnName, kCallerClose, kCallerMore, kCondKinds };

struct StateTokens {
  const uint32_t* accepted = nullptr;  // bitset of context-independent tokens (nullptr: none)
  uint32_t accepted_count = 0;
  std::vector<uint32_t> uncertain;  // full-trie nodes (ascending preorder) to verify against the parse
  const uint32_t* cond[kCondKinds] = {};  // bitsets of tokens allowed exactly when the condition holds (nullptr: none)
  bool has_cond = false;
};

struct CompileStats {
  double seconds = 0;            // wall time of compile()
  double automaton_seconds = 0;  // structure only
  uint32_t dfa_states = 0;
  uint32_t kernel_states = 0;      // states that may need a classification
  uint32_t classified_states = 0;  // classified so far
  uint32_t rules = 0;
  uint32_t distinct_bitsets = 0;
  uint64_t uncertain_nodes = 0;  // summed over classified states
  double classify_seconds = 0;   // summed over classifications so far
};

class CompiledGrammar {
 public:
  ~CompiledGrammar();
  const GrammarAutomaton& automaton() const { return automaton_; }
  const TokenDomain& domain() const { return *domain_; }
  const std::shared_ptr<const TokenDomain>& domain_ptr() const { return domain_; }
  // Token classes of a kernel state, classified on first use.
  const StateTokens& state_tokens(uint32_t state) const {
    const StateTokens* p = slots_[state].load(std::memory_order_acquire);
    return p ? *p : classify_slow(state);
  }
  // Token-set edges as masks over the domain, indexed like automaton().token_sets.
  const uint32_t* token_set_mask(uint32_t set) const { return token_set_masks_.data() + size_t(set) * words_; }
  int32_t words() const { return words_; }
  CompileStats stats() const;
  size_t memory_bytes() const;

 private:
  friend std::shared_ptr<const CompiledGrammar> compile(const Grammar&, std::shared_ptr<const TokenDomain>,
                                                        const CompileOptions&);
  CompiledGrammar() = default;
  const StateTokens& classify_slow(uint32_t state) const;

  GrammarAutomaton automaton_;
  std::shared_ptr<const TokenDomain> domain_;
  std::vector<uint32_t> token_set_masks_;
  int32_t words_ = 0;
  CompileStats base_stats_;
  std::unique_ptr<std::atomic<const StateTokens*>[]> slots_;

  // Lazily filled; guarded by mu_. Deques keep element addresses stable for readers.
  mutable std::mutex mu_;
  mutable std::unique_ptr<TokenClassifier> classifier_;
  mutable std::deque<StateTokens> store_;
  mutable std::deque<std::vector<uint32_t>> bitsets_;
  mutable std::unordered_map<uint64_t, std::vector<const uint32_t*>> bitset_by_hash_;
  mutable std::vector<uint32_t> scratch_words_;
  mutable std::vector<uint32_t> scratch_cond_[kCondKinds];
  const uint32_t* intern_bitset(const std::vector<uint32_t>& words) const;  // caller holds mu_
  mutable uint32_t classified_ = 0;
  mutable uint64_t uncertain_nodes_ = 0;
  mutable double classify_seconds_ = 0;
  mutable size_t store_bytes_ = 0;
};

// Throws GrammarError (UnknownToken for token ids outside the domain or never generable, plus
// the automaton's errors).
std::shared_ptr<const CompiledGrammar> compile(const Grammar& g, std::shared_ptr<const TokenDomain> domain,
                                               const CompileOptions& options = {});

}  // namespace ninfer::grammar
