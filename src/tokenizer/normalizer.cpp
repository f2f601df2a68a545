#include "tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <vector>

#include "tokenizer/regex.h"
#include "tokenizer/utf8.h"

namespace ninfer::tokenizer {
namespace {

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& s : steps_) s->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(int options) : options_(options) {}
  void normalize(std::string& text) const override {
    if (utf8::is_ascii(text)) return;  // every form is the identity on ASCII
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out,
                                            static_cast<utf8proc_option_t>(options_));
    if (n >= 0 && out) text.assign(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
    std::free(out);
  }

 private:
  int options_;
};

class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class ReplaceNormalizer final : public Normalizer {
 public:
  ReplaceNormalizer(std::unique_ptr<Regex> re, std::string content) : re_(std::move(re)), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    std::vector<std::pair<size_t, size_t>> m;
    re_->find_all(text, m);
    if (m.empty()) return;
    std::string out;
    out.reserve(text.size() + m.size() * content_.size());
    size_t prev = 0;
    for (auto [b, e] : m) {
      out.append(text, prev, b - prev);
      out += content_;
      prev = e;
    }
    out.append(text, prev, std::string::npos);
    text = std::move(out);
  }

 private:
  std::unique_ptr<Regex> re_;
  std::string content_;
};

class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override {
    size_t begin = 0, end = text.size();
    if (left_) {
      size_t pos = 0;
      while (pos < text.size()) {
        size_t next = pos;
        if (!utf8::is_white_space(utf8::decode(text, next))) break;
        pos = next;
      }
      begin = pos;
    }
    if (right_) {
      size_t pos = begin, last_non_ws_end = begin;
      while (pos < text.size()) {
        const char32_t c = utf8::decode(text, pos);
        if (!utf8::is_white_space(c)) last_non_ws_end = pos;
      }
      end = last_non_ws_end;
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const JsonSite& site) {
  if (site.value.is_null()) return nullptr;
  const std::string& type = site.type();
  if (type == "Sequence") {
    const JsonSite list = site.child("normalizers");
    list.require_array();
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (size_t i = 0; i < list.value.size(); ++i)
      if (auto n = make_normalizer(list.at(i))) steps.push_back(std::move(n));
    return std::make_unique<SequenceNormalizer>(std::move(steps));
  }
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_COMPOSE);
  if (type == "NFD") return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
  if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
  if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  if (type == "Prepend") {
    if (!site.has("prepend")) site.fail(TokenizerErrorKind::Inconsistent, "Prepend without \"prepend\"");
    return std::make_unique<PrependNormalizer>(site.child("prepend").require_string());
  }
  if (type == "Replace") {
    if (!site.has("pattern") || !site.has("content"))
      site.fail(TokenizerErrorKind::Inconsistent, "Replace needs \"pattern\" and \"content\"");
    return std::make_unique<ReplaceNormalizer>(compile_json_pattern(site.child("pattern")),
                                               site.child("content").require_string());
  }
  if (type == "Strip")
    return std::make_unique<StripNormalizer>(site.bool_or("strip_left", false), site.bool_or("strip_right", false));
  site.child("type").fail(TokenizerErrorKind::Unsupported, "unsupported normalizer type \"" + type + "\"");
}

}  // namespace ninfer::tokenizer
