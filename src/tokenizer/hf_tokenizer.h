// The concrete Tokenizer: added-token split -> normalizer -> pre-tokenizer -> BPE. Built by
// tokenizer_loader.cpp from a tokenizer.json.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/string_id_map.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::tokenizer {

class HfTokenizer final : public Tokenizer {
 public:
  int32_t vocab_size() const override { return static_cast<int32_t>(token_bytes_.size()); }
  const std::string& token_bytes(int32_t id) const override;
  TokenKind token_kind(int32_t id) const override;
  std::optional<int32_t> token_id(std::string_view content) const override;
  std::vector<int32_t> eos_ids() const override { return eos_ids_; }
  std::optional<int32_t> bos_id() const override { return bos_id_; }
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(std::span<const int32_t> ids, bool skip_special) const override;
  double load_seconds() const override { return load_seconds_; }
  const std::string& source_path() const override { return source_path_; }

  // Filled by the loader.
  std::vector<std::string> token_bytes_;
  std::vector<TokenKind> kinds_;
  StringIdMap added_ids_;  // added-token contents (vocabulary strings are in model_)
  std::vector<int32_t> eos_ids_;
  std::optional<int32_t> bos_id_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<BpeModel> model_;
  AddedTokenMatcher added_;
  double load_seconds_ = 0;
  std::string source_path_;

 private:
  void encode_text(std::string_view text, bool at_text_start, std::vector<int32_t>& out) const;
};

}  // namespace ninfer::tokenizer
