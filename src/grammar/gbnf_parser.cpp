// Recursive descent over the GBNF text. Rule boundaries are found by looking ahead for
// `name ::=`, so rule bodies may span lines freely (a superset of llama.cpp's layout rules).
#include "grammar/gbnf_parser.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

namespace ninfer::grammar {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class Parser {
 public:
  Parser(std::string_view src, const GbnfOptions& opt) : src_(src), opt_(opt) {}

  Grammar parse() {
    if (src_.size() > opt_.max_source_bytes)
      throw GrammarError(GrammarErrorKind::TooLarge,
                         "grammar source of " + std::to_string(src_.size()) + " bytes exceeds the limit gbnf.max_source_bytes = " +
                             std::to_string(opt_.max_source_bytes),
                         location_at(0))
          .with_limit("gbnf.max_source_bytes", opt_.max_source_bytes);
    skip_space();
    if (at_end()) fail(GrammarErrorKind::EmptyGrammar, "grammar has no rules");
    while (!at_end()) {
      parse_rule();
      skip_space();
    }
    resolve_references();
    g_.root = g_.rule_index(std::string(opt_.root_rule));
    if (g_.root < 0)
      throw GrammarError(GrammarErrorKind::MissingRoot, "no rule named '" + std::string(opt_.root_rule) + "'",
                         location_at(0));
    return std::move(g_);
  }

 private:
  std::string_view src_;
  const GbnfOptions& opt_;
  size_t pos_ = 0;
  int depth_ = 0;
  mutable std::vector<size_t> line_starts_;
  Grammar g_;
  std::unordered_map<std::string, int32_t> rule_ids_;
  // RuleRef expressions waiting for their name to be resolved: (expr index, name).
  std::vector<std::pair<int32_t, std::string>> pending_refs_;

  bool at_end() const { return pos_ >= src_.size(); }
  char peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }

  SourceLocation location_at(size_t offset) const {
    if (line_starts_.empty()) {
      line_starts_.push_back(0);
      for (size_t i = 0; i < src_.size(); ++i)
        if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    size_t line = static_cast<size_t>(it - line_starts_.begin());
    return SourceLocation{static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1), offset};
  }

  [[noreturn]] void fail(GrammarErrorKind kind, const std::string& msg) { fail_at(kind, msg, pos_); }
  [[noreturn]] void fail_limit(const std::string& msg, const char* limit, uint64_t value) {
    throw error_at(GrammarErrorKind::TooDeep, msg, pos_).with_limit(limit, value);
  }
  // Every expression goes through here: the IR stays within gbnf.max_expressions.
  int32_t add(Expr e) {
    if (g_.exprs.size() >= opt_.max_expressions)
      throw error_at(GrammarErrorKind::TooLarge, "grammar has more than " + std::to_string(opt_.max_expressions) + " expressions",
                     pos_)
          .with_limit("gbnf.max_expressions", opt_.max_expressions);
    return g_.add(std::move(e));
  }
  [[noreturn]] void fail_at(GrammarErrorKind kind, const std::string& msg, size_t offset) { throw error_at(kind, msg, offset); }
  GrammarError error_at(GrammarErrorKind kind, const std::string& msg, size_t offset) const {
    auto loc = location_at(offset);
    return GrammarError(kind, msg + " at " + std::to_string(loc.line) + ":" + std::to_string(loc.column), loc);
  }

