// How many drafts a row gets this step (issue 14: per-row K adapting to the remaining budget, the
// context end and the acceptance history). Each verified draft costs a forward position whether it
// is accepted or not, so a row whose drafts keep failing drafts fewer, and one whose chains are
// accepted whole drafts more, up to K.
#pragma once

#include <algorithm>

namespace ninfer::speculative {

struct DraftLength {
  int max = 0;           // K
  bool adaptive = true;  // false: always max (within the limits)
  int current = 0;       // this row's next draft length (starts at max)

  // The limits: a step produces at most drafts + 1 tokens and writes 1 + drafts positions.
  int next(int tokens_left, int positions_left) const {
    const int k = adaptive ? current : max;
    return std::max(0, std::min({k, tokens_left - 1, positions_left - 1}));
  }
  // After a step that verified `drafted` drafts and accepted `accepted`: a whole chain accepted
  // grows the next one by one, a rejection shrinks it to what was accepted plus one.
  void learn(int drafted, int accepted) {
    if (drafted <= 0) return;
    current = accepted == drafted ? std::min(max, current + 1) : std::clamp(accepted + 1, 1, max);
  }
};

}  // namespace ninfer::speculative
