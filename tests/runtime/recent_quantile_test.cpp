// RecentQuantile (runtime/recent_quantile.h) against sorting the last N samples by hand.
#include "runtime/recent_quantile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <vector>

namespace ninfer::runtime {
namespace {

TEST(RecentQuantile, FallsBackUntilEnoughSamples) {
  RecentQuantile<8> q;
  EXPECT_EQ(q.quantile(0.9, 1, 7.0), 7.0);
  q.add(3);
  EXPECT_EQ(q.quantile(0.9, 2, 7.0), 7.0);
  EXPECT_EQ(q.quantile(0.9, 1, 7.0), 3.0);
  EXPECT_EQ(q.count(), 1u);
}

TEST(RecentQuantile, IsTheNearestRankOfTheLastNSamples) {
  RecentQuantile<16> q;
  std::deque<double> last;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 10);
  for (int i = 0; i < 200; ++i) {
    const double x = u(rng);
    q.add(x);
    last.push_back(x);
    if (last.size() > 16) last.pop_front();
    std::vector<double> sorted(last.begin(), last.end());
    std::sort(sorted.begin(), sorted.end());
    for (double p : {0.0, 0.5, 0.9, 1.0}) {
      const size_t rank = std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())));
      ASSERT_EQ(q.quantile(p, 1, -1), sorted[rank]) << "sample " << i << " quantile " << p;
    }
  }
  EXPECT_EQ(q.count(), 16u);
}

}  // namespace
}  // namespace ninfer::runtime
