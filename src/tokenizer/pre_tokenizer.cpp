#include "tokenizer/pre_tokenizer.h"

#include <algorithm>
#include <utility>

#include "tokenizer/regex.h"

namespace ninfer::tokenizer {
namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct Span {
  size_t begin, end;
  bool match;
};

// Splits `text` at the matches of `re` the way the Rust tokenizers' NormalizedString::split does.
void split_piece(const std::string& text, const Regex& re, Behavior behavior, bool invert,
                 std::vector<std::pair<size_t, size_t>>& scratch, std::vector<std::string>& out) {
  scratch.clear();
  re.find_all(text, scratch);
  std::vector<Span> spans;
  spans.reserve(scratch.size() * 2 + 1);
  size_t prev = 0;
  for (auto [b, e] : scratch) {
    if (b > prev) spans.push_back({prev, b, invert});
    spans.push_back({b, e, !invert});
    prev = e;
  }
  if (prev < text.size()) spans.push_back({prev, text.size(), invert});

  std::vector<Span> merged;
  merged.reserve(spans.size());
  switch (behavior) {
    case Behavior::Isolated:
      merged = std::move(spans);
      break;
    case Behavior::Removed:
      for (const Span& s : spans)
        if (!s.match) merged.push_back(s);
      break;
    case Behavior::MergedWithPrevious: {
      bool previous_match = false;
      for (const Span& s : spans) {
        if (s.match && !previous_match && !merged.empty()) merged.back().end = s.end;
        else merged.push_back(s);
        previous_match = s.match;
      }
      break;
    }
    case Behavior::MergedWithNext: {
      bool previous_match = false;
      for (size_t i = spans.size(); i-- > 0;) {
        const Span& s = spans[i];
        if (s.match && !previous_match && !merged.empty()) merged.back().begin = s.begin;
        else merged.push_back(s);
        previous_match = s.match;
      }
      std::reverse(merged.begin(), merged.end());
      break;
    }
    case Behavior::Contiguous: {
      bool previous_match = false;
      for (const Span& s : spans) {
        if (s.match == previous_match && !merged.empty()) merged.back().end = s.end;
        else merged.push_back(s);
        previous_match = s.match;
      }
      break;
    }
  }
  for (const Span& s : merged)
    if (s.end > s.begin) out.emplace_back(text, s.begin, s.end - s.begin);
}

class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(std::unique_ptr<Regex> re, Behavior behavior, bool invert)
      : re_(std::move(re)), behavior_(behavior), invert_(invert) {}
  void apply(std::vector<std::string>& pieces, bool) const override {
    std::vector<std::string> out;
    out.reserve(pieces.size() * 4 + 8);
    std::vector<std::pair<size_t, size_t>> scratch;
    for (const std::string& p : pieces) split_piece(p, *re_, behavior_, invert_, scratch, out);
    pieces.swap(out);
  }

 private:
  std::unique_ptr<Regex> re_;
  Behavior behavior_;
  bool invert_;
};

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, std::unique_ptr<Regex> re)
      : add_prefix_space_(add_prefix_space), re_(std::move(re)) {}
  void apply(std::vector<std::string>& pieces, bool) const override {
    if (add_prefix_space_)
      for (std::string& p : pieces)
        if (!p.empty() && p[0] != ' ') p.insert(0, 1, ' ');
    if (re_) {
      std::vector<std::string> out;
      out.reserve(pieces.size() * 4 + 8);
      std::vector<std::pair<size_t, size_t>> scratch;
      for (const std::string& p : pieces) split_piece(p, *re_, Behavior::Isolated, false, scratch, out);
      pieces.swap(out);
    }
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> re_;  // GPT-2 split regex when use_regex
};

enum class PrependScheme { Always, First, Never };

