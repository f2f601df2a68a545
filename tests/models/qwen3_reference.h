// A naive FP64 Qwen3 forward pass (Hugging Face Qwen3ForCausalLM semantics) for checking the real
// implementation and the weight loaders: plain loops, doubles everywhere (but for the keys and values,
// rounded to f16 as the KV cache holds them), weights read element by
// element through tensor_element, no cache. Meant for tiny configs (cost ~ tokens^2 and whole-matrix
// conversions), and deliberately shares no code with the optimised path.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/qwen3/qwen3_weights.h"

namespace ninfer::models::testing {

// Logits (vocab_size doubles) for every position of `tokens`, run as one sequence from position 0.
std::vector<std::vector<double>> reference_logits(const qwen3::Qwen3Weights& weights,
                                                  std::span<const int32_t> tokens);

}  // namespace ninfer::models::testing
