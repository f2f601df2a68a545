// make-model: a random-weight Qwen3-architecture checkpoint with a real tokenizer, written as a
// Hugging Face folder (config.json, model.safetensors, tokenizer files, generation_config.json) and
// optionally the same weights as GGUF. Values are seeded and reproducible, streamed to disk tensor by
// tensor (the 0.6b preset never holds more than a few MB in memory), and the folder appears only
// complete: it is written under a temporary name and renamed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/qwen3/qwen3_weights.h"
#include "models/tensor.h"

namespace ninfer::models::qwen3 {

struct MakeModelOptions {
  std::string preset = "tiny";           // qwen3_preset name
  std::optional<Qwen3Config> config;     // replaces the preset's shape when set
  uint64_t seed = 0;
  DType dtype = DType::BF16;             // safetensors dtype: F32, F16 or BF16
  std::string tokenizer = "qwen3";       // npm asset name, tokenizer.json path or folder holding one
  std::string gguf_path;                 // also write the weights as GGUF here ("" = no)
  bool gguf_in_folder = false;           // also write <out>/model.gguf
  DType gguf_type = DType::Q8_0;         // matrices; norm vectors are always F32 (as llama.cpp writes them)
  bool overwrite = false;                // replace an existing folder / GGUF file
  bool keep_existing = false;            // an existing folder is taken as the result (first writer wins)
};

struct MakeModelResult {
  std::string dir;
  std::string gguf_path;  // "" when none was written
  bool reused = false;    // keep_existing found the folder already there
  double seconds = 0;
  uint64_t safetensors_bytes = 0;
  uint64_t gguf_bytes = 0;
  int64_t parameters = 0;
};

// Writes the model folder `out_dir` (temporary sibling + rename). Throws std::runtime_error when the
// destination exists and neither overwrite nor keep_existing is set, std::invalid_argument for bad
// options, ModelError for an unusable tokenizer.
MakeModelResult make_model(const std::string& out_dir, const MakeModelOptions& options);

// A layer-skip self-draft of a make-model target: the target's shape, seed, dtype and tokenizer with
// its first `layers` layers. Every value is a function of (seed, tensor name, index), so the draft
// holds the target's very embeddings, first layers, final norm and head. Throws std::invalid_argument
// for a folder that make-model did not write or a layer count outside 1..the target's.
MakeModelOptions draft_model_options(const std::string& target_dir, int layers);

// The model's values, deterministic in (seed, tensor name, element index): what make_model writes
// before rounding to the file dtype. Exposed for tests.
float make_model_value(uint64_t seed, const std::string& hf_tensor_name, int64_t index, const Qwen3Config& config);

}  // namespace ninfer::models::qwen3
