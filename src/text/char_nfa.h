// A Thompson NFA over scalar-value sets and its subset construction. Every state either consumes
// one character of a set or has at most two epsilon moves, which keeps states small and the
// construction of copies (bounded repetition) a plain block copy.
#pragma once

#include <cstdint>
#include <vector>

#include "text/automaton_budget.h"
#include "text/char_sets.h"
#include "text/range_dfa.h"

namespace ninfer::text {

struct CharNfa {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct State {
    uint32_t set = kNone;   // index into sets: consume one character of it ...
    uint32_t next = kNone;  // ... and move here
    uint32_t eps[2] = {kNone, kNone};
  };
  std::vector<State> states;
  std::vector<CharSet> sets;
  uint32_t start = 0;
  uint32_t accept = kNone;
  // Optional accepting state that loops on every character: once reached, any continuation
  // matches (the implicit trailing [\s\S]* of search semantics). The subset construction
  // collapses every set containing it into one state, which keeps "match found" states from
  // multiplying.
  uint32_t universal = kNone;

  uint32_t add_state() {
    states.emplace_back();
    return static_cast<uint32_t>(states.size() - 1);
  }
  uint32_t add_set(CharSet s) {
    sets.push_back(std::move(s));
    return static_cast<uint32_t>(sets.size() - 1);
  }
  void add_eps(uint32_t from, uint32_t to);
};

// Subset construction with the character partition computed per state by a sweep over range
// boundaries (never per code point). Throws AutomatonBudgetExceeded past budget.max_states DFA
// states or when the subsets together hold more than 128 * max_states NFA states (a time and memory bound: unanchored
// searches for long counted repetitions track O(count^2) states).
RangeDfa determinize(const CharNfa& nfa, const AutomatonBudget& budget);

}  // namespace ninfer::text
