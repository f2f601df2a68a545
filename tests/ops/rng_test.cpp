// The counter-based RNG: a pure function of (seed, position, purpose, index) whose streams are
// uniform and independent of each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "ops/sampling.h"

namespace ninfer::ops {
namespace {

// Upper chi-square critical value at tail probability 1e-7 (Wilson–Hilferty).
double chi_square_critical(int df) {
  const double z = 5.199;
  const double k = df;
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

double chi_square_uniform(const std::vector<int>& counts, int total) {
  const double expected = static_cast<double>(total) / static_cast<double>(counts.size());
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

TEST(Rng, SameKeySameValue) {
  const RngKey key{123, 456, RngPurpose::SpecAccept};
  const double a = rng_uniform(key, 3);
  EXPECT_EQ(a, rng_uniform(key, 3));
  EXPECT_EQ(a, rng_uniform(RngKey{123, 456, RngPurpose::SpecAccept}, 3));
  EXPECT_EQ(rng_uniform(key), rng_uniform(key, 0));
}

TEST(Rng, PinnedValues) {
  // Replays across versions must reproduce the same draws: the keying is part of the contract
  // (docs/sampling.md). Changing the mixing function must be a deliberate, visible act.
  EXPECT_EQ(rng_uniform(RngKey{0, 0, RngPurpose::Sample}, 0), 0x1.13c2089d1b378p-3);
  EXPECT_EQ(rng_uniform(RngKey{42, 7, RngPurpose::SpecResidual}, 5), 0x1.e5b5a94f792ap-6);
}

TEST(Rng, InUnitIntervalWith53Bits) {
  bool low_bit_seen = false;
  for (uint64_t i = 0; i < 20000; ++i) {
    const double u = rng_uniform(RngKey{9, i, RngPurpose::Sample}, 0);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double scaled = u * 0x1.0p53;
    ASSERT_EQ(scaled, std::floor(scaled));  // a multiple of 2^-53
    low_bit_seen |= std::fmod(scaled, 2.0) == 1.0;
  }
  EXPECT_TRUE(low_bit_seen);
}

TEST(Rng, EveryKeyFieldSelectsADifferentStream) {
  // Neighbouring keys in every field (and the same number in different fields) all give distinct
  // values; 53-bit collisions among a few thousand honest values would be a 1e-9 event.
  std::set<double> seen;
  size_t n = 0;
  for (uint64_t seed : {0ull, 1ull, 2ull, 1ull << 32, ~0ull}) {
    for (uint64_t pos : {0ull, 1ull, 2ull, 3ull, 1ull << 40}) {
      for (RngPurpose purpose : {RngPurpose::Sample, RngPurpose::SpecAccept, RngPurpose::SpecResidual}) {
        for (uint64_t index : {0ull, 1ull, 2ull, 100ull}) {
          seen.insert(rng_uniform(RngKey{seed, pos, purpose}, index));
          ++n;
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), n);
  // Swapping values between fields is a different stream too.
  EXPECT_NE(rng_uniform(RngKey{1, 2, RngPurpose::Sample}, 3), rng_uniform(RngKey{2, 1, RngPurpose::Sample}, 3));
  EXPECT_NE(rng_uniform(RngKey{3, 2, RngPurpose::Sample}, 1), rng_uniform(RngKey{1, 2, RngPurpose::Sample}, 3));
}

TEST(Rng, UniformOverBuckets) {
  // Along positions (how sampling walks it), along indices, and across seeds.
  constexpr int kDraws = 200000;
  constexpr int kBuckets = 256;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<int> counts(kBuckets, 0);
    for (uint64_t i = 0; i < kDraws; ++i) {
      const RngKey key{axis == 2 ? i : 77, axis == 0 ? i : 5, RngPurpose::Sample};
      const double u = rng_uniform(key, axis == 1 ? i : 0);
      ++counts[static_cast<size_t>(u * kBuckets)];
    }
    EXPECT_LT(chi_square_uniform(counts, kDraws), chi_square_critical(kBuckets - 1)) << "axis " << axis;
  }
}

TEST(Rng, NeighbouringStreamsAreIndependent) {
  // Pairs (value at position i, value at i+1), and pairs of streams that differ only in seed or in
  // purpose, fill a 16×16 grid uniformly.
  constexpr int kPairs = 100000;
  constexpr int kSide = 16;
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<int> counts(kSide * kSide, 0);
    for (uint64_t i = 0; i < kPairs; ++i) {
      double a = 0, b = 0;
      if (kind == 0) {
        a = rng_uniform(RngKey{1, 2 * i, RngPurpose::Sample});
        b = rng_uniform(RngKey{1, 2 * i + 1, RngPurpose::Sample});
      } else if (kind == 1) {
        a = rng_uniform(RngKey{10, i, RngPurpose::Sample});
        b = rng_uniform(RngKey{11, i, RngPurpose::Sample});
      } else {
        a = rng_uniform(RngKey{10, i, RngPurpose::SpecAccept});
        b = rng_uniform(RngKey{10, i, RngPurpose::SpecResidual});
      }
      ++counts[static_cast<size_t>(static_cast<int>(a * kSide) * kSide + static_cast<int>(b * kSide))];
    }
    EXPECT_LT(chi_square_uniform(counts, kPairs), chi_square_critical(kSide * kSide - 1)) << "kind " << kind;
  }
}

}  // namespace
}  // namespace ninfer::ops
