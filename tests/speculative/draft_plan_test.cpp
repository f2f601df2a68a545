// The step's draft plan (speculative/draft_plan.h): the forward's cost by positions as measured, and
// the drafts that make the most expected tokens per second of it, checked against exhaustive search.
#include "speculative/draft_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace ninfer::speculative {
namespace {

StepCostTable table(const std::vector<double>& by_positions) {  // index 0 = 1 position
  StepCostTable t;
  for (size_t i = 0; i < by_positions.size(); ++i)
    if (by_positions[i] > 0) t.learn(static_cast<int>(i) + 1, by_positions[i]);
  return t;
}

TEST(StepCostTable, MeasuredShapesInterpolatedBetweenAndFlatPastTheLargest) {
  StepCostTable t;
  EXPECT_EQ(t.estimate(3), 0);
  t.learn(2, 10);
  t.learn(6, 30);
  EXPECT_DOUBLE_EQ(t.estimate(2), 10);
  EXPECT_DOUBLE_EQ(t.estimate(4), 20);  // the line between 2 and 6
  EXPECT_DOUBLE_EQ(t.estimate(7), 30);  // optimistic one past the largest: it gets tried and measured
  EXPECT_DOUBLE_EQ(t.estimate(9), 40);  // further on, 5 for each position more (30 / 6)
  EXPECT_DOUBLE_EQ(t.estimate(1), 10);  // below the smallest: the smallest
  EXPECT_TRUE(t.measured(6));
  EXPECT_FALSE(t.measured(5));
  t.learn(2, 14);  // a moving average: a quarter of the newest
  EXPECT_DOUBLE_EQ(t.estimate(2), 11);
  t.learn(2, 77);  // an outlier counts as twice the average
  EXPECT_DOUBLE_EQ(t.estimate(2), 13.75);
  t.learn(2, 1);  // and one below as half
  EXPECT_DOUBLE_EQ(t.estimate(2), 13.75 - 0.25 * 6.875);
  t.learn(0, 5);
  t.learn(StepCostTable::kMaxPositions + 1, 5);
  t.learn(3, std::nan(""));
  EXPECT_FALSE(t.measured(3));
}

TEST(DraftPlan, NothingIsDraftedUntilThePlainShapeIsMeasured) {
  const StepCostTable t = table({0, 10, 10});
  const std::vector<RowCandidates> rows{{4, 4, 0.9, false}};
  EXPECT_EQ(plan_drafts(rows, {&t, 1, 0}), std::vector<int>{0});
}

// This CPU's 0.6b forward by positions (docs/speculative.md): two positions cost what one does.
const std::vector<double> kCpuForwardMs{84.8, 79.5, 97.6, 104.9, 120.6};

TEST(DraftPlan, OneRowOnTheCpuCurveDraftsOneForcedTokenAtLowAcceptanceAndAllAtHigh) {
  const StepCostTable t = table(kCpuForwardMs);
  EXPECT_EQ(plan_drafts(std::vector<RowCandidates>{{4, 4, 0.32, false}}, {&t, 1, 0}), std::vector<int>{1});
  EXPECT_EQ(plan_drafts(std::vector<RowCandidates>{{4, 4, 0.9, false}}, {&t, 1, 0}), std::vector<int>{4});
}

TEST(DraftPlan, ComputeBoundRowsDraftNothingEvenWhenEveryDraftIsAccepted) {
  // Every position costs a row's time, up to the 20 positions of 4 rows with 4 drafts each.
  const StepCostTable t = table({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
  const std::vector<RowCandidates> rows(4, RowCandidates{4, 4, 0.9, false});
  EXPECT_EQ(plan_drafts(rows, {&t, 4, 0}), std::vector<int>(4, 0));
  const std::vector<RowCandidates> sure(4, RowCandidates{4, 4, 1.0, false});
  EXPECT_EQ(plan_drafts(sure, {&t, 4, 0}), std::vector<int>(4, 0));  // a tie buys nothing
}

TEST(DraftPlan, FreePositionsGoToTheRowsMostLikelyToBeAccepted) {
  // Two rows; up to two more positions are free, then each costs half a row: the likelier row gets
  // both free ones, and a third draft (expected 0.73 tokens for half a row's cost) does not pay.
  const StepCostTable t = table({10, 10, 10, 10, 15, 20, 25, 30});
  const std::vector<RowCandidates> rows{{3, 3, 0.2, false}, {3, 3, 0.9, false}};
  EXPECT_EQ(plan_drafts(rows, {&t, 2, 0}), (std::vector<int>{0, 2}));
}

TEST(DraftPlan, AProbeGetsItsFirstDraftWhateverItCosts) {
  const StepCostTable t = table({1, 2, 3, 4, 5, 6});
  const std::vector<RowCandidates> rows{{4, 4, 0.0, true}, {4, 4, 0.5, false}};
  EXPECT_EQ(plan_drafts(rows, {&t, 2, 0}), (std::vector<int>{1, 0}));
}

TEST(DraftPlan, ExploringTakesOneDraftMoreOrOneFewerThanTheBest) {
  const StepCostTable t = table(kCpuForwardMs);
  const std::vector<RowCandidates> rows{{4, 4, 0.32, false}};
  EXPECT_EQ(plan_drafts(rows, {&t, 1, 0}, +1), std::vector<int>{2});
  EXPECT_EQ(plan_drafts(rows, {&t, 1, 0}, -1), std::vector<int>{0});
  EXPECT_EQ(plan_drafts(rows, {&t, 1, 0}, -3), std::vector<int>{0});
  EXPECT_EQ(plan_drafts(std::vector<RowCandidates>{{4, 4, 0.9, false}}, {&t, 1, 0}, +1), std::vector<int>{4});
}

TEST(DraftPlan, DraftModelRoundsCountAgainstModelDraftsOnly) {
  const StepCostTable t = table({10, 10, 10, 10, 10});  // positions are free
  // A draft-model round costs as much as the step: model drafts do not pay, forced ones do.
  EXPECT_EQ(plan_drafts(std::vector<RowCandidates>{{4, 0, 0.6, false}}, {&t, 1, 10}), std::vector<int>{0});
  EXPECT_EQ(plan_drafts(std::vector<RowCandidates>{{4, 2, 0.6, false}}, {&t, 1, 10}), std::vector<int>{2});
  // A cheap round pays.
  EXPECT_EQ(plan_drafts(std::vector<RowCandidates>{{4, 0, 0.6, false}}, {&t, 1, 0.5}), std::vector<int>{4});
}

// Against every allocation of drafts to rows (each a prefix of its chain): the plan's expected
// tokens per second are the best there is, up to the 1% margin that keeps noise from buying positions.
TEST(DraftPlan, MatchesExhaustiveSearchOnRandomCurves) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    const int n_rows = 1 + static_cast<int>(rng() % 3);
    std::vector<RowCandidates> rows(static_cast<size_t>(n_rows));
    int total = 0;
    for (RowCandidates& r : rows) {
      r.available = static_cast<int>(rng() % 4);
      r.forced = r.available;
      r.accept = u(rng);
      total += r.available;
    }
    // A non-decreasing cost curve with steps and flats.
    std::vector<double> curve;
    double c = 1 + u(rng);
    for (int n = 0; n < n_rows + total + 1; ++n) {
      curve.push_back(c);
      c += u(rng) < 0.4 ? 0 : u(rng);
    }
    const StepCostTable t = table(curve);
    auto rate = [&](const std::vector<int>& plan) {
      double tokens = n_rows;
      int m = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        for (int j = 1; j <= plan[i]; ++j) tokens += std::pow(rows[i].accept, j);
        m += plan[i];
      }
      return tokens / t.estimate(n_rows + m);
    };
    double best = 0;
    std::vector<int> plan(rows.size(), 0);
    std::function<void(size_t)> search = [&](size_t i) {
      if (i == rows.size()) {
        best = std::max(best, rate(plan));
        return;
      }
      for (int k = 0; k <= rows[i].available; ++k) {
        plan[i] = k;
        search(i + 1);
      }
      plan[i] = 0;
    };
    search(0);
    const std::vector<int> chosen = plan_drafts(rows, {&t, n_rows, 0});
    for (size_t i = 0; i < rows.size(); ++i) ASSERT_LE(chosen[i], rows[i].available);
    EXPECT_GE(rate(chosen) * 1.0101, best) << "trial " << trial;
  }
}

}  // namespace
}  // namespace ninfer::speculative