  void skip_space() {
    while (!at_end()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (!at_end() && peek() != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  std::string parse_name() {
    size_t start = pos_;
    while (!at_end() && is_name_char(peek())) ++pos_;
    if (pos_ == start) fail(GrammarErrorKind::Syntax, "expected a rule name");
    return std::string(src_.substr(start, pos_ - start));
  }

  // True when the text at the cursor is `name ::=` (start of the next rule).
  bool at_rule_start() const {
    size_t p = pos_;
    size_t start = p;
    while (p < src_.size() && is_name_char(src_[p])) ++p;
    if (p == start) return false;
    while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\n' || src_[p] == '\r')) ++p;
    return src_.substr(p, 3) == "::=";
  }

  void parse_rule() {
    size_t start = pos_;
    std::string name = parse_name();
    skip_space();
    if (src_.substr(pos_, 3) != "::=") fail(GrammarErrorKind::Syntax, "expected '::=' after rule name '" + name + "'");
    pos_ += 3;
    skip_space();
    int32_t id = declare_rule(name, start);
    Rule& r = g_.rules[id];
    if (r.body >= 0) fail_at(GrammarErrorKind::DuplicateRule, "rule '" + name + "' is defined twice", start);
    int32_t body = parse_alternatives();
    int32_t lookahead = -1;
    skip_space();
    if (peek() == '(' && peek(1) == '=') {
      size_t la_start = pos_;
      pos_ += 2;
      skip_space();
      ++depth_;
      lookahead = parse_alternatives();
      --depth_;
      skip_space();
      if (peek() != ')') fail_at(GrammarErrorKind::Syntax, "unclosed lookahead '(='", la_start);
      ++pos_;
    }
    skip_space();
    if (!at_end() && !at_rule_start()) fail(GrammarErrorKind::Syntax, std::string("unexpected '") + peek() + "'");
    g_.rules[id].body = body;
    g_.rules[id].lookahead = lookahead;
    g_.rules[id].location = location_at(start);
  }

  int32_t declare_rule(const std::string& name, size_t offset) {
    auto it = rule_ids_.find(name);
    if (it != rule_ids_.end()) return it->second;
    Rule r;
    r.name = name;
    r.location = location_at(offset);
    g_.rules.push_back(std::move(r));
    int32_t id = static_cast<int32_t>(g_.rules.size() - 1);
    g_.label(id, name);  // explanations name the open rules
    rule_ids_.emplace(name, id);
    return id;
  }

  void enter() {
    if (++depth_ > opt_.max_nesting)
      fail_limit("nesting deeper than " + std::to_string(opt_.max_nesting) + " levels", "gbnf.max_nesting", opt_.max_nesting);
  }

  int32_t parse_alternatives() {
    enter();
    size_t start = pos_;
    std::vector<int32_t> alts{parse_sequence()};
    while (peek() == '|') {
      ++pos_;
      skip_space();
      alts.push_back(parse_sequence());
    }
    --depth_;
    if (alts.size() == 1) return alts[0];
    Expr e;
    e.kind = ExprKind::Choice;
    e.children = std::move(alts);
    e.location = location_at(start);
    return add(std::move(e));
  }

  bool at_sequence_end() const {
    if (at_end()) return true;
    char c = peek();
    if (c == '|' || c == ')') return true;
    if (c == '(' && peek(1) == '=') return true;
    return at_rule_start();
  }

  int32_t parse_sequence() {
    size_t start = pos_;
    std::vector<int32_t> items;
    while (!at_sequence_end()) {
      items.push_back(parse_postfix());
      skip_space();
    }
    if (items.size() == 1) return items[0];
    Expr e;
    e.kind = items.empty() ? ExprKind::Empty : ExprKind::Sequence;
    e.children = std::move(items);
    e.location = location_at(start);
    return add(std::move(e));
  }

  uint32_t parse_count() {
    size_t start = pos_;
    while (peek() >= '0' && peek() <= '9') ++pos_;
    if (pos_ == start) fail(GrammarErrorKind::BadRepetition, "expected a number in repetition");
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(src_.data() + start, src_.data() + pos_, v);
    (void)p;
    if (ec != std::errc() || v > opt_.max_repetition)
      fail_at(GrammarErrorKind::BadRepetition,
              "repetition count above the limit of " + std::to_string(opt_.max_repetition), start);
    return static_cast<uint32_t>(v);
  }

  int32_t parse_postfix() {
    size_t start = pos_;
    int32_t item = parse_primary();
    // Each operator of a chain (a*+?{2}) nests one Repeat in another: count them as nesting.
    int chained = 0;
    for (;; ++chained) {
      char c = peek();
      if (c != '*' && c != '+' && c != '?' && c != '{') break;
      if (chained > 0 && depth_ + chained > opt_.max_nesting)
        fail_limit("nesting deeper than " + std::to_string(opt_.max_nesting) + " levels", "gbnf.max_nesting", opt_.max_nesting);
      uint32_t lo, hi;
      if (c == '*') {
        lo = 0, hi = kUnbounded, ++pos_;
      } else if (c == '+') {
        lo = 1, hi = kUnbounded, ++pos_;
      } else if (c == '?') {
        lo = 0, hi = 1, ++pos_;
      } else if (c == '{') {
        size_t brace = pos_;
        ++pos_;
        skip_space();
        lo = peek() == ',' ? 0 : parse_count();
        skip_space();
        if (peek() == ',') {
          ++pos_;
          skip_space();
          hi = peek() == '}' ? kUnbounded : parse_count();
          skip_space();
        } else {
          hi = lo;
        }
        if (peek() != '}') fail(GrammarErrorKind::BadRepetition, "expected '}' to close repetition");
        ++pos_;
        if (lo > hi) fail_at(GrammarErrorKind::BadRepetition, "repetition minimum exceeds maximum", brace);
      } else {
        break;
      }
      Expr e;
      e.kind = ExprKind::Repeat;
      e.children = {item};
      e.min = lo;
      e.max = hi;
      e.location = location_at(start);
      item = add(std::move(e));
    }
    return item;
  }

  // Decodes one UTF-8 scalar from the source at the cursor.
  uint32_t read_source_codepoint() {
    unsigned char c = static_cast<unsigned char>(peek());
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0) fail(GrammarErrorKind::Syntax, "invalid UTF-8 in grammar source");
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int i = 1; i < len; ++i) {
      unsigned char d = static_cast<unsigned char>(peek(i));
      if ((d & 0xC0) != 0x80) fail(GrammarErrorKind::Syntax, "invalid UTF-8 in grammar source");
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > kMaxCodepoint || (cp >= 0xD800 && cp <= 0xDFFF))
      fail(GrammarErrorKind::Syntax, "invalid UTF-8 in grammar source");
    pos_ += len;
    return cp;
  }

  uint32_t parse_hex(int digits, size_t esc_start) {
    uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      char c = peek();
      int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
      if (d < 0) fail_at(GrammarErrorKind::BadEscape, "expected " + std::to_string(digits) + " hex digits in escape", esc_start);
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    if (v > kMaxCodepoint || (v >= 0xD800 && v <= 0xDFFF))
      fail_at(GrammarErrorKind::BadRange, "escape names no Unicode scalar value", esc_start);
    return v;
  }

  // One character of a literal or class, escapes decoded. `in_class` allows \] \- \^.
  uint32_t parse_char(bool in_class) {
    if (at_end()) fail(GrammarErrorKind::Syntax, in_class ? "unterminated character class" : "unterminated string literal");
    if (peek() != '\\') return read_source_codepoint();
    size_t esc = pos_;
    ++pos_;
    char c = peek();
    ++pos_;
    switch (c) {
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'f': return '\f';
      case 'v': return '\v';
      case 'b': return '\b';
      case 'a': return '\a';
      case 'e': return 0x1B;
      case '0': return 0;
      case '\\': case '"': case '\'': case '/': return static_cast<unsigned char>(c);
      case 'x': return parse_hex(2, esc);
      case 'u': return parse_hex(4, esc);
      case 'U': return parse_hex(8, esc);
      case ']': case '[': case '-': case '^':
        if (in_class) return static_cast<unsigned char>(c);
        [[fallthrough]];
      default:
        fail_at(GrammarErrorKind::BadEscape, std::string("unknown escape '\\") + (c ? std::string(1, c) : "") + "'", esc);
    }
  }

  int32_t parse_literal(char quote) {
    size_t start = pos_;
    ++pos_;
    std::string bytes;
    while (peek() != quote) {
      if (at_end() || peek() == '\n') fail_at(GrammarErrorKind::Syntax, "unterminated string literal", start);
      append_utf8(bytes, parse_char(false));
    }
    ++pos_;
    Expr e;
    e.kind = bytes.empty() ? ExprKind::Empty : ExprKind::Literal;
    e.literal = std::move(bytes);
    e.location = location_at(start);
    return add(std::move(e));
  }

  int32_t parse_class() {
    size_t start = pos_;
    ++pos_;
    bool negate = false;
    if (peek() == '^') {
      negate = true;
      ++pos_;
    }
    std::vector<CodepointRange> ranges;
    while (peek() != ']') {
      if (at_end()) fail_at(GrammarErrorKind::Syntax, "unterminated character class", start);
      size_t item = pos_;
      uint32_t lo = parse_char(true);
      uint32_t hi = lo;
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < src_.size()) {
        ++pos_;
        hi = parse_char(true);
        if (hi < lo) fail_at(GrammarErrorKind::BadRange, "character range is reversed", item);
      }
      ranges.push_back({lo, hi});
    }
    ++pos_;
    Expr e;
    e.kind = ExprKind::CharClass;
    e.ranges = normalize_ranges(std::move(ranges), negate, kMaxCodepoint);
    e.location = location_at(start);
    if (e.ranges.empty()) fail_at(GrammarErrorKind::BadRange, "character class matches nothing", start);
    return add(std::move(e));
  }

