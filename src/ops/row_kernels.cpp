// Vectorised row loops (row_kernels.h).
#include "ops/row_kernels.h"

#include <bit>
#include <cstring>

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

namespace {

// The kernel is exact only for arguments >= -1e15; only absurd temperatures go past that, and they
// take the guarded loop (the compare keeps it from vectorising).
constexpr double kKernelFloor = -1e15;

// 32 lanes: four AVX-512 registers, eight AVX2 ones (151,936 weights on the Zen 5, AVX-512: 130 ->
// 113 us, the scalar loop vectorised by GCC against these).
constexpr size_t kLanes = 32;
typedef float LaneFloats __attribute__((vector_size(kLanes * sizeof(float))));
typedef double LaneDoubles __attribute__((vector_size(kLanes * sizeof(double))));
typedef uint64_t LaneBits __attribute__((vector_size(kLanes * sizeof(uint64_t))));

typedef double Quad __attribute__((vector_size(4 * sizeof(double))));

// The weights of the kLanes tokens from z.
inline __attribute__((always_inline)) void lane_weights(const float* z, double zmax, double inv_t, LaneDoubles& e) {
  LaneFloats zf;
  std::memcpy(&zf, z, sizeof zf);
  exp_nonpositive_into<LaneDoubles, LaneBits>((__builtin_convertvector(zf, LaneDoubles) - zmax) * inv_t, e);
}

// e[j] for j < n, unguarded (guarded: with the floor's compare). Inlined into each clone.
template <bool kGuarded>
inline __attribute__((always_inline)) void weights(const float* z, size_t n, double zmax, double inv_t, double* e) {
  size_t j = 0;
  if constexpr (!kGuarded) {
    for (; j + kLanes <= n; j += kLanes) {
      LaneDoubles y;
      lane_weights(z + j, zmax, inv_t, y);
      std::memcpy(e + j, &y, sizeof y);
    }
  }
  for (; j < n; ++j) {
    const double x = (static_cast<double>(z[j]) - zmax) * inv_t;
    if constexpr (kGuarded) {
      e[j] = x < kKernelFloor ? 0.0 : exp_nonpositive(x);
    } else {
      e[j] = exp_nonpositive(x);
    }
  }
}

// A block's sum: four interleaved partial sums (lane i of `partial` takes e[i], e[i + 4], ...),
// then (a0 + a1) + (a2 + a3). block_sum continues the partial sums over e[0, n), which follows a
// multiple of 4 weights already in them, and returns the block's sum.
inline __attribute__((always_inline)) double block_sum(const Quad& partial, const double* e, size_t n) {
  double a0 = partial[0], a1 = partial[1], a2 = partial[2], a3 = partial[3];
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    a0 += e[j];
    a1 += e[j + 1];
    a2 += e[j + 2];
    a3 += e[j + 3];
  }
  for (; j < n; ++j) a0 += e[j];
  return (a0 + a1) + (a2 + a3);
}

inline bool guarded(double zmax, double zmin, double inv_t) { return !((zmin - zmax) * inv_t >= kKernelFloor); }

}  // namespace

NINFER_ROW_CLONES void exp_weights(const float* z, size_t n, double zmax, double zmin, double inv_t, double* e) {
  if (guarded(zmax, zmin, inv_t)) {
    weights<true>(z, n, zmax, inv_t, e);
  } else {
    weights<false>(z, n, zmax, inv_t, e);
  }
}

NINFER_ROW_CLONES double block_sums(const double* e, size_t n, double* blocks) {
  double total = 0;
  size_t b = 0;
  for (size_t start = 0; start < n; start += kWeightBlock, ++b) {
    blocks[b] = block_sum(Quad{}, e + start, start + kWeightBlock < n ? kWeightBlock : n - start);
    total += blocks[b];
  }
  return total;
}

NINFER_ROW_CLONES double exp_block_sums(const float* z, size_t n, double zmax, double zmin, double inv_t,
                                        double* blocks) {
  alignas(64) double rest[kWeightBlock];  // a block's weights past its last whole kLanes
  const bool guard = guarded(zmax, zmin, inv_t);
  double total = 0;
  size_t b = 0;
  for (size_t start = 0; start < n; start += kWeightBlock, ++b) {
    const size_t m = start + kWeightBlock < n ? kWeightBlock : n - start;
    Quad partial{};
    size_t j = 0;
    if (!guard) {
      // Each quad of weights joins the partial sums as it comes, so that the additions' chain (one
      // add's latency a quad) runs beside the next weights' exp rather than after the block's.
      for (; j + kLanes <= m; j += kLanes) {
        LaneDoubles y;
        lane_weights(z + start + j, zmax, inv_t, y);
        Quad quads[kLanes / 4];
        std::memcpy(quads, &y, sizeof y);
        for (size_t k = 0; k < kLanes / 4; ++k) partial += quads[k];
      }
    }
    if (guard) {
      weights<true>(z + start + j, m - j, zmax, inv_t, rest);
    } else {
      weights<false>(z + start + j, m - j, zmax, inv_t, rest);
    }
    blocks[b] = block_sum(partial, rest, m - j);
    total += blocks[b];
  }
  return total;
}

}  // namespace ninfer::ops::detail
