// Sorts the vocabulary, for one DFA state, into tokens accepted in every context (a bitset),
// tokens whose fate depends on the callers (trie nodes checked at mask time) and rejected tokens.
// The state is parsed locally: a single item, no caller. See docs/grammar-engine.md.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/earley_parser.h"
#include "grammar/follow_automaton.h"
#include "grammar/grammar_automaton.h"
#include "grammar/token_domain.h"

namespace ninfer::grammar {

class TokenClassifier {
 public:
  TokenClassifier(const GrammarAutomaton& a, const TokenDomain& d);
  ~TokenClassifier();
  // words: mask_words() bits of accepted tokens; count: their number; uncertain: nodes of the
  // domain's full trie in ascending preorder; cond: bitsets (empty: none) of the tokens accepted
  // exactly when a key-set condition holds (CondKind). Not thread-safe (scratch state inside).
  void classify(uint32_t state, std::vector<uint32_t>& words, uint32_t& count, std::vector<uint32_t>& uncertain,
                std::vector<uint32_t> (&cond)[kCondKinds]);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ninfer::grammar
