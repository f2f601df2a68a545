// How many drafts a row gets this step (issue 14: per-row K adapting to the remaining budget, the
// context end and the acceptance history). Each verified draft costs a forward position whether it
// is accepted or not, so a row whose model drafts keep failing drafts fewer, and one whose chains
// are accepted whole drafts more, up to K.
#pragma once

#include <algorithm>

namespace ninfer::speculative {

struct DraftLength {
  int max = 0;           // K
  bool adaptive = true;  // false: always max (within the limits)
  int current = 0;       // this row's next draft length (starts at max)

  // The limits: a step produces at most drafts + 1 tokens and writes 1 + drafts positions.
  int limit(int tokens_left, int positions_left) const {
    return std::max(0, std::min({max, tokens_left - 1, positions_left - 1}));
  }
  // Within the limits, the row's own length (K when not adaptive). The constraint's forced tokens
  // cost no forward to propose and are rarely wrong, so they take up to limit(); this bounds the
  // model proposer's drafts.
  int next(int tokens_left, int positions_left) const {
    return std::min(adaptive ? current : max, limit(tokens_left, positions_left));
  }
  // After a step that verified `drafted` drafts and accepted `accepted`: a whole chain accepted
  // grows the next one by one, a rejection shrinks it to what was accepted plus one.
  void learn(int drafted, int accepted) {
    if (drafted <= 0) return;
    current = accepted == drafted ? std::min(max, current + 1) : std::clamp(accepted + 1, 1, max);
  }

  // The row's drafts' acceptance rate (moving average per verification, all drafts counted): what
  // a draft position is expected to save, against what it costs (the Engine's cost check).
  double accept_rate = 0.5;
  void learn_rate(int drafted, int accepted) {
    if (drafted > 0) accept_rate += 0.25 * (static_cast<double>(accepted) / drafted - accept_rate);
  }
  // Whether the cost check lets the row draft this step. A row held back drafts anyway every
  // kCostProbeEvery steps, so that its rate and the position cost are measured again (a noisy
  // step must not switch drafting off for good).
  static constexpr int kCostProbeEvery = 8;
  int held_back = 0;
  bool passes_cost_check(bool worth_it) {
    if (worth_it || ++held_back >= kCostProbeEvery) {
      held_back = 0;
      return true;
    }
    return false;
  }

  // The model proposer's back-off (n-gram, draft model; forced tokens cost no forward and always
  // go): after `misses` verifications in a row that accepted none of its drafts, it sits out
  // 2^(misses-2) steps (at most 64), so a proposer that keeps guessing wrong costs little.
  int misses = 0;
  int pause = 0;
  bool model_drafts_now() {
    if (!adaptive || pause == 0) return true;
    --pause;
    return false;
  }
  void learn_model(int drafted, int accepted) {
    if (!adaptive || drafted <= 0) return;
    if (accepted > 0) {
      misses = 0;
      return;
    }
    ++misses;
    if (misses >= 2) pause = 1 << std::min(misses - 2, 6);
  }
};

}  // namespace ninfer::speculative
