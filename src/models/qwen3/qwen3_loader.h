// Qwen3 checkpoints from disk: a Hugging Face folder (config.json, model.safetensors or sharded
// model-0000X-of-0000N.safetensors + model.safetensors.index.json, tokenizer.json) or a GGUF file
// (llama.cpp's qwen3 architecture, tokenizer in the metadata). Tensors stay memory-mapped.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "models/gguf.h"
#include "models/qwen3/qwen3_weights.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::models::qwen3 {

struct LoadedQwen3 {
  std::shared_ptr<const Qwen3Weights> weights;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;
  std::string format;  // "safetensors" or "gguf"
  std::string dtype;   // e.g. "bf16", "q8_0" (of the projection matrices), for descriptions
};

// config.json text -> config; errors are BadConfig / Unsupported located at "label:/key".
Qwen3Config parse_hf_config(std::string_view config_json, const std::string& label);
// GGUF metadata -> config (vocab_size from token_embd.weight); errors located at "path:key".
Qwen3Config gguf_qwen3_config(const gguf::File& file);

// Throw ModelError (NotFound, BadHeader, Truncated, MissingTensor, WrongShape, UnknownDtype,
// BadConfig, Unsupported) naming the file and the tensor / key / offset.
// `residency`: how the weight files are held (mapped_file.h).
// packing: Q8_0 matrices packed for the AMX tile unit (TensorView::q8_tiles) or in lanes for the
// vector kernels (TensorView::q8_lanes), F16 and BF16 ones in column tiles (TensorView::column_tiles),
// where the weights are a HugePages copy (a mapping stays as the file has it).
LoadedQwen3 load_hf_folder(const std::string& dir, Residency residency = Residency::Mapped, WeightPacking packing = {});
LoadedQwen3 load_gguf(const std::string& path, Residency residency = Residency::Mapped, WeightPacking packing = {});
// The weights alone (tests, references): no tokenizer is built.
std::shared_ptr<const Qwen3Weights> load_hf_weights(const std::string& dir, Residency residency = Residency::Mapped,
                                                    WeightPacking packing = {});
std::shared_ptr<const Qwen3Weights> load_gguf_weights(const std::string& path);
// From a parsed GGUF (views into its bytes; the result keeps file.storage alive).
std::shared_ptr<const Qwen3Weights> weights_from_gguf(const gguf::File& file);

// GGUF tensor name for a Hugging Face Qwen3 tensor name ("model.layers.3.mlp.up_proj.weight" ->
// "blk.3.ffn_up.weight"); empty for names with no counterpart.
std::string gguf_tensor_name(const std::string& hf_name);

}  // namespace ninfer::models::qwen3