  int32_t parse_token_list(bool exclude, size_t start) {
    // Cursor is just past '('.
    skip_space();
    std::vector<int32_t> ids;
    for (;;) {
      size_t num = pos_;
      while (peek() >= '0' && peek() <= '9') ++pos_;
      if (pos_ == num) fail(GrammarErrorKind::Syntax, "expected a token id");
      int64_t v = 0;
      auto [p, ec] = std::from_chars(src_.data() + num, src_.data() + pos_, v);
      (void)p;
      if (ec != std::errc() || v > INT32_MAX) fail_at(GrammarErrorKind::UnknownToken, "token id out of range", num);
      ids.push_back(static_cast<int32_t>(v));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
        continue;
      }
      if (peek() != ')') fail(GrammarErrorKind::Syntax, "expected ',' or ')' in token list");
      ++pos_;
      break;
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    Expr e;
    e.kind = ExprKind::TokenSet;
    e.token_ids = std::move(ids);
    e.exclude = exclude;
    e.location = location_at(start);
    return add(std::move(e));
  }

  int32_t parse_primary() {
    size_t start = pos_;
    char c = peek();
    if (c == '"' || c == '\'') return parse_literal(c);
    if (c == '[') return parse_class();
    if (c == '.') {
      ++pos_;
      Expr e;
      e.kind = ExprKind::CharClass;
      e.ranges = normalize_ranges({{0, kMaxCodepoint}}, false, kMaxCodepoint);
      e.location = location_at(start);
      return add(std::move(e));
    }
    if (c == '(') {
      ++pos_;
      skip_space();
      int32_t inner = parse_alternatives();  // counts one nesting level
      skip_space();
      if (peek() != ')') fail_at(GrammarErrorKind::Syntax, "unclosed '('", start);
      ++pos_;
      return inner;
    }
    // llama.cpp token references: <[id]> and !<[id]>.
    if (c == '<' || (c == '!' && peek(1) == '<')) {
      bool exclude = c == '!';
      pos_ += exclude ? 2 : 1;
      if (peek() != '[') fail(GrammarErrorKind::Syntax, "expected '[' in token reference (only <[id]> is supported)");
      ++pos_;
      size_t num = pos_;
      while (peek() >= '0' && peek() <= '9') ++pos_;
      if (pos_ == num || peek() != ']' || peek(1) != '>') fail(GrammarErrorKind::Syntax, "malformed token reference, expected <[id]>");
      int64_t v = 0;
      std::from_chars(src_.data() + num, src_.data() + pos_, v);
      if (pos_ - num > 10 || v > INT32_MAX) fail_at(GrammarErrorKind::UnknownToken, "token id out of range", num);
      pos_ += 2;
      Expr e;
      e.kind = ExprKind::TokenSet;
      e.token_ids = {static_cast<int32_t>(v)};
      e.exclude = exclude;
      e.location = location_at(start);
      return add(std::move(e));
    }
    if (is_name_char(c)) {
      std::string name = parse_name();
      if ((name == "Token" || name == "ExcludeToken") && peek() == '(') {
        ++pos_;
        return parse_token_list(name == "ExcludeToken", start);
      }
      Expr e;
      e.kind = ExprKind::RuleRef;
      e.location = location_at(start);
      int32_t id = add(std::move(e));
      pending_refs_.emplace_back(id, std::move(name));
      return id;
    }
    if (c == ')') fail(GrammarErrorKind::Syntax, "unbalanced ')'");
    if (c == ']') fail(GrammarErrorKind::Syntax, "unbalanced ']'");
    fail(GrammarErrorKind::Syntax, std::string("unexpected character '") + c + "'");
  }

  void resolve_references() {
    for (auto& [expr, name] : pending_refs_) {
      auto it = rule_ids_.find(name);
      if (it == rule_ids_.end() || g_.rules[it->second].body < 0) {
        const auto& loc = g_.exprs[expr].location;
        throw GrammarError(GrammarErrorKind::UndefinedRule,
                           "undefined rule '" + name + "' at " + std::to_string(loc.line) + ":" + std::to_string(loc.column),
                           loc);
      }
      g_.exprs[expr].rule = it->second;
    }
  }
};

}  // namespace

Grammar parse_gbnf(std::string_view source, const GbnfOptions& options) {
  Parser p(source, options);
  return p.parse();
}

}  // namespace ninfer::grammar