class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}
  void apply(std::vector<std::string>& pieces, bool at_text_start) const override {
    std::vector<std::string> out;
    out.reserve(pieces.size() * 4 + 8);
    for (size_t i = 0; i < pieces.size(); ++i) {
      std::string p;
      p.reserve(pieces[i].size() + replacement_.size());
      for (char c : pieces[i]) {
        if (c == ' ') p += replacement_;
        else p += c;
      }
      const bool starts = p.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && at_text_start && i == 0)))
        p.insert(0, replacement_);
      if (!split_ || replacement_.empty()) {
        if (!p.empty()) out.push_back(std::move(p));
        continue;
      }
      // Split on the replacement, each occurrence starting a new piece (MergedWithNext).
      size_t start = 0;
      size_t pos = p.find(replacement_, replacement_.size() <= p.size() ? 1 : 0);
      while (pos != std::string::npos && pos > start) {
        out.emplace_back(p, start, pos - start);
        start = pos;
        pos = p.find(replacement_, pos + replacement_.size());
      }
      if (start < p.size()) out.emplace_back(p, start, std::string::npos);
    }
    pieces.swap(out);
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void apply(std::vector<std::string>& pieces, bool at_text_start) const override {
    for (const auto& s : steps_) s->apply(pieces, at_text_start);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

constexpr const char* kGpt2Pattern = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonSite& site, bool* byte_level) {
  if (site.value.is_null()) return nullptr;
  const std::string& type = site.type();
  if (type == "Sequence") {
    const JsonSite list = site.child("pretokenizers");
    list.require_array();
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (size_t i = 0; i < list.value.size(); ++i) {
      if (*byte_level)
        list.at(i).fail(TokenizerErrorKind::Unsupported, "a pre-tokenizer after ByteLevel is not supported");
      if (auto p = make_pre_tokenizer(list.at(i), byte_level)) steps.push_back(std::move(p));
    }
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  if (type == "Split") {
    if (!site.has("pattern")) site.fail(TokenizerErrorKind::Inconsistent, "Split without \"pattern\"");
    const std::string b = site.string_or("behavior", "Isolated");
    Behavior behavior;
    if (b == "Isolated") behavior = Behavior::Isolated;
    else if (b == "Removed") behavior = Behavior::Removed;
    else if (b == "MergedWithPrevious") behavior = Behavior::MergedWithPrevious;
    else if (b == "MergedWithNext") behavior = Behavior::MergedWithNext;
    else if (b == "Contiguous") behavior = Behavior::Contiguous;
    else site.child("behavior").fail(TokenizerErrorKind::Unsupported, "unsupported Split behavior \"" + b + "\"");
    return std::make_unique<SplitPreTokenizer>(compile_json_pattern(site.child("pattern")), behavior,
                                               site.bool_or("invert", false));
  }
  if (type == "ByteLevel") {
    *byte_level = true;
    std::unique_ptr<Regex> re;
    if (site.bool_or("use_regex", true)) {
      std::string error;
      re = Regex::compile(rewrite_white_space_escapes(kGpt2Pattern), false, &error);
      if (!re) site.fail(TokenizerErrorKind::Unsupported, "GPT-2 regex does not compile: " + error);
    }
    return std::make_unique<ByteLevelPreTokenizer>(site.bool_or("add_prefix_space", true), std::move(re));
  }
  if (type == "Metaspace") {
    const std::string replacement = site.string_or("replacement", "\xE2\x96\x81");
    PrependScheme scheme = site.bool_or("add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
    if (site.has("prepend_scheme")) {
      const std::string s = site.child("prepend_scheme").require_string();
      if (s == "always") scheme = PrependScheme::Always;
      else if (s == "first") scheme = PrependScheme::First;
      else if (s == "never") scheme = PrependScheme::Never;
      else site.child("prepend_scheme").fail(TokenizerErrorKind::Unsupported, "unsupported prepend_scheme \"" + s + "\"");
    }
    return std::make_unique<MetaspacePreTokenizer>(replacement, scheme, site.bool_or("split", true));
  }
  site.child("type").fail(TokenizerErrorKind::Unsupported, "unsupported pre-tokenizer type \"" + type + "\"");
}

}  // namespace ninfer::tokenizer
