#include "text/regex_parser.h"

#include <string>
#include <utility>

#include "ninfer/constraint_error.h"

namespace ninfer::text {
namespace {

constexpr uint32_t kEnd = 0xFFFFFFFFu;  // peek() past the end of the pattern

[[noreturn]] void fail(int64_t offset, const std::string& msg) {
  throw ConstraintError(ConstraintErrorKind::InvalidRegex,
                        "invalid regex at character " + std::to_string(offset) + ": " + msg)
      .at_offset(offset);
}

// Strict UTF-8 (no overlongs, surrogates or values past U+10FFFF): offsets are in code points.
std::vector<uint32_t> decode_utf8(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(c);
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07, min = 0x10000;
    else fail(static_cast<int64_t>(out.size()), "invalid UTF-8 in the pattern");
    if (i + len > s.size()) fail(static_cast<int64_t>(out.size()), "truncated UTF-8 sequence in the pattern");
    for (size_t k = 1; k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) fail(static_cast<int64_t>(out.size()), "invalid UTF-8 in the pattern");
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      fail(static_cast<int64_t>(out.size()), "invalid UTF-8 in the pattern");
    out.push_back(cp);
    i += len;
  }
  return out;
}

bool is_digit(uint32_t c) { return c >= '0' && c <= '9'; }
bool is_hex(uint32_t c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
uint32_t hex_value(uint32_t c) { return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }
bool is_ascii_letter(uint32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_syntax_char(uint32_t c) {
  switch (c) {
    case '^': case '$': case '\\': case '.': case '*': case '+': case '?':
    case '(': case ')': case '[': case ']': case '{': case '}': case '|':
      return true;
    default:
      return false;
  }
}
// ECMAScript group names are identifiers; non-ASCII letters are accepted without a Unicode table.
bool is_name_char(uint32_t c, bool first) {
  return is_ascii_letter(c) || c == '_' || c == '$' || c >= 0x80 || (!first && is_digit(c));
}

class Parser {
 public:
  Parser(std::vector<uint32_t> cps, uint32_t max_count) : p_(std::move(cps)), max_count_(max_count) {}

  RegexAst run() {
    frames_.push_back({-1, {Alt{}}});
    while (pos_ < p_.size()) {
      const int64_t at = static_cast<int64_t>(pos_);
      const uint32_t c = p_[pos_];
      switch (c) {
        case '|': frames_.back().alts.emplace_back(); ++pos_; break;
        case '(': open_group(); break;
        case ')': {
          if (frames_.size() == 1) fail(at, "unmatched ')'");
          ++pos_;
          Frame f = std::move(frames_.back());
          frames_.pop_back();
          add_item(group_node(f.alts, f.open));
          break;
        }
        case '*': case '+': case '?': case '{': quantifier(); break;
        case '}': fail(at, "lone '}' (escape it as \\})");
        case ']': fail(at, "lone ']' (escape it as \\])");
        case '^': anchor_start(); break;
        case '$': anchor_end(); break;
        case '[': char_class(); break;
        case '.': ++pos_; add_item(add_chars(dot_set(), at)); break;
        case '\\': {
          Atom a = escape(false);
          add_item(add_chars(a.is_set ? std::move(a.set) : single(a.cp), at));
          break;
        }
        default: ++pos_; add_item(add_chars(single(c), at));
      }
    }
    if (frames_.size() > 1) fail(frames_.back().open, "unclosed '('");
    for (Alt& a : frames_[0].alts)
      ast_.branches.push_back({sequence_node(a.items, 0), a.anchored_start, a.anchored_end});
    return std::move(ast_);
  }

 private:
  struct Alt {
    std::vector<int32_t> items;
    bool anchored_start = false, anchored_end = false;
    bool last_quantified = false;  // a quantifier may not follow another one
  };
  struct Frame {
    int64_t open;  // offset of '(' (-1 for the whole pattern)
    std::vector<Alt> alts;
  };
  // A character or a class escape (\d ...), as read by escape() and class atoms.
  struct Atom {
    bool is_set = false;
    uint32_t cp = 0;
    CharSet set;
  };

  std::vector<uint32_t> p_;
  size_t pos_ = 0;
  uint32_t max_count_;
  RegexAst ast_;
  std::vector<Frame> frames_;

  uint32_t peek(size_t k = 0) const { return pos_ + k < p_.size() ? p_[pos_ + k] : kEnd; }
  Alt& alt() { return frames_.back().alts.back(); }

  static CharSet single(uint32_t cp) { return normalize_set({{cp, cp}}, false); }  // a lone surrogate: empty

  int32_t add_node(RegexNode n) {
    ast_.nodes.push_back(std::move(n));
    return static_cast<int32_t>(ast_.nodes.size() - 1);
  }
  int32_t add_chars(CharSet s, int64_t at) {
    RegexNode n;
    n.kind = RegexNodeKind::Chars;
    n.chars = std::move(s);
    n.offset = at;
    return add_node(std::move(n));
  }
  void add_item(int32_t node) {
    alt().items.push_back(node);
    alt().last_quantified = false;
  }
  int32_t sequence_node(const std::vector<int32_t>& items, int64_t at) {
    if (items.size() == 1) return items[0];
    RegexNode n;
    n.kind = items.empty() ? RegexNodeKind::Empty : RegexNodeKind::Concat;
    n.children = items;
    n.offset = at;
    return add_node(std::move(n));
  }
  int32_t group_node(const std::vector<Alt>& alts, int64_t at) {
    std::vector<int32_t> options;
    for (const Alt& a : alts) options.push_back(sequence_node(a.items, at));
    if (options.size() == 1) return options[0];
    RegexNode n;
    n.kind = RegexNodeKind::Alt;
    n.children = std::move(options);
    n.offset = at;
    return add_node(std::move(n));
  }

  void open_group() {
    const int64_t at = static_cast<int64_t>(pos_);
    ++pos_;
    if (peek() == '?') {
      const uint32_t c1 = peek(1);
      if (c1 == ':') {
        pos_ += 2;
      } else if (c1 == '=' || c1 == '!') {
        fail(at, "lookahead assertions are not supported");
      } else if (c1 == '<' && (peek(2) == '=' || peek(2) == '!')) {
        fail(at, "lookbehind assertions are not supported");
      } else if (c1 == '<') {
        pos_ += 2;
        const size_t name_start = pos_;
        while (pos_ < p_.size() && p_[pos_] != '>') {
          if (!is_name_char(p_[pos_], pos_ == name_start)) fail(static_cast<int64_t>(pos_), "invalid group name");
          ++pos_;
        }
        if (pos_ >= p_.size()) fail(at, "unterminated group name");
        if (pos_ == name_start) fail(at, "empty group name");
        ++pos_;
      } else {
        fail(at, "inline flags and other '(?' groups are not supported");
      }
    }
    frames_.push_back({at, {Alt{}}});
  }

  // Reads digits as a count; saturates far above any budget so overflow cannot wrap.
  bool read_count(uint32_t& out) {
    if (!is_digit(peek())) return false;
    uint64_t v = 0;
    while (is_digit(peek())) {
      v = std::min<uint64_t>(v * 10 + (peek() - '0'), 0xFFFFFFF0ull);
      ++pos_;
    }
    out = static_cast<uint32_t>(v);
    return true;
  }

  void quantifier() {
    const int64_t at = static_cast<int64_t>(pos_);
    uint32_t mn = 0, mx = grammar::kUnbounded;
    const uint32_t c = p_[pos_++];
    if (c == '+') {
      mn = 1;
    } else if (c == '?') {
      mx = 1;
    } else if (c == '{') {
      // u-mode: a '{' that does not form a quantifier is a syntax error, not a literal.
      if (!read_count(mn)) fail(at, "incomplete quantifier (escape a literal '{' as \\{)");
      if (peek() == ',') {
        ++pos_;
        if (!read_count(mx)) mx = grammar::kUnbounded;
      } else {
        mx = mn;
      }
      if (peek() != '}') fail(at, "incomplete quantifier (escape a literal '{' as \\{)");
      ++pos_;
    }
    Alt& a = alt();
    if (a.items.empty() || a.last_quantified) fail(at, "nothing to repeat");
    if (mn > max_count_ || (mx != grammar::kUnbounded && mx > max_count_))
      fail(at, "repetition count above the limit of " + std::to_string(max_count_));
    if (mx < mn) fail(at, "numbers out of order in {} quantifier");
    if (peek() == '?') ++pos_;  // lazy: same language
    RegexNode n;
    n.kind = RegexNodeKind::Repeat;
    n.children = {a.items.back()};
    n.min = mn;
    n.max = mx;
    n.offset = at;
    const int32_t id = add_node(std::move(n));
    a.items.back() = id;
    a.last_quantified = true;
  }

  void anchor_start() {
    const int64_t at = static_cast<int64_t>(pos_);
    if (frames_.size() != 1 || !alt().items.empty())
      fail(at, "'^' is only supported at the start of the pattern or of a top-level alternative");
    alt().anchored_start = true;
    ++pos_;
  }

  void anchor_end() {
    const int64_t at = static_cast<int64_t>(pos_);
    const uint32_t next = peek(1);
    if (frames_.size() != 1 || !(next == kEnd || next == '|' || next == '$'))
      fail(at, "'$' is only supported at the end of the pattern or of a top-level alternative");
    alt().anchored_end = true;
    ++pos_;
  }

  void char_class() {
    const int64_t at = static_cast<int64_t>(pos_);
    ++pos_;
    bool negate = false;
    if (peek() == '^') negate = true, ++pos_;
    CharSet acc;
    for (;;) {
      if (pos_ >= p_.size()) fail(at, "unterminated character class");
      if (p_[pos_] == ']') {
        ++pos_;
        break;
      }
      const int64_t a_at = static_cast<int64_t>(pos_);
      Atom a = class_atom();
      if (peek() == '-' && peek(1) != kEnd && peek(1) != ']') {
        ++pos_;
        Atom b = class_atom();
        if (a.is_set || b.is_set) fail(a_at, "a class escape cannot bound a range");
        if (a.cp > b.cp) fail(a_at, "range out of order in character class");
        acc.push_back({a.cp, b.cp});
      } else if (a.is_set) {
        acc.insert(acc.end(), a.set.begin(), a.set.end());
      } else {
        acc.push_back({a.cp, a.cp});
      }
    }
    add_item(add_chars(normalize_set(std::move(acc), negate), at));
  }

  Atom class_atom() {
    if (p_[pos_] == '\\') return escape(true);
    return Atom{false, p_[pos_++], {}};
  }

  static Atom set_atom(const CharSet& s, bool negate) {
    return Atom{true, 0, negate ? normalize_set(s, true) : s};
  }

  Atom escape(bool in_class) {
    const int64_t at = static_cast<int64_t>(pos_);
    ++pos_;
    if (pos_ >= p_.size()) fail(at, "'\\' at the end of the pattern");
    const uint32_t c = p_[pos_++];
    switch (c) {
      case 'd': return set_atom(digit_set(), false);
      case 'D': return set_atom(digit_set(), true);
      case 'w': return set_atom(word_set(), false);
      case 'W': return set_atom(word_set(), true);
      case 's': return set_atom(space_set(), false);
      case 'S': return set_atom(space_set(), true);
      case 'n': return {false, 0x0A, {}};
      case 'r': return {false, 0x0D, {}};
      case 't': return {false, 0x09, {}};
      case 'f': return {false, 0x0C, {}};
      case 'v': return {false, 0x0B, {}};
      case '0':
        if (is_digit(peek())) fail(at, "octal escapes are not supported");
        return {false, 0, {}};
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
      case 'k':
        fail(at, "back-references are not supported");
      case 'b':
        if (in_class) return {false, 0x08, {}};
        fail(at, "word boundary assertions are not supported");
      case 'B': fail(at, in_class ? "'\\B' is not valid in a character class" : "word boundary assertions are not supported");
      case 'p': case 'P': fail(at, "Unicode property escapes are not supported");
      case 'x': {
        if (!is_hex(peek()) || !is_hex(peek(1))) fail(at, "'\\x' needs two hex digits");
        const uint32_t v = hex_value(peek()) * 16 + hex_value(peek(1));
        pos_ += 2;
        return {false, v, {}};
      }
      case 'u': return {false, unicode_escape(at), {}};
      case 'c':
        if (!is_ascii_letter(peek())) fail(at, "'\\c' needs an ASCII letter");
        return {false, p_[pos_++] % 32, {}};
      default:
        if (is_syntax_char(c) || c == '/' || c == '-') return {false, c, {}};
        fail(at, "unknown escape (escape only syntax characters)");
    }
  }

  // After "\u": {hex...} or four hex digits; a \uD8xx\uDCxx pair denotes one astral character.
  uint32_t unicode_escape(int64_t at) {
    if (peek() == '{') {
      ++pos_;
      uint32_t v = 0;
      size_t digits = 0;
      while (is_hex(peek())) {
        v = v * 16 + hex_value(peek());
        if (v > 0x10FFFF) fail(at, "'\\u{...}' beyond U+10FFFF");
        ++pos_, ++digits;
      }
      if (digits == 0 || peek() != '}') fail(at, "malformed '\\u{...}'");
      ++pos_;
      return v;
    }
    auto four = [&](size_t k, uint32_t& v) {
      v = 0;
      for (size_t i = 0; i < 4; ++i) {
        if (!is_hex(peek(k + i))) return false;
        v = v * 16 + hex_value(peek(k + i));
      }
      return true;
    };
    uint32_t v = 0, lo = 0;
    if (!four(0, v)) fail(at, "'\\u' needs four hex digits");
    pos_ += 4;
    if (v >= 0xD800 && v <= 0xDBFF && peek() == '\\' && peek(1) == 'u' && four(2, lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
      pos_ += 6;
      v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
    }
    return v;
  }
};

}  // namespace

RegexAst parse_regex(std::string_view pattern, uint32_t max_count) {
  return Parser(decode_utf8(pattern), max_count).run();
}

}  // namespace ninfer::text
