// Independent reference for the sampling pipeline: plain loops over every id, long double math, a
// full sort of the support. Deliberately shares no code with src/ops (no heaps, no quickselect, no
// fast exp, no log-domain tricks) so that the two can only agree by both being right.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/sampling.h"

namespace ninfer::ops::testing {

struct OracleResult {
  SampleStatus status = SampleStatus::Ok;
  std::vector<int32_t> tokens;    // ascending ids
  std::vector<long double> probs;
};

// mask == nullptr: unconstrained.
inline OracleResult oracle_distribution(const std::vector<float>& logits, const std::vector<uint32_t>* mask,
                                        int32_t domain_size, const SamplingParams& p,
                                        const std::vector<TokenCount>& penalties) {
  OracleResult r;
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(logits.size()), std::max<int32_t>(domain_size, 0));
  // 1. Penalties, applied entry by entry; the penalised logit is rounded once to float (contract).
  std::vector<float> z(logits.begin(), logits.begin() + n);
  for (const TokenCount& tc : penalties) {
    if (tc.token < 0 || tc.token >= n) continue;
    const double pen = (tc.count > 0 ? double{p.presence_penalty} : 0.0) + double{p.frequency_penalty} * tc.count;
    z[tc.token] = static_cast<float>(static_cast<double>(z[tc.token]) - pen);
  }
  // 2. Legal set.
  std::vector<int32_t> legal;
  for (int64_t id = 0; id < n; ++id) {
    if (mask == nullptr || (((*mask)[id / 32] >> (id % 32)) & 1u)) legal.push_back(static_cast<int32_t>(id));
  }
  if (legal.empty()) {
    r.status = SampleStatus::EmptyMask;
    return r;
  }
  for (int32_t id : legal) {
    if (!std::isfinite(z[id])) {
      r.status = SampleStatus::NonFiniteLogits;
      return r;
    }
  }
  // Rank order: logit descending, ties to the lower id.
  std::vector<int32_t> order = legal;
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return z[a] > z[b] || (z[a] == z[b] && a < b); });
  if (!(p.temperature > 0.0f) || p.top_k == 1) {
    r.tokens = {order[0]};
    r.probs = {1.0L};
    return r;
  }
  // 3. Top-k inside A (the real support when smaller).
  if (p.top_k > 0 && static_cast<size_t>(p.top_k) < order.size()) order.resize(static_cast<size_t>(p.top_k));
  // 4. Temperature; probabilities relative to the maximum (which is order[0]).
  const long double zmax = z[order[0]];
  std::vector<long double> w;
  for (int32_t id : order) w.push_back(std::exp((static_cast<long double>(z[id]) - zmax) / p.temperature));
  // 5. Min-p: p / p_max >= min_p.
  if (p.min_p > 0.0f) {
    const long double mp = std::min(1.0L, static_cast<long double>(p.min_p));
    std::vector<int32_t> o2;
    std::vector<long double> w2;
    for (size_t i = 0; i < order.size(); ++i) {
      if (w[i] / w[0] >= mp) {
        o2.push_back(order[i]);
        w2.push_back(w[i]);
      }
    }
    order = o2;
    w = w2;
  }
  // 6. Top-p: smallest prefix (rank order) whose normalised mass reaches top_p, at least one token.
  if (p.top_p < 1.0f) {
    long double total = 0;
    for (long double x : w) total += x;
    long double cum = 0;
    size_t keep = order.size();
    for (size_t i = 0; i < order.size(); ++i) {
      cum += w[i] / total;
      if (cum >= static_cast<long double>(p.top_p)) {
        keep = i + 1;
        break;
      }
    }
    order.resize(keep);
    w.resize(keep);
  }
  // 7. Normalise; report in id order.
  long double total = 0;
  for (long double x : w) total += x;
  std::vector<size_t> idx(order.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return order[a] < order[b]; });
  for (size_t i : idx) {
    r.tokens.push_back(order[i]);
    r.probs.push_back(w[i] / total);
  }
  return r;
}

}  // namespace ninfer::ops::testing
