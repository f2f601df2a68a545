// Qwen3 dense architecture: its hyper-parameters and the tensors of one checkpoint, however loaded
// (Hugging Face safetensors folder, GGUF file, or built in memory by tests and make-model).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/tensor.h"

namespace ninfer::models::qwen3 {

struct Qwen3Config {
  int vocab_size = 151936;
  int hidden_size = 1024;
  int intermediate_size = 3072;
  int num_layers = 28;
  int num_heads = 16;
  int num_kv_heads = 8;
  int head_dim = 128;
  double rope_theta = 1000000.0;
  double rms_norm_eps = 1e-6;
  bool tie_word_embeddings = true;
  int max_position_embeddings = 40960;
};

// make-model presets: "tiny" (test/demo default, full vocabulary, a few MB of layers), "small",
// "0.6b" (Qwen3-0.6B's shape, for benchmarks). Throws std::invalid_argument for an unknown name.
Qwen3Config qwen3_preset(const std::string& name);

struct Qwen3LayerWeights {
  TensorView attn_norm;  // [hidden]
  TensorView q_proj;     // [heads*head_dim, hidden]
  TensorView k_proj;     // [kv_heads*head_dim, hidden]
  TensorView v_proj;     // [kv_heads*head_dim, hidden]
  TensorView o_proj;     // [hidden, heads*head_dim]
  TensorView q_norm;     // [head_dim]
  TensorView k_norm;     // [head_dim]
  TensorView ffn_norm;   // [hidden]  (post_attention_layernorm)
  TensorView gate_proj;  // [intermediate, hidden]
  TensorView up_proj;    // [intermediate, hidden]
  TensorView down_proj;  // [hidden, intermediate]
};

struct Qwen3Weights {
  Qwen3Config config;
  TensorView embed;       // [vocab, hidden]
  TensorView final_norm;  // [hidden]
  TensorView lm_head;     // [vocab, hidden]; the embedding itself when tied
  std::vector<Qwen3LayerWeights> layers;
  // Keeps the bytes behind the views alive (memory maps, owned buffers).
  std::vector<std::shared_ptr<const void>> storage;
  std::string source;  // path it came from, for messages

  // The matrices the forward pass multiplies by (a tied lm_head once, as the embedding).
  std::vector<TensorView*> matrices();
  std::vector<const TensorView*> matrices() const;
};

// Checks every tensor's presence, dtype and shape against the config; throws ModelError
// (MissingTensor / WrongShape / UnknownDtype) naming the tensor.
void validate_qwen3_weights(const Qwen3Weights& w);

}  // namespace ninfer::models::qwen3
