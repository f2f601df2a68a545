#include "ops/draft_acceptance.h"

#include <algorithm>
#include <vector>

namespace ninfer::ops {

namespace {

struct Weighted {
  int32_t token;
  double weight;
};

// Per-thread scratch (no allocation once warm, as in sampling.cpp).
struct Scratch {
  SparseDistribution p;
  std::vector<Weighted> q;  // q normalised, sorted by id (looked up by binary search)
};
thread_local Scratch scratch;

// q normalised and sorted by id.
const std::vector<Weighted>& normalised_q(const DraftQ& q, int32_t draft) {
  std::vector<Weighted>& out = scratch.q;
  out.clear();
  if (q.one_hot()) {
    out.push_back({draft, 1.0});
    return out;
  }
  double total = 0;
  const size_t n = std::min(q.tokens.size(), q.probs.size());
  for (size_t j = 0; j < n; ++j) {
    if (q.probs[j] > 0.0f) total += q.probs[j];
  }
  if (!(total > 0)) return out;
  for (size_t j = 0; j < n; ++j) {
    if (q.probs[j] > 0.0f) out.push_back({q.tokens[j], q.probs[j] / total});
  }
  std::sort(out.begin(), out.end(), [](const Weighted& a, const Weighted& b) { return a.token < b.token; });
  return out;
}

double weight_of(const std::vector<Weighted>& q, int32_t token) {
  auto it = std::lower_bound(q.begin(), q.end(), token, [](const Weighted& w, int32_t t) { return w.token < t; });
  double w = 0;
  for (; it != q.end() && it->token == token; ++it) w += it->weight;  // repeated ids add up
  return w;
}

}  // namespace

DraftVerdict verify_draft(const SparseDistribution& p, int32_t draft, const DraftQ& q, uint64_t seed,
                          uint64_t position) {
  DraftVerdict v;
  double p_total = 0;
  for (float w : p.probs) p_total += w;
  if (p.tokens.empty() || !(p_total > 0)) {
    v.status = SampleStatus::EmptyMask;
    return v;
  }
  const auto at = std::lower_bound(p.tokens.begin(), p.tokens.end(), draft);
  const double p_draft =
      at != p.tokens.end() && *at == draft ? p.probs[static_cast<size_t>(at - p.tokens.begin())] / p_total : 0.0;
  const std::vector<Weighted>& qn = normalised_q(q, draft);
  const double q_draft = weight_of(qn, draft);

  // Accept with min(1, p(d) / q(d)) (one-hot: q(d) = 1, so p(d)). A draft that its q gives no weight
  // cannot have been drawn from it; it is accepted only where p allows it at all.
  const double u = rng_uniform(RngKey{seed, position, RngPurpose::SpecAccept});
  const bool accept = q_draft > 0 ? u * q_draft < p_draft : p_draft > 0;
  if (accept) {
    v.accepted = true;
    v.token = draft;
    return v;
  }

  // Rejected: draw from max(0, p - q) in ascending id order.
  auto residual = [&](size_t j) { return std::max(0.0, p.probs[j] / p_total - weight_of(qn, p.tokens[j])); };
  double residual_total = 0;
  for (size_t j = 0; j < p.tokens.size(); ++j) residual_total += residual(j);
  const double u2 = rng_uniform(RngKey{seed, position, RngPurpose::SpecResidual});
  // p = q to rounding leaves no residual mass; the rejection itself then had probability ~0, and p
  // is the distribution the residual tends to.
  const bool from_p = !(residual_total > 1e-12);
  const double target = u2 * (from_p ? 1.0 : residual_total);
  double running = 0;
  int32_t last = p.tokens.back();
  for (size_t j = 0; j < p.tokens.size(); ++j) {
    const double w = from_p ? p.probs[j] / p_total : residual(j);
    if (w <= 0) continue;
    last = p.tokens[j];
    running += w;
    if (running > target) {
      v.token = p.tokens[j];
      return v;
    }
  }
  v.token = last;  // u2 × total rounded up to the running sum
  return v;
}

DraftVerdict verify_draft(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                          std::span<const TokenCount> penalties, int32_t draft, const DraftQ& q, uint64_t seed,
                          uint64_t position) {
  const SampleStatus s = transformed_distribution(logits, mask, params, penalties, scratch.p);
  if (s != SampleStatus::Ok) {
    DraftVerdict v;
    v.status = s;
    return v;
  }
  return verify_draft(scratch.p, draft, q, seed, position);
}

int32_t sample_from(const DraftQ& q, const RngKey& key) {
  double total = 0;
  const size_t n = std::min(q.tokens.size(), q.probs.size());
  for (size_t j = 0; j < n; ++j) {
    if (q.probs[j] > 0.0f) total += q.probs[j];
  }
  if (!(total > 0)) return -1;
  const double target = rng_uniform(key) * total;
  double running = 0;
  int32_t last = -1;
  for (size_t j = 0; j < n; ++j) {
    if (!(q.probs[j] > 0.0f)) continue;
    last = q.tokens[j];
    running += q.probs[j];
    if (running > target) return q.tokens[j];
  }
  return last;
}

}  // namespace ninfer::ops
