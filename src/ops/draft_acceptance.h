// Speculative acceptance (DESIGN.md section 7): one draft position verified against the target's
// final distribution p (the constrained, transformed one that plain sampling draws from), so that
// whatever proposed the draft, the token that comes out follows p exactly.
//
//   one-hot q (greedy drafts: draft model with one-hot q, n-gram, grammar): accept with p(d), else
//     draw from the residual norm(max(0, p - q)), which is p without d;
//   sparse q (drafts drawn from q, e.g. a draft model's top-16 renormalised): accept with
//     min(1, p(d) / q(d)), else draw from norm(max(0, p - q)).
// An illegal draft has p(d) = 0: it is rejected like any other and the residual is drawn, never
// dropped in favour of a bonus. Randomness comes from the keys (seed, position, SpecAccept) and
// (seed, position, SpecResidual), so a run is reproducible from its seed; the bonus position after
// a fully accepted chain is plain sample_token at its position.
#pragma once

#include <cstdint>
#include <span>

#include "ops/sampling.h"

namespace ninfer::ops {

// The distribution that produced a draft token. Empty: a point mass at the draft (one-hot).
// Otherwise weights over distinct token ids (normalised here; the draft should have q(d) > 0).
struct DraftQ {
  std::span<const int32_t> tokens;
  std::span<const float> probs;
  bool one_hot() const { return tokens.empty(); }
};

struct DraftVerdict {
  SampleStatus status = SampleStatus::Ok;  // EmptyMask / NonFiniteLogits: nothing was decided
  bool accepted = false;
  int32_t token = -1;  // the draft when accepted, else the residual draw
};

// Verifies `draft` at one position. `logits`, `mask`, `params` and `penalties` are exactly what plain
// sampling would get at this position (penalties counting the drafts accepted before it).
DraftVerdict verify_draft(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                          std::span<const TokenCount> penalties, int32_t draft, const DraftQ& q, uint64_t seed,
                          uint64_t position);

// The same decision from an already transformed p (sorted ids, as transformed_distribution gives it).
DraftVerdict verify_draft(const SparseDistribution& p, int32_t draft, const DraftQ& q, uint64_t seed,
                          uint64_t position);

// Draws a token from q (the sparse-q proposers' draft): inverse CDF over q's tokens in the order
// given, u = rng_uniform(key). q must have positive total weight; returns -1 otherwise.
int32_t sample_from(const DraftQ& q, const RngKey& key);

}  // namespace ninfer::ops
