// Byte-level BPE tokenizers in GGUF metadata (llama.cpp's "gpt2" tokenizer model): writing them
// from a Hugging Face tokenizer.json, and reading them back as a Tokenizer by synthesising the
// equivalent tokenizer.json (BPE vocab + merges, byte-level pre-tokenizer with the split regex the
// `tokenizer.ggml.pre` name stands for, added tokens for control / user-defined types).
#pragma once

#include <memory>
#include <string>

#include "models/gguf.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::models {

// tokenizer.ggml.token_type values (llama.cpp's llama_token_type).
enum class GgufTokenType : int32_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

// Adds the tokenizer.* keys for the tokenizer.json (+ tokenizer_config.json, may be empty path) in
// `folder`; the token list is padded with unused "[PADn]" entries up to `vocab_size` (the model's
// logits width) as llama.cpp's converter does. Throws ModelError (Unsupported) for a tokenizer that
// is not a Qwen2-style byte-level BPE.
void add_gguf_tokenizer(gguf::Writer& writer, const std::string& folder, int64_t vocab_size);

// The tokenizer.json and tokenizer_config.json documents the GGUF metadata describes.
struct SynthesisedTokenizer {
  std::string tokenizer_json;
  std::string tokenizer_config_json;
};
SynthesisedTokenizer synthesise_tokenizer_json(const gguf::File& file);

// synthesise_tokenizer_json + Tokenizer::from_json_text; a TokenizerError becomes ModelError BadConfig.
std::shared_ptr<const tokenizer::Tokenizer> load_gguf_tokenizer(const gguf::File& file);

}  // namespace ninfer::models
