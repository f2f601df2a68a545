// Random in-memory Qwen3 checkpoints for tests and benchmarks: every tensor owned by the returned
// Qwen3Weights (buffers in `storage`), stored in the dtype asked for, small-magnitude values so that
// activations stay O(1) through the layers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/qwen3/qwen3_weights.h"
#include "models/tensor.h"

namespace ninfer::models::testing {

// vocab 320, hidden 64, intermediate 96, 2 layers, 4 heads, 2 kv heads, head_dim 16 (all Q8_0-friendly).
qwen3::Qwen3Config tiny_qwen3_config();

struct RandomWeightsOptions {
  DType dtype = DType::F32;        // matrices (embedding, projections, lm_head)
  DType norm_dtype = DType::F32;   // 1-D norm weights (Q8_0 is not offered for these)
  uint64_t seed = 1;
};

// lm_head is the embedding view itself when config.tie_word_embeddings, else its own random matrix.
std::shared_ptr<qwen3::Qwen3Weights> make_random_qwen3_weights(const qwen3::Qwen3Config& config,
                                                               const RandomWeightsOptions& options = {});

// Encodes `values` (row-major, shape [rows, cols] or [n]) as a tensor of `dtype` whose bytes `owner`
// keeps alive. Q8_0 needs cols % 32 == 0.
TensorView make_tensor(qwen3::Qwen3Weights& owner, std::string name, std::vector<int64_t> shape, DType dtype,
                       std::span<const float> values);

}  // namespace ninfer::models::testing
