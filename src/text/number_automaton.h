// Byte automata for JSON number text within bounds, compared exactly as decimals with the
// bounds as written (the shortest round-trip decimal of the schema's doubles).
//
// Integers (NumberSpec::integer, used with multipleOf) are plain integer text, as the unbounded
// `integer` language: no fraction, no exponent, magnitudes below 1e15, optional divisibility.
//
// Other numbers accept every spelling of the unbounded grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? inside this family, exactly (a text of the family
// is accepted iff its exact decimal value lies within the bounds):
//   - the mantissa's integer part has at most kBoundedNumberIntegerDigits digits;
//   - before an exponent, a non-zero mantissa has at most kBoundedNumberExponentIntegerDigits
//     integer digits, or is "0." with at most kBoundedNumberExponentZeros zeros before its first
//     significant digit;
//   - the exponent's magnitude is at most bounded_number_exponent_limit() (290 unless a bound is
//     beyond 1e±270), leading zeros included freely;
//   - a missing bound is ±1e308 (inclusive);
//   - with an exclusive bound: at most kBoundedNumberExclusiveDigits significant mantissa digits,
//     at most max(kBoundedNumberExclusiveZeros, what a bound's magnitude needs) zeros after "0.",
//     and a non-zero magnitude of at least 10^kBoundedNumberFloorExponent.
// Otherwise zeros after "0." (without exponent), trailing fraction zeros and "-0" are free.
// Every accepted text is finite in binary64: |v| <= 1e308 < DBL_MAX.
// Why the text parses back to a binary64 within the same bounds: rounding to binary64 is monotonic,
// so inclusive bounds hold for any number of digits. For an exclusive bound b, two distinct
// decimals of at most 15 significant digits in the normal range (>= 1e-307) never round to the same
// double, and a 15-digit text that rounded onto b would make b's shortest decimal 15 digits or
// fewer, hence equal to the text: so a text on the right side of b stays there after rounding.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

inline constexpr int kBoundedNumberIntegerDigits = 15;
inline constexpr int kBoundedNumberExponentIntegerDigits = 4;
inline constexpr int kBoundedNumberExponentZeros = 3;
inline constexpr int kBoundedNumberExponentLimit = 290;
inline constexpr int kBoundedNumberExclusiveDigits = 15;
inline constexpr int kBoundedNumberExclusiveZeros = 15;
inline constexpr int kBoundedNumberFloorExponent = -307;

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

// The largest exponent magnitude accepted under these bounds (0 = no bound on that side):
// kBoundedNumberExponentLimit, or |q| + 20 for a bound 0.D·10^q beyond it.
int bounded_number_exponent_limit(double lower, double upper);

}  // namespace ninfer::text
