// The branch-free exp kernel behind the softmax: accurate to a few ulps, exact at 0, and
// flushing (never wrapping) below 2^-1022.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/fast_exp.h"

namespace ninfer::ops {
namespace {

using detail::exp_nonpositive;

TEST(FastExp, MatchesLongDoubleExp) {
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> wide(-708.0, 0.0);
  std::uniform_real_distribution<double> near(-40.0, 0.0);
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    const double x = i % 2 == 0 ? wide(g) : near(g);
    const long double want = std::exp(static_cast<long double>(x));
    const double rel = static_cast<double>(std::fabs((exp_nonpositive(x) - want) / want));
    worst = std::max(worst, rel);
  }
  EXPECT_LT(worst, 1e-15);
}

TEST(FastExp, EdgesOfTheRange) {
  EXPECT_EQ(exp_nonpositive(0.0), 1.0);
  EXPECT_EQ(exp_nonpositive(-0.0), 1.0);
  EXPECT_NEAR(exp_nonpositive(-1.0), std::exp(-1.0), 4e-16);
  EXPECT_NEAR(exp_nonpositive(-1e-300), 1.0, 1e-16);
  // Below 2^-1022 the result is exactly 0, as far as the kernel's range goes.
  for (double x : {-709.0, -745.0, -800.0, -1e4, -1e10, -1e15}) EXPECT_EQ(exp_nonpositive(x), 0.0) << x;
  // Results just above the flush threshold are still accurate.
  EXPECT_NEAR(exp_nonpositive(-700.0) / std::exp(-700.0), 1.0, 1e-15);
  // Monotone across the whole range (sampled).
  double prev = 1.0;
  for (double x = -0.001; x > -720; x -= 0.37) {
    const double v = exp_nonpositive(x);
    EXPECT_LE(v, prev) << x;
    prev = v;
  }
}

}  // namespace
}  // namespace ninfer::ops
