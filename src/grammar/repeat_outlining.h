// Moves the body of every counted repetition ({m,n} with more than one copy) into a rule of its
// own, so that the inlining policy (rule_nfa.cpp) can keep a large body as one shared rule instead
// of n copies in the caller's DFA. Without this, `item{40,80}` with a 400-state item became 32,000
// DFA states, each classified separately against the vocabulary.
#pragma once

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {

// A copy of `g` where each Repeat whose body may be expanded more than once and is not already a
// rule reference refers to a new rule holding that body. The language is unchanged.
Grammar outline_repeat_bodies(const Grammar& g);

// How many copies of its body the NFA builder makes for a Repeat.
inline uint64_t repeat_copies(const Expr& e) {
  return e.max == kUnbounded ? uint64_t(e.min) + 1 : uint64_t(e.max);
}

}  // namespace ninfer::grammar
