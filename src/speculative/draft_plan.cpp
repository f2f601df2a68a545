#include "speculative/draft_plan.h"

#include <algorithm>
#include <limits>

namespace ninfer::speculative {

void StepCostTable::learn(int positions, double seconds) {
  if (positions < 1 || positions > kMaxPositions || !(seconds > 0)) return;
  if (static_cast<size_t>(positions) >= seconds_.size()) seconds_.resize(static_cast<size_t>(positions) + 1, 0.0);
  learn_moving_average(seconds_[static_cast<size_t>(positions)], seconds);
}

bool StepCostTable::measured(int positions) const {
  return positions >= 0 && static_cast<size_t>(positions) < seconds_.size() && seconds_[static_cast<size_t>(positions)] > 0;
}

double StepCostTable::estimate(int positions) const {
  if (measured(positions)) return seconds_[static_cast<size_t>(positions)];
  int below = std::min(positions, static_cast<int>(seconds_.size()) - 1);
  while (below > 0 && !measured(below)) --below;
  int above = positions + 1;
  while (above < static_cast<int>(seconds_.size()) && !measured(above)) ++above;
  const bool has_below = below > 0, has_above = above < static_cast<int>(seconds_.size());
  if (has_below && has_above) {
    const double lo = seconds_[static_cast<size_t>(below)], hi = seconds_[static_cast<size_t>(above)];
    return lo + (hi - lo) * (positions - below) / static_cast<double>(above - below);
  }
  if (has_below) {
    // Past the largest measured shape: the next one costs the same (so that it gets tried and
    // measured, one shape at a time), and every one further an average position of the largest.
    const double largest = seconds_[static_cast<size_t>(below)];
    return largest + largest * std::max(0, positions - below - 1) / below;
  }
  if (has_above) return seconds_[static_cast<size_t>(above)];
  return 0;
}

std::vector<int> plan_drafts(std::span<const RowCandidates> rows, const DraftPlanCosts& costs, int explore) {
  std::vector<int> plan(rows.size(), 0);
  // The plain shape is measured first: every other shape is weighed against it.
  if (!costs.table || !costs.table->measured(costs.plain_positions)) return plan;

  struct Candidate {
    double order;  // sort key: the expected gain, or +inf for a probe
    double gain;   // expected tokens it adds
    int row, index;
  };
  std::vector<Candidate> candidates;
  int probes = 0;  // they sort first, and every prefix the plan may take holds them
  for (size_t r = 0; r < rows.size(); ++r) {
    const double a = std::clamp(rows[r].accept, 0.0, 1.0);
    double gain = 1;
    for (int j = 0; j < rows[r].available; ++j) {
      gain *= a;
      const bool probe = j == 0 && rows[r].must_probe;
      probes += probe;
      candidates.push_back({probe ? std::numeric_limits<double>::infinity() : gain, gain, static_cast<int>(r), j});
    }
  }
  // Best first; within a row the gains never grow, so its chain order is kept.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    if (x.order != y.order) return x.order > y.order;
    if (x.row != y.row) return x.row < y.row;
    return x.index < y.index;
  });

  // Walk the prefixes; a larger one must beat the best so far by a margin (measurement noise must
  // not buy positions that pay nothing).
  constexpr double kMargin = 1.01;
  std::vector<int> taken(rows.size(), 0);
  double tokens = costs.plain_positions;
  int rounds = 0;
  size_t best = 0;
  double best_rate = -1;
  for (size_t m = 0;; ++m) {
    const double cost = costs.table->estimate(costs.plain_positions + static_cast<int>(m)) + costs.model_round_s * rounds;
    const double rate = cost > 0 ? tokens / cost : 0;
    if (m >= static_cast<size_t>(probes) && (best_rate < 0 || rate > best_rate * kMargin)) {
      best = m;
      best_rate = rate;
    }
    if (m == candidates.size()) break;
    const Candidate& c = candidates[m];
    tokens += c.gain;
    const RowCandidates& row = rows[static_cast<size_t>(c.row)];
    rounds = std::max(rounds, ++taken[static_cast<size_t>(c.row)] - row.forced);
  }
  const long chosen = std::clamp(static_cast<long>(best) + explore, static_cast<long>(probes),
                                 static_cast<long>(candidates.size()));
  for (long m = 0; m < chosen; ++m) ++plan[static_cast<size_t>(candidates[static_cast<size_t>(m)].row)];
  return plan;
}

}  // namespace ninfer::speculative
