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

  // The probability that a draft is accepted given the ones before it (what the step's plan,
  // speculative/draft_plan.h, expects of the row's next chain): moving averages of the drafts a
  // verification accepted and of the ones it evaluated (the accepted ones plus the first
  // rejected one), starting from one half.
  double accepted_avg = 1, evaluated_avg = 2;
  double accept_probability() const { return evaluated_avg > 0 ? accepted_avg / evaluated_avg : 0; }
  void learn_acceptance(int drafted, int accepted) {
    if (drafted <= 0) return;
    constexpr double kWeight = 0.25;
    const int evaluated = accepted + (accepted < drafted ? 1 : 0);
    accepted_avg += kWeight * (accepted - accepted_avg);
    evaluated_avg += kWeight * (evaluated - evaluated_avg);
  }
  // A row that had drafts on offer but was planned none for kProbeEvery steps verifies its first
  // one anyway, so that its acceptance is measured again (an unlucky run must not switch its
  // drafting off for good).
  static constexpr int kProbeEvery = 8;
  int held_back = 0;
  bool probe_due() const { return held_back >= kProbeEvery; }
  void planned(int offered, int drafts) {
    if (drafts > 0)
      held_back = 0;
    else if (offered > 0)
      ++held_back;
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
