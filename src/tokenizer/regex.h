// PCRE2 (UTF + UCP, JIT when available) wrapper used by the Split pre-tokenizer and the Replace
// normalizer. Patterns are those of Hugging Face tokenizer.json files (written for Oniguruma).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ninfer::tokenizer {

struct JsonSite;

class Regex {
 public:
  // Compiles `pattern` (a literal string when `literal`). On failure returns nullptr and sets
  // `error` to PCRE2's message and the pattern offset.
  static std::unique_ptr<Regex> compile(std::string_view pattern, bool literal, std::string* error);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Appends [start, end) of every non-empty, non-overlapping match of `subject`, left to right.
  // Precondition: `subject` is valid UTF-8. Thread-safe.
  void find_all(std::string_view subject, std::vector<std::pair<size_t, size_t>>& out) const;

 private:
  explicit Regex(void* code) : code_(code) {}
  void* code_;  // pcre2_code_8*
};

// Oniguruma (used by the Rust tokenizers) gives \s the Unicode White_Space set; PCRE2 with UCP adds
// U+180E. Rewrites \s (anywhere) and \S (outside character classes) to explicit White_Space classes
// so that both engines agree. Patterns using \Q...\E are returned unchanged.
std::string rewrite_white_space_escapes(std::string_view pattern);

// Compiles a tokenizer.json pattern object, {"String": literal} or {"Regex": pattern} (with
// rewrite_white_space_escapes applied). Throws TokenizerError Unsupported if it does not compile.
std::unique_ptr<Regex> compile_json_pattern(const JsonSite& site);

}  // namespace ninfer::tokenizer
