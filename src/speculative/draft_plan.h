// Which drafts a step verifies (issue 14). A draft position costs forward time whether or not it is
// accepted, and what it costs depends on the step's shape, not on a constant: on a CPU a forward of
// one or two positions streams the weights (the second is nearly free), while from three positions
// on the layer matrices are compute-bound and every position costs. So the Engine measures the
// forward's time by the positions of a decode step, and each step verifies the drafts that make the
// most expected tokens per second of that curve.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

namespace ninfer::speculative {

// avg moves a quarter of the way to the newest sample (0 = none yet: the sample itself), a sample
// counting as at most twice and at least half the average: one forward that a preempted core
// stretched 7-fold would otherwise make the interleaved prompt chunks that size themselves from
// these costs overshoot for dozens of steps, while a real change still gets through in a few
// samples. The Engine's measured costs all learn this way.
inline void learn_moving_average(double& avg, double sample) {
  constexpr double kWeight = 0.25, kClip = 2.0;
  avg = avg == 0 ? sample : avg + kWeight * (std::clamp(sample, avg / kClip, avg * kClip) - avg);
}

// Moving averages of a decode step's forward seconds, by its positions (rows plus drafts).
class StepCostTable {
 public:
  static constexpr int kMaxPositions = 512;  // larger steps are not tracked (estimated flat)
  void learn(int positions, double seconds);
  // A measured shape's average; between two measured shapes, the line between them; one past the
  // largest measured shape, the largest's cost (optimistic, so that shapes get tried and measured
  // one at a time), and further on, an average position of the largest for each position more;
  // 0 when nothing is measured.
  double estimate(int positions) const;
  bool measured(int positions) const;
  // The measured shapes' averages, index = positions (0 = not measured).
  const std::vector<double>& seconds() const { return seconds_; }

 private:
  std::vector<double> seconds_;
};

// One decoding row's drafts on offer this step, in chain order.
struct RowCandidates {
  int available = 0;       // drafts it can verify this step
  int forced = 0;          // of those, how many come first without a draft-model round (forced, n-gram)
  double accept = 0.5;     // the probability that each draft is accepted, given the ones before it
  bool must_probe = false;  // held back long enough: verify at least its first draft
};

struct DraftPlanCosts {
  const StepCostTable* table = nullptr;
  int plain_positions = 0;  // the step's positions without drafts (its decoding rows)
  double model_round_s = 0;  // a draft-model round (one batched draft forward), per round
};

// Per row, how many of its candidates to verify. The j-th draft of a row with acceptance a is
// expected to add a^j tokens; candidates are taken best first, and the step takes the prefix that
// maximises (rows + expected tokens) / (forward cost of its positions + draft-model rounds).
// `explore` moves the choice that many candidates past it (positive) or before it (negative), so
// that the shapes around the best keep being measured as contexts grow.
std::vector<int> plan_drafts(std::span<const RowCandidates> rows, const DraftPlanCosts& costs, int explore = 0);

}  // namespace ninfer::speculative
