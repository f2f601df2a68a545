#include "tokenizer/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "tokenizer/tokenizer_json.h"
#include "tokenizer/utf8.h"

namespace ninfer::tokenizer {
namespace {

constexpr std::string_view kWhiteSpaceItems =
    "\\t\\n\\x0B\\f\\r\\x20\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";

// Per-thread JIT stack and match data (a JIT stack may not be shared between threads).
struct ThreadMatchState {
  pcre2_jit_stack* jit_stack = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_match_data* data = nullptr;

  ThreadMatchState() {
    context = pcre2_match_context_create(nullptr);
    jit_stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
    if (context && jit_stack) pcre2_jit_stack_assign(context, nullptr, jit_stack);
    data = pcre2_match_data_create(4, nullptr);
  }
  ~ThreadMatchState() {
    if (data) pcre2_match_data_free(data);
    if (context) pcre2_match_context_free(context);
    if (jit_stack) pcre2_jit_stack_free(jit_stack);
  }
  ThreadMatchState(const ThreadMatchState&) = delete;
  ThreadMatchState& operator=(const ThreadMatchState&) = delete;
};

ThreadMatchState& thread_state() {
  thread_local ThreadMatchState state;
  return state;
}

}  // namespace

std::unique_ptr<Regex> Regex::compile(std::string_view pattern, bool literal, std::string* error) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  // PCRE2_LITERAL does not combine with PCRE2_UCP (which only matters for escapes anyway).
  const uint32_t options = literal ? (PCRE2_UTF | PCRE2_LITERAL) : (PCRE2_UTF | PCRE2_UCP);
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options,
                                 &code, &offset, nullptr);
  if (!re) {
    if (error) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(code, buf, sizeof(buf));
      *error = std::string(reinterpret_cast<const char*>(buf)) + " at pattern offset " + std::to_string(offset);
    }
    return nullptr;
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // best effort: the interpreter is used otherwise
  return std::unique_ptr<Regex>(new Regex(re));
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

void Regex::find_all(std::string_view subject, std::vector<std::pair<size_t, size_t>>& out) const {
  auto* re = static_cast<pcre2_code*>(code_);
  ThreadMatchState& st = thread_state();
  pcre2_match_data* md = st.data;
  if (!md) return;
  const auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
  size_t start = 0;
  while (start <= subject.size()) {
    int rc = pcre2_match(re, s, subject.size(), start, PCRE2_NO_UTF_CHECK, md, st.context);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT || rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT) {
      // Retry once with the interpreter (no JIT stack limit).
      rc = pcre2_match(re, s, subject.size(), start, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md, nullptr);
    }
    if (rc < 0) return;  // no more matches (or an unrecoverable resource error: the rest stays a gap)
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t b = ov[0], e = ov[1];
    if (e > b) {
      out.emplace_back(b, e);
      start = e;
    } else {
      // Empty match: step over one character.
      if (b >= subject.size()) return;
      const size_t n = utf8::sequence_length(subject, b);
      start = b + (n ? n : 1);
    }
  }
}

std::string rewrite_white_space_escapes(std::string_view p) {
  std::string out;
  out.reserve(p.size() + 64);
  bool in_class = false;
  bool class_start = false;  // just after '[' or '[^': a ']' here is a literal
  size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char d = p[i + 1];
      if (d == 'Q') return std::string(p);
      class_start = false;
      if (d == 's') {
        if (in_class) {
          out += kWhiteSpaceItems;
        } else {
          out += '[';
          out += kWhiteSpaceItems;
          out += ']';
        }
        i += 2;
        continue;
      }
      if (d == 'S' && !in_class) {
        out += "[^";
        out += kWhiteSpaceItems;
        out += ']';
        i += 2;
        continue;
      }
      out += c;
      out += d;
      i += 2;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
        const size_t end = p.find(":]", i + 2);
        if (end != std::string_view::npos) {
          out.append(p.substr(i, end + 2 - i));
          i = end + 2;
          class_start = false;
          continue;
        }
      }
      if (c == ']' && !class_start) in_class = false;
      class_start = false;
      out += c;
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
      class_start = true;
      out += c;
      ++i;
      if (i < p.size() && p[i] == '^') {
        out += '^';
        ++i;
      }
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// Compiles a tokenizer.json pattern object: {"String": s} (literal) or {"Regex": r}.
std::unique_ptr<Regex> compile_json_pattern(const JsonSite& site) {
  site.require_object();
  std::string error;
  std::unique_ptr<Regex> re;
  if (site.has("String")) {
    re = Regex::compile(site.child("String").require_string(), true, &error);
  } else if (site.has("Regex")) {
    re = Regex::compile(rewrite_white_space_escapes(site.child("Regex").require_string()), false, &error);
  } else {
    site.fail(TokenizerErrorKind::Unsupported, "pattern must be {\"String\": ...} or {\"Regex\": ...}");
  }
  if (!re) site.fail(TokenizerErrorKind::Unsupported, "regex does not compile: " + error);
  return re;
}

}  // namespace ninfer::tokenizer
