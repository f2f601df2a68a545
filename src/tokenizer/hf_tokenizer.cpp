#include "tokenizer/hf_tokenizer.h"

#include "tokenizer/utf8.h"

namespace ninfer::tokenizer {
namespace {
const std::string kEmpty;
}

const std::string& HfTokenizer::token_bytes(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= token_bytes_.size()) return kEmpty;
  return token_bytes_[static_cast<size_t>(id)];
}

TokenKind HfTokenizer::token_kind(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= kinds_.size()) return TokenKind::Unused;
  return kinds_[static_cast<size_t>(id)];
}

std::optional<int32_t> HfTokenizer::token_id(std::string_view content) const {
  if (auto id = added_ids_.find(content)) return id;
  return model_->find(content);
}

std::vector<int32_t> HfTokenizer::encode(std::string_view text) const {
  std::string repaired;
  if (!utf8::is_valid(text)) {
    repaired = utf8::repair(text);
    text = repaired;
  }
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 4);
  if (added_.empty()) {
    encode_text(text, true, out);
    return out;
  }
  for (const auto& seg : added_.split(text)) {
    if (seg.id >= 0) out.push_back(seg.id);
    else encode_text(text.substr(seg.begin, seg.end - seg.begin), seg.begin == 0, out);
  }
  return out;
}

void HfTokenizer::encode_text(std::string_view text, bool at_text_start, std::vector<int32_t>& out) const {
  if (text.empty()) return;
  std::vector<std::string> pieces(1, std::string(text));
  if (normalizer_) {
    normalizer_->normalize(pieces[0]);
    if (pieces[0].empty()) return;
  }
  if (pre_tokenizer_) pre_tokenizer_->apply(pieces, at_text_start);
  for (const std::string& p : pieces) model_->encode(p, out);
}

std::string HfTokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  std::string out;
  for (int32_t id : ids) {
    if (skip_special && token_kind(id) == TokenKind::Special) continue;
    out += token_bytes(id);
  }
  return out;
}

}  // namespace ninfer::tokenizer
