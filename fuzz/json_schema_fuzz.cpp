// libFuzzer target: schema text -> compile_constraint (compact and flexible whitespace) against a
// small vocabulary -> a few matcher walks. ConstraintError is the only acceptable failure, and it
// must be well formed (kind, message, a pointer into the schema, a keyword for UnsupportedSchema).
// Anything else (a GrammarError escaping the constraint compiler, another exception, a sanitizer
// report, a failed invariant) is a bug and crashes the run.
//
// Build: see fuzz/README.md (json_schema_fuzz).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "grammar/token_domain.h"
#include "ninfer/constraint_error.h"
#include "ninfer/output_constraint.h"
#include "text/constraint_compiler.h"

namespace {

using namespace ninfer;
using grammar::TokenClass;
using grammar::TokenDomain;

// ids: 0 EOS, then printable ASCII and JSON whitespace as single bytes, then multi-byte tokens
// that cross JSON token boundaries, UTF-8 characters and pieces of them, and invalid UTF-8.
std::shared_ptr<const TokenDomain> fuzz_domain() {
  std::vector<std::string> bytes{"</s>"};
  std::vector<TokenClass> classes{TokenClass::Control};
  for (int c = 0x20; c < 0x7F; ++c) bytes.emplace_back(1, static_cast<char>(c));
  for (const char* t : {"\n", "\t", "\r"}) bytes.emplace_back(t);
  for (const char* t : {"{\"",          "\":",
                        "\",\"",        "\"}",
                        "},{",          "true",
                        "false",        "null",
                        "12",           "0.",
                        "-1",           "e+",
                        "\\u00",        "\\n",
                        "\\\"",         "  ",
                        ", ",           ": ",
                        "[]",           "{}",
                        "2024-",        "\xC3\xA9",
                        "\xC3",         "\xA9",
                        "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                        "\xFF",         "\xED\xA0\x80"})
    bytes.emplace_back(t);
  bytes.emplace_back(1, '\0');
  classes.resize(bytes.size(), TokenClass::Normal);
  return std::make_shared<TokenDomain>(std::move(bytes), std::move(classes), std::vector<int32_t>{0});
}

[[noreturn]] void bug(const std::string& what, std::string_view src) {
  std::fprintf(stderr, "json_schema_fuzz invariant violated: %s\n--- schema (%zu bytes) ---\n%.*s\n---\n", what.c_str(),
               src.size(), static_cast<int>(std::min<size_t>(src.size(), 2000)), src.data());
  std::abort();
}

bool bit(const std::vector<uint32_t>& m, int32_t id) { return (m[id >> 5] >> (id & 31)) & 1u; }

// RFC 8259 syntax with well-formed UTF-8 in strings, written independently of the compiler (a
// parser that converts numbers would refuse exponents beyond binary64, which JSON allows).
class JsonSyntax {
 public:
  explicit JsonSyntax(std::string_view t) : t_(t) {}
  size_t longest_whitespace_run() const { return longest_ws_; }
  bool text() {
    ws();
    if (!value(0)) return false;
    ws();
    return i_ == t_.size();
  }

 private:
  std::string_view t_;
  size_t i_ = 0;
  size_t longest_ws_ = 0;
  int peek() const { return i_ < t_.size() ? static_cast<unsigned char>(t_[i_]) : -1; }
  bool eat(char c) {
    if (peek() != static_cast<unsigned char>(c)) return false;
    ++i_;
    return true;
  }
  void ws() {
    const size_t s = i_;
    while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') ++i_;
    longest_ws_ = std::max(longest_ws_, i_ - s);
  }
  bool digits() {
    const size_t s = i_;
    while (peek() >= '0' && peek() <= '9') ++i_;
    return i_ > s;
  }
  bool literal(std::string_view w) {
    if (t_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  bool number() {
    eat('-');
    if (eat('0')) {
    } else if (peek() >= '1' && peek() <= '9') {
      digits();
    } else {
      return false;
    }
    if (eat('.') && !digits()) return false;
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (!eat('+')) eat('-');
      if (!digits()) return false;
    }
    return true;
  }
  bool string() {
    if (!eat('"')) return false;
    while (true) {
      const int c = peek();
      if (c < 0 || c < 0x20) return false;
      ++i_;
      if (c == '"') return true;
      if (c == '\\') {
        const int e = peek();
        ++i_;
        if (e == 'u') {
          for (int k = 0; k < 4; ++k) {
            if (!std::isxdigit(peek())) return false;
            ++i_;
          }
        } else if (e <= 0 || !std::strchr("\"\\/bfnrt", e)) {
          return false;
        }
      } else if (c >= 0x80) {
        // Well-formed UTF-8: lead byte, continuation count, no overlongs, surrogates or > U+10FFFF.
        int n = 0;
        uint32_t cp = 0;
        if (c >= 0xC2 && c <= 0xDF)
          n = 1, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
          n = 2, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
          n = 3, cp = c & 0x07;
        else
          return false;
        for (int k = 0; k < n; ++k) {
          const int b = peek();
          if (b < 0x80 || b > 0xBF) return false;
          cp = (cp << 6) | (b & 0x3F);
          ++i_;
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
          return false;
      }
    }
  }
  bool value(int depth) {
    if (depth > 200) return false;
    const int c = peek();
    if (c == '{') {
      ++i_;
      ws();
      if (eat('}')) return true;
      do {
        ws();
        if (!string()) return false;
        ws();
        if (!eat(':')) return false;
        ws();
        if (!value(depth + 1)) return false;
        ws();
      } while (eat(','));
      return eat('}');
    }
    if (c == '[') {
      ++i_;
      ws();
      if (eat(']')) return true;
      do {
        ws();
        if (!value(depth + 1)) return false;
        ws();
      } while (eat(','));
      return eat(']');
    }
    if (c == '"') return string();
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    return number();
  }
};

// A ConstraintError from a JSON Schema must be one of the schema kinds, carry a message, point
// into the schema (when the text is JSON), name the keyword when unsupported and the limit when
// one is exceeded.
void check_error(const ConstraintError& e, std::string_view src, const nlohmann::ordered_json* doc) {
  const auto k = e.kind();
  if (k != ConstraintErrorKind::InvalidJsonSchema && k != ConstraintErrorKind::UnsupportedSchema &&
      k != ConstraintErrorKind::Unsatisfiable && k != ConstraintErrorKind::LimitExceeded)
    bug(std::string("unexpected error kind ") + constraint_error_kind_name(k) + ": " + e.what(), src);
  if (k == ConstraintErrorKind::LimitExceeded && e.limit().empty())
    bug(std::string("limit error without the limit's name: ") + e.what(), src);
  if (e.what()[0] == '\0') bug("error without a message", src);
  if (k == ConstraintErrorKind::UnsupportedSchema && e.keyword().empty())
    bug(std::string("unsupported without a keyword: ") + e.what(), src);
  const std::string& p = e.pointer();
  if (!p.empty() && p[0] != '/') bug("pointer that is not a JSON Pointer: '" + p + "'", src);
  if (doc && !p.empty()) {
    bool resolves = false;
    try {
      resolves = doc->contains(nlohmann::ordered_json::json_pointer(p));
    } catch (const std::exception&) {
      resolves = false;
    }
    if (!resolves) bug("pointer '" + p + "' does not resolve in the schema (" + e.what() + ")", src);
  }
}

// Drives a matcher with choices taken from the input bytes. Whenever the language may end, the
// text so far must be JSON.
void walk(const std::shared_ptr<const grammar::CompiledGrammar>& g, const TokenDomain& domain, const uint8_t* data,
          size_t size, uint32_t seed, size_t max_ws, std::string_view src) {
  grammar::Matcher m(g);
  const int32_t n = domain.size();
  std::vector<uint32_t> mask(m.mask_words());
  uint32_t cursor = seed;
  auto next = [&](size_t k) -> size_t {
    cursor = cursor * 1103515245u + 12345u;
    const uint32_t b = size ? data[(cursor >> 8) % size] : 0;
    return static_cast<size_t>((cursor >> 16) ^ b) % k;
  };
  std::string text;
  for (int step = 0; step < 48 && !m.terminated(); ++step) {
    m.fill_mask(mask.data());
    std::vector<int32_t> allowed;
    for (int32_t id = 0; id < n; ++id)
      if (bit(mask, id)) allowed.push_back(id);
    if (bit(mask, 0) != m.can_end()) bug("EOS bit disagrees with can_end", src);
    for (int k = 0; k < 4; ++k) {
      const int32_t id = static_cast<int32_t>(next(static_cast<size_t>(n)));
      if (m.is_allowed(id) != bit(mask, id)) bug("is_allowed disagrees with fill_mask", src);
    }
    if (m.can_end()) {
      JsonSyntax syntax(text);
      if (!syntax.text()) bug("the language may end after a text that is not JSON: " + text, src);
      if (syntax.longest_whitespace_run() > max_ws) bug("whitespace run longer than the format allows: " + text, src);
    }
    // Sometimes a raw byte of the input (accepted or not, the state stays consistent).
    if (size && next(5) == 0) {
      const char c = static_cast<char>(data[next(size)]);
      if (m.accept_bytes(std::string_view(&c, 1))) text.push_back(c);
      continue;
    }
    if (allowed.empty()) break;  // the small vocabulary may not spell what the language needs next
    const int32_t pick = allowed[next(allowed.size())];
    if (pick == 0) {
      if (next(2)) continue;
      if (!m.accept_token(0) || !m.terminated()) bug("EOS allowed but not accepted", src);
      break;
    }
    if (!m.accept_token(pick)) bug("an allowed token was rejected", src);
    text += domain.bytes(pick);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<const TokenDomain> domain = fuzz_domain();
  if (size > 16384) return 0;
  const std::string src(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<nlohmann::ordered_json> doc;
  try {
    doc = std::make_unique<nlohmann::ordered_json>(nlohmann::ordered_json::parse(src));
  } catch (const std::exception&) {
  }
  // Smaller automaton limits than the defaults keep each input fast; exceeding them is a typed error.
  grammar::CompileOptions opt;
  opt.limits.max_nfa_states = 1u << 16;
  opt.limits.max_dfa_states = 1u << 13;
  const JsonFormatOptions formats[] = {{JsonWhitespace::Compact, 8, JsonPropertyOrder::Declared},
                                       {JsonWhitespace::Flexible, 2, JsonPropertyOrder::Declared},
                                       {JsonWhitespace::Compact, 8, JsonPropertyOrder::Flexible}};
  for (size_t f = 0; f < 3; ++f) {
    std::shared_ptr<const grammar::CompiledGrammar> g;
    try {
      g = text::compile_constraint(OutputConstraint::json_schema(src, formats[f]), domain, nullptr, opt).grammar;
    } catch (const ConstraintError& e) {
      check_error(e, src, doc.get());
      continue;
    } catch (const std::exception& e) {
      bug(std::string("exception other than ConstraintError: ") + e.what(), src);
    }
    if (!g) bug("compile_constraint returned no grammar", src);
    if (!doc) bug("a text that is not JSON compiled as a schema", src);
    const size_t max_ws = formats[f].whitespace == JsonWhitespace::Compact ? 0 : formats[f].max_whitespace_run;
    for (uint32_t w = 0; w < 3; ++w) walk(g, *domain, data, size, w * 7919u + static_cast<uint32_t>(f), max_ws, src);
  }
  return 0;
}
