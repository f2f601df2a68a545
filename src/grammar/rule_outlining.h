// Gives repeated sub-languages a rule of their own, so that the inlining policy (rule_nfa.cpp) can
// keep a large one as a single shared rule instead of a copy per use in the caller's DFA:
// - the body of every counted repetition ({m,n} with more than one copy): `item{40,80}` with a
//   400-state item was 32,000 DFA states, each classified separately against the vocabulary;
// - embedded automata that occur more than once with the same content: six `format: hostname`
//   strings (24,000 states each) were six copies to determinise.
#pragma once

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {

// A copy of `g` where each Repeat whose body may be expanded more than once and is not already a
// rule reference refers to a new rule holding that body, and every group of equal large embedded
// automata refers to one new rule. The language is unchanged.
Grammar outline_shared_fragments(const Grammar& g);

// How many copies of its body the NFA builder makes for a Repeat.
inline uint64_t repeat_copies(const Expr& e) {
  return e.max == kUnbounded ? uint64_t(e.min) + 1 : uint64_t(e.max);
}

}  // namespace ninfer::grammar
