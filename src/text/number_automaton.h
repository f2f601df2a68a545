// Byte automata for JSON number text within bounds: exact decimal comparison against the
// bounds as written (shortest round-trip decimal of the schema's doubles), optional
// divisibility for integers, and a cap on significant digits so that what we emit parses
// back to a binary64 that satisfies the same bounds (15 digits when a bound is exclusive:
// two distinct decimals of at most 15 significant digits never round to the same double).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

struct NumberBound {
  double value = 0;
  bool exclusive = false;
};

struct NumberSpec {
  bool integer = false;                   // no fraction part
  std::optional<NumberBound> lower, upper;
  uint64_t multiple_of = 0;               // integers only; 0 = none
};

// Throws std::invalid_argument when the automaton would be too large (callers map it to UnsupportedSchema).
// Returns nullptr when no number satisfies the spec.
std::shared_ptr<const grammar::ByteAutomaton> number_automaton(const NumberSpec& spec);

}  // namespace ninfer::text
