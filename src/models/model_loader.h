// One entry point from a path to a runnable model: a Hugging Face folder (config.json + safetensors)
// or a GGUF file, and the default test/demo model that is generated on first use.
#pragma once

#include <memory>
#include <string>

#include "models/language_model.h"
#include "ninfer/engine.h"

namespace ninfer::models {

struct ModelLoadOptions {
  int slots = 8;            // sequence slots (KV caches)
  int max_context = 4096;   // positions per slot, capped by the model's max_position_embeddings; 0 = the model's
  int threads = 0;          // compute threads; 0 = hardware concurrency
  bool huge_pages = true;   // weights copied into huge pages (Residency::HugePages) instead of mapped
  PromptAttention prompt_attention = PromptAttention::Auto;  // EngineOptions::prompt_attention
};

// `path`: a folder with config.json (Hugging Face layout), a .gguf file, or a folder without
// config.json holding exactly one .gguf file. Throws ModelError (see model_error.h) or
// std::invalid_argument for bad options.
std::unique_ptr<LanguageModel> load_model(const std::string& path, const ModelLoadOptions& options = {});

// $NINFER_MODEL_CACHE when set, else ${XDG_CACHE_HOME:-$HOME/.cache}/ninfer/models/qwen3-tiny-s0.
std::string default_model_dir();

// default_model_dir(), generated there first if absent: the tiny preset, seed 0, bf16 safetensors
// plus model.gguf (Q8_0) beside it. Concurrent first uses are safe: each process writes a private
// temporary folder and renames it; the first rename wins and the others discard theirs.
std::string ensure_default_model();

}  // namespace ninfer::models
