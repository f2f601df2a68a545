// Constrained sampling, CPU reference (DESIGN.md section 7). Ops see only packed mask words and
// parameters, never a grammar type. The order is exact: penalties, legal set A from the mask, top-k
// inside A, temperature, min-p, top-p, normalise; greedy = max over A with ties to the lower id.
// docs/sampling.md states every step, the draw and the RNG keying precisely. The functions are pure
// and thread-safe (per-thread scratch, no heap allocation once warm).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ninfer::ops {

struct SamplingParams {
  float temperature = 1.0f;        // 0 = greedy (so is any value that is not > 0, NaN included)
  int top_k = 0;                   // 0 = off (negative too); 1 = greedy
  float top_p = 1.0f;              // 1 = off (NaN too); <= 0 keeps the single best token
  float min_p = 0.0f;              // 0 = off (NaN too); >= 1 keeps the tokens tied with the maximum
  float presence_penalty = 0.0f;   // OpenAI semantics: subtract once per token already generated
  float frequency_penalty = 0.0f;  // subtract count × penalty
};

// A row's mask: bit i of word i/32 set = token i legal. words == nullptr means unconstrained (every
// id < domain_size is legal, ids >= domain_size of the logits are never legal). Ids at or past the
// logits width are never legal either, and domain_size <= 0 leaves nothing legal (EmptyMask).
struct MaskRow {
  const uint32_t* words = nullptr;
  int32_t domain_size = 0;  // token-domain size V (not the padded logits width)
};

// Tokens generated so far in this request with their counts, for the penalties. One entry per token
// (entries are applied in order, so a repeated token is penalised twice); ids outside the row are
// ignored.
struct TokenCount {
  int32_t token;
  int32_t count;
};

enum class SampleStatus { Ok, EmptyMask, NonFiniteLogits };

struct SampleResult {
  SampleStatus status = SampleStatus::Ok;
  int32_t token = -1;
};

// Counter-based RNG key: streams are keyed by seed, logical position and purpose, so masks and
// compiles never shift anyone's random numbers and a replay reproduces the same draws.
enum class RngPurpose : uint32_t { Sample = 1, SpecAccept = 2, SpecResidual = 3, Draft = 4 };
struct RngKey {
  uint64_t seed = 0;
  uint64_t position = 0;
  RngPurpose purpose = RngPurpose::Sample;
};
// Uniform double in [0, 1) — the `index`-th draw of the stream `key`.
double rng_uniform(const RngKey& key, uint64_t index = 0);

// The final distribution over the support after the whole pipeline (sorted by token id), for tests
// and for speculative acceptance. Greedy (temperature 0) gives one token with probability 1. On an
// error status `out` is left empty. Reusing one `out` across calls keeps its capacity.
struct SparseDistribution {
  std::vector<int32_t> tokens;
  std::vector<float> probs;
};

SampleStatus transformed_distribution(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                                      std::span<const TokenCount> penalties, SparseDistribution& out);

// One token from the final distribution: u = rng_uniform(key, 0), inverse CDF over the support in
// ascending id order (docs/sampling.md). Greedy consumes no randomness. On an error status token = -1.
SampleResult sample_token(std::span<const float> logits, const MaskRow& mask, const SamplingParams& params,
                          std::span<const TokenCount> penalties, const RngKey& key);

}  // namespace ninfer::ops
