// Vectorised row loops (row_kernels.h).
#include "ops/row_kernels.h"

#include <bit>

#include "ops/fast_exp.h"

// Without this the AVX clones would fuse a * b + c into FMA (GCC contracts by default in C++) and
// their last bits would differ from the baseline build's.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

// GCC only: Clang 14 accepts the attribute in C++ but compiles a single AVX-512 body instead of
// clones with a dispatcher, which would fault on older CPUs.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NINFER_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#ifndef NINFER_ROW_CLONES
#define NINFER_ROW_CLONES
#endif

namespace ninfer::ops::detail {

namespace {

// Unsigned key with the same order as the float (for non-NaN values); -0.0 maps to +0.0's key so
// that the two zeros stay equal, as they compare.
inline uint32_t order_key(uint32_t bits) {
  bits = bits == 0x80000000u ? 0u : bits;
  const uint32_t flip = static_cast<uint32_t>(static_cast<int32_t>(bits) >> 31) | 0x80000000u;
  return bits ^ flip;
}

inline float from_key(uint32_t key) {
  return std::bit_cast<float>((key & 0x80000000u) != 0 ? key ^ 0x80000000u : ~key);
}

}  // namespace

NINFER_ROW_CLONES RowScan scan_row(const float* z, size_t n) {
  uint32_t kmax = 0;
  uint32_t kmin = ~0u;
  uint32_t non_finite = 0;
  for (size_t j = 0; j < n; ++j) {
    const uint32_t bits = std::bit_cast<uint32_t>(z[j]);
    non_finite |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    const uint32_t key = order_key(bits);
    kmax = key > kmax ? key : kmax;
    kmin = key < kmin ? key : kmin;
  }
  return RowScan{non_finite == 0, from_key(kmax), from_key(kmin)};
}

NINFER_ROW_CLONES void exp_weights(const float* z, size_t n, double zmax, double zmin, double inv_t, double* e) {
  // The kernel is exact only for arguments >= -1e15; only absurd temperatures go past that, and they
  // take the guarded loop (the compare keeps it from vectorising).
  constexpr double kKernelFloor = -1e15;
  if ((zmin - zmax) * inv_t >= kKernelFloor) {
    for (size_t j = 0; j < n; ++j) e[j] = exp_nonpositive((static_cast<double>(z[j]) - zmax) * inv_t);
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    const double x = (static_cast<double>(z[j]) - zmax) * inv_t;
    e[j] = x < kKernelFloor ? 0.0 : exp_nonpositive(x);
  }
}

NINFER_ROW_CLONES double block_sums(const double* e, size_t n, double* blocks) {
  double total = 0;
  size_t b = 0;
  for (size_t start = 0; start < n; start += kWeightBlock, ++b) {
    const size_t end = start + kWeightBlock < n ? start + kWeightBlock : n;
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t j = start;
    for (; j + 4 <= end; j += 4) {
      a0 += e[j];
      a1 += e[j + 1];
      a2 += e[j + 2];
      a3 += e[j + 3];
    }
    for (; j < end; ++j) a0 += e[j];
    blocks[b] = (a0 + a1) + (a2 + a3);
    total += blocks[b];
  }
  return total;
}

}  // namespace ninfer::ops::detail
