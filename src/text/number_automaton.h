// Byte automata for JSON number text within bounds, compared exactly as decimals with the
// bounds as written (the shortest round-trip decimal of the schema's doubles).
//
// Integers (NumberSpec::integer, used with multipleOf) are plain integer text, as the unbounded
// `integer` language: no fraction, no exponent, magnitudes below 1e15, optional divisibility.
//
// Other numbers accept every spelling of the unbounded grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? inside this family (exactly: a text of the
// family is accepted iff its exact decimal value lies within the bounds):
//   - the mantissa's integer part has at most kBoundedNumberIntegerDigits digits;
//   - a mantissa "0.000…d…" followed by an exponent has at most kBoundedNumberExponentZeros zeros
//     between the point and its first non-zero digit; without an exponent, at most that many or
//     as many as the bounds' own magnitudes need (a bound of 1e-300 allows 300), whichever is more;
//   - a missing bound is ±1e308 (inclusive): every accepted text is a finite binary64;
//   - with an exclusive bound: at most kBoundedNumberExclusiveDigits significant mantissa digits
//     and a non-zero magnitude of at least 10^kBoundedNumberFloorExponent.
// Zeros, exponent digits (leading zeros included) and trailing fraction zeros are otherwise free;
// "-0" is zero.
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
