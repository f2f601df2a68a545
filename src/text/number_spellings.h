// The JSON texts that spell one given number (enum / const values): 2 is also 2.0, 2.00, 20e-1,
// 0.2e1, 2E+0, 2e00, ... Equality is exact decimal equality of the written value.
//
// The full set is infinite. Trailing zeros of a fraction and leading zeros of an exponent repeat
// freely (a loop); how far the decimal point moves away from the significant digits needs a
// bound, because each position needs its own exponent. The family accepted: with the value
// written as 0.D x 10^P (D its significant digits, no leading or trailing zero), a spelling
// whose mantissa puts the point r digits after D's first digit (its exponent is then P - r) is
// accepted for r in [min(1, P) - kSpellingShift, max(|D|, P) + kSpellingShift]: the plain form
// (r = P) and the scientific form (r = 1), each with the point moved up to kSpellingShift more
// places either way. Zero is every spelling of zero (-0, 0.0, 0e5, ...): no bound needed.
// Each number costs about |D| * (|D| / 2 + shift) automaton states, so a set of more than
// kLargeNumberSet numbers uses shift 0 (the point anywhere from the scientific to the plain
// position, trailing zeros and exponent spellings still free).
#pragma once

#include <cstdint>
#include <map>
#include <string_view>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

inline constexpr int kSpellingShift = 8;
inline constexpr size_t kLargeNumberSet = 1000;

// Appends the spellings of numbers to a byte automaton (an NFA: numbers added at the same
// state may start with the same bytes). Exponent tails are shared between numbers.
class NumberSpellings {
 public:
  explicit NumberSpellings(grammar::ByteAutomaton& a) : a_(a) {}
  // Adds every spelling of the JSON number `text` as a path from `from` to an accepting state.
  // Throws std::invalid_argument when `text` is not a JSON number.
  void add(uint32_t from, std::string_view text, int shift = kSpellingShift);

 private:
  grammar::ByteAutomaton& a_;
  std::map<int64_t, uint32_t> exponent_tail_;  // exponent value -> state after [eE]
  std::map<int64_t, uint32_t> mantissa_end_;   // exponent value -> fraction zeros loop before it
  std::map<int64_t, uint32_t> zero_fraction_;  // exponent value -> state after a '.' that only zeros follow
  uint32_t zero_exponent_ = 0;                 // accepting state of an exponent 0 (0 loop), 0 = not built

  uint32_t state(bool accepting);
  void edge(uint32_t from, uint8_t lo, uint8_t hi, uint32_t to);
  uint32_t exponent(int64_t e);  // the state after [eE] of an exponent equal to e
  // The state after the mantissa's last significant digit once its point is written: trailing
  // zeros, then the end (exponent 0) or an exponent equal to e. Shared by all numbers.
  uint32_t mantissa_end(int64_t e);
  uint32_t zero_fraction(int64_t e);  // '.' read after all significant digits: 0+ then as mantissa_end
  void add_zero(uint32_t from);
};

}  // namespace ninfer::text
