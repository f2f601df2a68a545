// exp(x) for x <= 0 in double precision, branch-free so that loops calling it vectorise (a libm call
// per token costs ~1 ms for a 151,936-wide row; this kernel is a fraction of that). Internal to ops.
#pragma once

#include <cstdint>

namespace ninfer::ops::detail {

// exp_nonpositive (below) on x of type D: double, or a GCC vector of doubles whose lanes each get
// exactly the scalar's bits (the same operations in the same order; U: uint64_t, or the vector of
// as many uint64_t). A vector of several registers interleaves their evaluations, whose chains of
// dependent operations one register alone leaves the vector units waiting on.
template <class D, class U>
inline __attribute__((always_inline)) void exp_nonpositive_into(const D& x, D& out) {
  constexpr double kLog2e = 0x1.71547652b82fep0;
  constexpr double kMagic = 0x1.8p52;            // adding it rounds to an integer in the low mantissa bits
  constexpr double kLn2Hi = 0x1.62e42feep-1;     // trailing zero bits: n * kLn2Hi is exact for |n| < 2^20
  constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
  const D t = x * kLog2e + kMagic;
  const D n = t - kMagic;  // round(x / ln 2)
  const D r = (x - n * kLn2Hi) - n * kLn2Lo;  // |r| <= ln(2)/2
  // Taylor series to degree 13: the truncation error at |r| = ln(2)/2 is 4e-18, below rounding.
  D p = D{} + 1.0 / 6227020800;  // in every lane
  p = p * r + 1.0 / 479001600;
  p = p * r + 1.0 / 39916800;
  p = p * r + 1.0 / 3628800;
  p = p * r + 1.0 / 362880;
  p = p * r + 1.0 / 40320;
  p = p * r + 1.0 / 5040;
  p = p * r + 1.0 / 720;
  p = p * r + 1.0 / 120;
  p = p * r + 1.0 / 24;
  p = p * r + 1.0 / 6;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^n from the integer sitting in t's mantissa (two's complement, in unsigned arithmetic); an
  // integer mask instead of a float compare keeps the loop free of (possibly trapping) comparisons,
  // which GCC refuses to if-convert.
  const U biased = __builtin_bit_cast(U, t) - __builtin_bit_cast(uint64_t, kMagic) + uint64_t{1023};
  const U keep = (biased >> 63) - uint64_t{1};  // all ones when the exponent is >= 0, else 0
  out = p * __builtin_bit_cast(D, (biased << 52) & keep);
}

// Valid for -1e15 <= x <= 0 (callers check the range of a row first). Relative error about 2e-16 (one
// or two ulps) down to -708; results below 2^-1022 are flushed to exactly 0, so underflowed tokens
// can never be drawn.
inline double exp_nonpositive(double x) {
  double e;
  exp_nonpositive_into<double, uint64_t>(x, e);
  return e;
}

}  // namespace ninfer::ops::detail
