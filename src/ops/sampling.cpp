// Constrained sampling pipeline, CPU reference (DESIGN.md section 7, docs/sampling.md):
// penalties, legal set A, top-k inside A, temperature, min-p, top-p, normalise, one inverse-CDF draw.
//
// Cost model: a row is 151,936 logits and this runs every decode step, so nothing allocates in the
// steady state (thread-local scratch that only grows), all-zero mask words are skipped 32 tokens at a
// time, the support is never fully sorted (top-k and top-p find a cut-off element and then filter the
// support in id order), and an unconstrained row with default parameters reads the logits in place:
// one scan, one vectorised exp pass (with block sums), one draw.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>

#include "ops/row_kernels.h"
#include "ops/sampling.h"

namespace ninfer::ops {

namespace {

// The one order used for top-k and top-p: higher (penalised) logit first, ties to the lower id —
// the same tie rule as greedy. Ordering by logit rather than by weight keeps distinct logits
// distinct even where their weights round to the same double.
inline bool ranks_before(float za, int32_t ia, float zb, int32_t ib) { return za > zb || (za == zb && ia < ib); }

struct Candidate {
  float z;
  int32_t id;
  double e;
};
struct RanksBefore {
  bool operator()(const Candidate& a, const Candidate& b) const { return ranks_before(a.z, a.id, b.z, b.id); }
};

// Per-thread scratch, grown to the widest row seen and never shrunk, so steady state never allocates.
struct Scratch {
  std::vector<int32_t> ids;
  std::vector<float> z;
  std::vector<double> e;
  std::vector<double> blocks;  // block sums of e (row_kernels.h)
  std::vector<uint16_t> bins;   // top-p weight bins
  std::vector<Candidate> candidates;
};
thread_local Scratch scratch;

template <class T>
T* at_least(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// The current support: position j is token ids[j] (ids == nullptr: token j, the unconstrained
// row read in place) with penalised logit z[j] and, once computed, weight e[j]. Ids ascend.
struct Support {
  const int32_t* ids = nullptr;
  const float* z = nullptr;
  const double* e = nullptr;
  size_t n = 0;
  int32_t id(size_t j) const { return ids != nullptr ? ids[j] : static_cast<int32_t>(j); }
};

// Penalised logit, rounded once to float (the contract the test oracle reproduces).
inline float penalised(float logit, int32_t count, double presence, double frequency) {
  const double penalty = (count > 0 ? presence : 0.0) + frequency * static_cast<double>(count);
  return static_cast<float>(static_cast<double>(logit) - penalty);
}

// Legal set A with penalties applied. Ids at or past min(domain, logits width) are never legal.
void build_support(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                   std::span<const TokenCount> penalties, Support& s) {
  const size_t domain = mask.domain_size > 0 ? static_cast<size_t>(mask.domain_size) : 0;
  const size_t n = std::min(logits.size(), domain);
  // All scratch is sized before any pointer into it is taken, so no later growth can move it.
  int32_t* ids = at_least(scratch.ids, n);
  float* z = at_least(scratch.z, n);
  at_least(scratch.e, n);
  const bool penalise = !(params.presence_penalty == 0.0f && params.frequency_penalty == 0.0f);  // NaN applies
  const double presence = params.presence_penalty;
  const double frequency = params.frequency_penalty;

  if (mask.words == nullptr) {
    s = Support{nullptr, logits.data(), nullptr, n};
    if (!penalise) return;
    bool copied = false;
    for (const TokenCount& tc : penalties) {
      if (tc.token < 0 || static_cast<size_t>(tc.token) >= n) continue;
      if (!copied) {  // only rows that are really penalised pay for a copy
        std::copy(logits.begin(), logits.begin() + static_cast<std::ptrdiff_t>(n), z);
        s.z = z;
        copied = true;
      }
      z[tc.token] = penalised(z[tc.token], tc.count, presence, frequency);
    }
    return;
  }

  size_t m = 0;
  const size_t words = (n + 31) / 32;
  for (size_t w = 0; w < words; ++w) {
    uint32_t bits = mask.words[w];
    if (bits == 0) continue;
    const size_t base = w * 32;
    if (bits == 0xffffffffu && base + 32 <= n) {  // dense stretch: plain copy
      for (size_t b = 0; b < 32; ++b) {
        ids[m + b] = static_cast<int32_t>(base + b);
        z[m + b] = logits[base + b];
      }
      m += 32;
      continue;
    }
    while (bits != 0) {
      const size_t token = base + static_cast<size_t>(std::countr_zero(bits));
      if (token >= n) break;  // bits past the domain (or past the logits) are not tokens
      ids[m] = static_cast<int32_t>(token);
      z[m] = logits[token];
      ++m;
      bits &= bits - 1;
    }
  }
  s = Support{ids, z, nullptr, m};
  if (!penalise) return;
  for (const TokenCount& tc : penalties) {
    const int32_t* it = std::lower_bound(ids, ids + m, tc.token);
    if (it != ids + m && *it == tc.token) {
      const size_t j = static_cast<size_t>(it - ids);
      z[j] = penalised(z[j], tc.count, presence, frequency);
    }
  }
}

// Keeps the positions for which keep(j) holds, in order, compacting into scratch (in place when the
// support already lives there: the write index never passes the read index).
template <class Keep>
void filter(Support& s, Keep keep) {
  int32_t* ids = scratch.ids.data();
  float* z = scratch.z.data();
  double* e = scratch.e.data();
  size_t m = 0;
  for (size_t j = 0; j < s.n; ++j) {
    if (!keep(j)) continue;
    ids[m] = s.id(j);
    z[m] = s.z[j];
    if (s.e != nullptr) e[m] = s.e[j];
    ++m;
  }
  s = Support{ids, z, s.e != nullptr ? e : nullptr, m};
}

// Keeps exactly the k candidates that rank first, in one pass: a buffer of up to 2k candidates
// that beat the current cut (almost every token fails that single compare); when it fills,
// nth_element keeps its best k and raises the cut. Linear for any k and any logit order.
void apply_top_k(Support& s, size_t k) {
  const size_t cap = std::min(s.n, 2 * k);
  Candidate* buf = at_least(scratch.candidates, cap);
  size_t m = 0;
  for (; m < cap; ++m) buf[m] = Candidate{s.z[m], s.id(m), 0.0};
  std::nth_element(buf, buf + (k - 1), buf + m, RanksBefore{});
  Candidate cut = buf[k - 1];
  m = k;
  for (size_t j = cap; j < s.n; ++j) {
    // Everything in the buffer came from lower ids, so a tie with the cut never ranks before it.
    const float v = s.z[j];
    if (!(v > cut.z)) continue;
    buf[m++] = Candidate{v, s.id(j), 0.0};
    if (m == cap) {
      std::nth_element(buf, buf + (k - 1), buf + m, RanksBefore{});
      cut = buf[k - 1];
      m = k;
    }
  }
  std::nth_element(buf, buf + (k - 1), buf + m, RanksBefore{});
  cut = buf[k - 1];
  if (k * 16 >= s.n) {
    filter(s, [&](size_t j) { return !ranks_before(cut.z, cut.id, s.z[j], s.id(j)); });
    return;
  }
  // A small k: sorting the k survivors back into id order is cheaper than another pass over the row.
  std::sort(buf, buf + k, [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
  int32_t* ids = scratch.ids.data();
  float* z = scratch.z.data();
  for (size_t j = 0; j < k; ++j) {
    ids[j] = buf[j].id;
    z[j] = buf[j].z;
  }
  s = Support{ids, z, nullptr, k};
}

// Weighted quickselect over c[0, m): the candidate that ends the smallest rank-order prefix whose
// mass, added to `before`, reaches `target`. Halves the range with nth_element and keeps the half
// holding the cut-off, so it is expected linear; only the last small range is sorted.
Candidate weighted_select(Candidate* c, size_t m, double before, double target) {
  size_t lo = 0;
  size_t hi = m;
  while (hi - lo > 32) {
    const size_t mid = lo + (hi - lo) / 2;
    std::nth_element(c + lo, c + mid, c + hi, RanksBefore{});
    double upper = 0;
    for (size_t j = lo; j < mid; ++j) upper += c[j].e;
    if (before + upper >= target) {
      hi = mid;
    } else {
      before += upper;
      lo = mid;
    }
  }
  std::sort(c + lo, c + hi, RanksBefore{});
  for (size_t j = lo; j < hi; ++j) {
    before += c[j].e;
    if (before >= target) return c[j];
  }
  return c[hi - 1];  // rounding: the sums disagreed in the last bits; keep the whole range
}

// Top-p cut-off: the last candidate (rank order) of the smallest prefix whose mass reaches target.
// A wide support is first bucketed by the binade of its weight, computed from the logit so that
// buckets follow rank order exactly; whole buckets before the one where the mass crosses the target
// are in, and only that bucket goes through the quickselect. nullopt = keep the whole support.
std::optional<Candidate> top_p_cut(const Support& s, double target, double zmax, double inv_t) {
  constexpr size_t kDirect = 64;
  if (s.n <= kDirect) {
    Candidate* c = at_least(scratch.candidates, s.n);
    for (size_t j = 0; j < s.n; ++j) c[j] = Candidate{s.z[j], s.id(j), s.e[j]};
    return weighted_select(c, s.n, 0.0, target);
  }
  constexpr size_t kBins = 1024;  // weights are <= 1 and those below 2^-1022 are 0
  const double scale = inv_t * 0x1.71547652b82fep0;  // bin = floor(-log2(weight)), from the logit
  uint16_t* bins = at_least(scratch.bins, s.n);
  // Two interleaved histograms, so that runs of tokens in the same bin do not chain every addition
  // through one memory slot.
  std::array<double, 2 * kBins> mass{};
  std::array<uint32_t, kBins> count{};
  for (size_t j = 0; j < s.n; ++j) {
    const double y = (zmax - static_cast<double>(s.z[j])) * scale;
    const uint16_t b = y >= static_cast<double>(kBins - 1) ? uint16_t{kBins - 1} : static_cast<uint16_t>(y);
    bins[j] = b;
    mass[2 * b + (j & 1)] += s.e[j];
    ++count[b];
  }
  double before = 0;
  size_t b = 0;
  for (; b < kBins; ++b) {
    const double bin_mass = mass[2 * b] + mass[2 * b + 1];
    if (count[b] != 0 && before + bin_mass >= target) break;
    before += bin_mass;
  }
  if (b == kBins) return std::nullopt;  // rounding: the target was the whole mass
  Candidate* c = at_least(scratch.candidates, count[b]);
  size_t m = 0;
  for (size_t j = 0; j < s.n; ++j) {
    if (bins[j] == b) c[m++] = Candidate{s.z[j], s.id(j), s.e[j]};
  }
  return weighted_select(c, m, before, target);
}

struct Prepared {
  SampleStatus status = SampleStatus::Ok;
  bool greedy = false;
  int32_t greedy_token = -1;
  // Final support with block sums (not greedy), and with its weights unless support.e is null: then
  // exp_weights(z, n, zmax, zmin, inv_t) gives them, block by block.
  Support support;
  double total = 0;
  double zmax = 0, zmin = 0, inv_t = 0;
};

// The block sums' scratch for a support of n tokens.
double* block_scratch(size_t n) { return at_least(scratch.blocks, (n + detail::kWeightBlock - 1) / detail::kWeightBlock); }

double weigh_blocks(const Support& s) { return detail::block_sums(s.e, s.n, block_scratch(s.n)); }

// weights: whether the caller needs every weight of the final support (a draw needs only one
// block's, which it computes again).
Prepared prepare(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                 std::span<const TokenCount> penalties, bool weights) {
  Prepared out;
  Support& s = out.support;
  build_support(logits, mask, params, penalties, s);
  if (s.n == 0) {
    out.status = SampleStatus::EmptyMask;
    return out;
  }
  const detail::RowScan st = detail::scan_row(s.z, s.n);
  if (!st.finite) {
    out.status = SampleStatus::NonFiniteLogits;
    return out;
  }
  // Greedy: temperature 0 (or anything not positive, NaN included) or top_k == 1. The first
  // position holding the maximum is the lowest id.
  if (!(params.temperature > 0.0f) || params.top_k == 1) {
    size_t j = 0;
    while (s.z[j] != st.zmax) ++j;
    out.greedy = true;
    out.greedy_token = s.id(j);
    return out;
  }
  if (params.top_k > 0 && static_cast<size_t>(params.top_k) < s.n) apply_top_k(s, static_cast<size_t>(params.top_k));

  const double inv_t = 1.0 / static_cast<double>(params.temperature);
  const double zmax = st.zmax;
  out.zmax = zmax;
  out.zmin = st.zmin;
  out.inv_t = inv_t;
  const bool min_p = params.min_p > 0.0f;
  const bool top_p = params.top_p < 1.0f && s.n > 1;
  if (!weights && !min_p && !top_p) {
    // Nothing filters by weight: the block sums are all the draw needs, and the weights (8 bytes a
    // token, 1.2 MB for a whole row) are never stored (151,936-wide row, with the 32-lane exp:
    // 174 -> 140 us on the Zen 5).
    out.total = detail::exp_block_sums(s.z, s.n, zmax, st.zmin, inv_t, block_scratch(s.n));
    return out;
  }
  detail::exp_weights(s.z, s.n, zmax, st.zmin, inv_t, scratch.e.data());
  s.e = scratch.e.data();

  if (min_p) {
    // p / p_max >= min_p, compared in the log domain so the cut does not depend on exp rounding.
    const double log_min_p = std::min(0.0, std::log(static_cast<double>(params.min_p)));
    filter(s, [&](size_t j) { return (static_cast<double>(s.z[j]) - zmax) * inv_t >= log_min_p; });
  }
  double total = -1;  // negative: the block sums do not describe the current support
  if (top_p) {
    total = weigh_blocks(s);
    if (const std::optional<Candidate> cut = top_p_cut(s, static_cast<double>(params.top_p) * total, zmax, inv_t)) {
      filter(s, [&](size_t j) { return !ranks_before(cut->z, cut->id, s.z[j], s.id(j)); });
      total = -1;
    }
  }
  out.total = total < 0 ? weigh_blocks(s) : total;
  return out;
}

}  // namespace

SampleStatus transformed_distribution(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                                      std::span<const TokenCount> penalties, SparseDistribution& out) {
  const Prepared p = prepare(logits, mask, params, penalties, true);
  if (p.status != SampleStatus::Ok) {
    out.tokens.clear();
    out.probs.clear();
    return p.status;
  }
  if (p.greedy) {
    out.tokens.assign(1, p.greedy_token);
    out.probs.assign(1, 1.0f);
    return SampleStatus::Ok;
  }
  const Support& s = p.support;
  out.tokens.resize(s.n);
  out.probs.resize(s.n);
  const double inv_total = 1.0 / p.total;
  for (size_t j = 0; j < s.n; ++j) {
    out.tokens[j] = s.id(j);
    out.probs[j] = static_cast<float>(s.e[j] * inv_total);
  }
  return SampleStatus::Ok;
}

SampleResult sample_token(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                          std::span<const TokenCount> penalties, const RngKey& key) {
  const Prepared p = prepare(logits, mask, params, penalties, false);
  if (p.status != SampleStatus::Ok) return SampleResult{p.status, -1};
  if (p.greedy) return SampleResult{SampleStatus::Ok, p.greedy_token};
  // Inverse CDF in ascending id order, in two levels so that a wide row is not one long chain of
  // dependent additions: whole blocks first (the same running sum that made the total), then the
  // tokens of the block where the running weight passes u × total.
  const Support& s = p.support;
  const double* blocks = scratch.blocks.data();
  const size_t block_count = (s.n + detail::kWeightBlock - 1) / detail::kWeightBlock;
  const double target = rng_uniform(key, 0) * p.total;
  double before = 0;
  size_t b = 0;
  while (b < block_count && !(before + blocks[b] > target)) before += blocks[b++];
  double remaining = target - before;
  if (b == block_count) {
    // u × total rounded up to the total itself: the last token with weight.
    b = block_count - 1;
    while (blocks[b] <= 0.0) --b;  // the maximum weighs 1, so some block is positive
    remaining = std::numeric_limits<double>::infinity();
  }
  const size_t begin = b * detail::kWeightBlock;
  const size_t end = std::min(begin + detail::kWeightBlock, s.n);
  alignas(64) double block[detail::kWeightBlock];
  const double* e = s.e != nullptr ? s.e + begin : block;  // the block's weights
  if (s.e == nullptr) detail::exp_weights(s.z + begin, end - begin, p.zmax, p.zmin, p.inv_t, block);
  double running = 0;
  size_t last_positive = begin;
  for (size_t j = begin; j < end; ++j) {
    if (e[j - begin] <= 0.0) continue;
    running += e[j - begin];
    last_positive = j;
    if (running > remaining) return SampleResult{SampleStatus::Ok, s.id(j)};
  }
  // The block's sum and this running sum may differ in the last bits: stay inside the block.
  return SampleResult{SampleStatus::Ok, s.id(last_positive)};
}

}  // namespace ninfer::ops
