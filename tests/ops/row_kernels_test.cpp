// The sampling pipeline's row loops (row_kernels.h) against their definitions: the vectorised
// weights are exp_nonpositive's bits token by token, and the fused exp and block sums are the bits
// of the weights summed block by block, which is what lets a draw recompute only its own block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "ops/fast_exp.h"
#include "ops/row_kernels.h"

namespace ninfer::ops {
namespace {

using detail::kWeightBlock;

std::vector<float> random_row(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> logit(0.0f, 3.0f);
  std::vector<float> z(n);
  for (float& v : z) v = logit(g);
  if (n > 2) {
    z[n / 2] = -0.0f;
    z[n / 3] = 0.0f;
    z[n - 1] = -80.0f;  // far below the maximum: tiny weights, and at high inverse temperature zero
  }
  return z;
}

// The inverse temperatures of the cases: ordinary, sharp, flat, and past the kernel's floor (the
// guarded loop, where weights far below the maximum are exactly 0).
constexpr double kInverseTemperatures[] = {1.0, 1.0 / 0.6, 1e-3, 1e18};

// Lengths around the lane width (32), the block (256) and a Qwen3 row.
constexpr size_t kLengths[] = {1, 3, 4, 31, 32, 33, 63, 255, 256, 257, 511, 4103, 151936};

TEST(RowKernels, WeightsAreExpNonpositivesBitsTokenByToken) {
  for (size_t n : kLengths) {
    const std::vector<float> z = random_row(n, n);
    const detail::RowScan st = detail::scan_row(z.data(), n);
    for (double inv_t : kInverseTemperatures) {
      std::vector<double> e(n);
      detail::exp_weights(z.data(), n, st.zmax, st.zmin, inv_t, e.data());
      for (size_t j = 0; j < n; ++j) {
        const double x = (static_cast<double>(z[j]) - st.zmax) * inv_t;
        const double want = x < -1e15 ? 0.0 : detail::exp_nonpositive(x);
        ASSERT_EQ(std::memcmp(&e[j], &want, sizeof want), 0) << "n " << n << " inv_t " << inv_t << " token " << j;
      }
    }
  }
}

TEST(RowKernels, FusedBlockSumsAreTheStoredWeightsBlockSumsBits) {
  for (size_t n : kLengths) {
    const std::vector<float> z = random_row(n, 7 * n + 1);
    const detail::RowScan st = detail::scan_row(z.data(), n);
    const size_t blocks = (n + kWeightBlock - 1) / kWeightBlock;
    for (double inv_t : kInverseTemperatures) {
      std::vector<double> e(n), stored(blocks), fused(blocks);
      detail::exp_weights(z.data(), n, st.zmax, st.zmin, inv_t, e.data());
      const double stored_total = detail::block_sums(e.data(), n, stored.data());
      const double fused_total = detail::exp_block_sums(z.data(), n, st.zmax, st.zmin, inv_t, fused.data());
      EXPECT_EQ(std::memcmp(stored.data(), fused.data(), blocks * sizeof(double)), 0) << "n " << n << " inv_t " << inv_t;
      EXPECT_EQ(std::memcmp(&stored_total, &fused_total, sizeof(double)), 0) << "n " << n << " inv_t " << inv_t;
      // The total is the weights' sum to rounding (an independent check of the block sums' order
      // being a summation at all), and the maximum weighs exactly 1.
      long double sum = 0;
      for (double w : e) sum += w;
      EXPECT_NEAR(static_cast<double>(sum), fused_total, 1e-12 * fused_total) << "n " << n << " inv_t " << inv_t;
      EXPECT_GE(fused_total, 1.0);
    }
  }
}

TEST(RowKernels, ABlockRecomputedAloneHasTheRowsWeights) {
  // What a draw does: the weights of the block it lands in, computed over that block alone with the
  // row's extremes, are the bits the whole row's computation gives there.
  const size_t n = 151936;
  const std::vector<float> z = random_row(n, 11);
  const detail::RowScan st = detail::scan_row(z.data(), n);
  std::vector<double> e(n);
  detail::exp_weights(z.data(), n, st.zmax, st.zmin, 1.0, e.data());
  for (size_t begin = 0; begin < n; begin += 37 * kWeightBlock) {
    const size_t count = std::min(kWeightBlock, n - begin);
    std::vector<double> block(count);
    detail::exp_weights(z.data() + begin, count, st.zmax, st.zmin, 1.0, block.data());
    EXPECT_EQ(std::memcmp(block.data(), e.data() + begin, count * sizeof(double)), 0) << begin;
  }
}

}  // namespace
}  // namespace ninfer::ops
