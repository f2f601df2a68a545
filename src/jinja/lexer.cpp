#include "jinja/lexer.h"

#include <cstring>

#include "jinja/template_error.h"
#include "jinja/utf8.h"

namespace ninfer::jinja {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// Python's str.rstrip() for the ASCII whitespace a template can hold around tags.
std::string_view rstrip_ws(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

std::string normalize_newlines(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out.push_back(source[i]);
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();  // keep_trailing_newline=False
  return out;
}

class Lexer {
 public:
  explicit Lexer(LexedSource& out) : out_(out), s_(out.source) {}

  void run() {
    size_t pos = 0;
    bool line_starting = true;
    while (pos < s_.size()) {
      const size_t open = find_open(pos);
      if (open == std::string::npos) {
        emit(TokenType::Data, std::string(s_.substr(pos)), pos);
        break;
      }
      const char kind = s_[open + 1];
      size_t after = open + 2;
      char sign = 0;
      if (after < s_.size() && (s_[after] == '-' || s_[after] == '+')) sign = s_[after++];
      size_t raw_end = 0;
      const bool raw = kind == '%' && match_raw_begin(after, raw_end);
      std::string_view text = s_.substr(pos, open - pos);
      text = strip_before(text, sign, kind != '{', line_starting);
      if (!text.empty()) emit(TokenType::Data, std::string(text), pos);
      if (raw) {
        pos = lex_raw(raw_end, line_starting);
      } else if (kind == '#') {
        pos = lex_comment(after, open, line_starting);
      } else {
        pos = lex_tag(kind == '{', after, open, line_starting);
      }
    }
    emit(TokenType::End, "", static_cast<uint32_t>(s_.size()));
  }

 private:
  LexedSource& out_;
  std::string_view s_;

  [[noreturn]] void fail(const std::string& message, size_t offset) {
    const auto [line, col] = out_.location(static_cast<uint32_t>(offset));
    throw TemplateError(TemplateErrorKind::Syntax, message, line, col);
  }

  void emit(TokenType t, std::string value, size_t offset) {
    out_.tokens.push_back(Token{t, std::move(value), static_cast<uint32_t>(offset)});
  }

  size_t find_open(size_t pos) const {
    while (true) {
      pos = s_.find('{', pos);
      if (pos == std::string::npos || pos + 1 >= s_.size()) return std::string::npos;
      const char c = s_[pos + 1];
      if (c == '{' || c == '%' || c == '#') return pos;
      ++pos;
    }
  }

  std::string_view strip_before(std::string_view text, char sign, bool lstrip_applies, bool line_starting) const {
    if (sign == '-') return rstrip_ws(text);
    if (sign == '+' || !lstrip_applies) return text;
    const size_t nl = text.rfind('\n');
    const size_t l_pos = nl == std::string_view::npos ? 0 : nl + 1;
    if (l_pos == 0 && !line_starting) return text;
    if (l_pos == text.size()) return text;
    for (size_t i = l_pos; i < text.size(); ++i)
      if (!is_space(text[i])) return text;
    return text.substr(0, l_pos);
  }

  // After the closing `%}` / `#}` of a tag: `-` strips all following whitespace, `+` nothing, else one newline.
  size_t after_close(size_t close_end, char sign, bool& line_starting) {
    size_t p = close_end;
    if (sign == '-') {
      while (p < s_.size() && is_space(s_[p])) ++p;
    } else if (sign != '+' && p < s_.size() && s_[p] == '\n') {
      ++p;
    }
    line_starting = p > 0 && s_[p - 1] == '\n';
    return p;
  }

  bool match_raw_begin(size_t p, size_t& end) const {
    while (p < s_.size() && is_space(s_[p])) ++p;
    if (s_.compare(p, 3, "raw") != 0) return false;
    p += 3;
    if (p < s_.size() && is_name_char(s_[p])) return false;
    while (p < s_.size() && is_space(s_[p])) ++p;
    if (s_.compare(p, 3, "-%}") == 0) {
      p += 3;
      while (p < s_.size() && is_space(s_[p])) ++p;
      end = p;
      return true;
    }
    if (s_.compare(p, 2, "%}") == 0) {
      end = p + 2;
      return true;
    }
    return false;
  }

  size_t lex_raw(size_t pos, bool& line_starting) {
    size_t search = pos;
    while (true) {
      const size_t open = s_.find("{%", search);
      if (open == std::string::npos) fail("Missing end of raw directive", pos);
      size_t p = open + 2;
      char sign = 0;
      if (p < s_.size() && (s_[p] == '-' || s_[p] == '+')) sign = s_[p++];
      while (p < s_.size() && is_space(s_[p])) ++p;
      if (s_.compare(p, 6, "endraw") != 0) {
        search = open + 1;
        continue;
      }
      p += 6;
      while (p < s_.size() && is_space(s_[p])) ++p;
      char close_sign = 0;
      if (p < s_.size() && (s_[p] == '-' || s_[p] == '+')) close_sign = s_[p++];
      if (s_.compare(p, 2, "%}") != 0) {
        search = open + 1;
        continue;
      }
      std::string_view text = strip_before(s_.substr(pos, open - pos), sign, true, line_starting);
      if (!text.empty()) emit(TokenType::Data, std::string(text), pos);
      return after_close(p + 2, close_sign, line_starting);
    }
  }

  size_t lex_comment(size_t p, size_t open, bool& line_starting) {
    const size_t close = s_.find("#}", p);
    if (close == std::string::npos) fail("Missing end of comment tag", open);
    char sign = 0;
    if (close > p && (s_[close - 1] == '-' || s_[close - 1] == '+')) sign = s_[close - 1];
    return after_close(close + 2, sign, line_starting);
  }

  size_t lex_tag(bool variable, size_t p, size_t open, bool& line_starting) {
    emit(variable ? TokenType::VarBegin : TokenType::BlockBegin, "", open);
    std::string stack;
    while (true) {
      if (p >= s_.size()) fail("unexpected end of template", s_.size());
      const char c = s_[p];
      if (stack.empty()) {
        // End tags are only recognised with balanced brackets, as in Jinja2.
        if (variable) {
          if (s_.compare(p, 3, "-}}") == 0) {
            emit(TokenType::VarEnd, "", p);
            size_t q = p + 3;
            while (q < s_.size() && is_space(s_[q])) ++q;
            line_starting = q > 0 && s_[q - 1] == '\n';
            return q;
          }
          if (s_.compare(p, 2, "}}") == 0) {
            emit(TokenType::VarEnd, "", p);
            line_starting = false;
            return p + 2;
          }
        } else {
          if ((c == '-' || c == '+') && s_.compare(p + 1, 2, "%}") == 0) {
            emit(TokenType::BlockEnd, "", p);
            return after_close(p + 3, c, line_starting);
          }
          if (s_.compare(p, 2, "%}") == 0) {
            emit(TokenType::BlockEnd, "", p);
            return after_close(p + 2, 0, line_starting);
          }
        }
      }
      if (is_space(c)) {
        ++p;
        continue;
      }
      if (is_digit(c)) {
        p = lex_number(p);
        continue;
      }
      if (is_name_start(c)) {
        size_t q = p;
        while (q < s_.size() && is_name_char(s_[q])) ++q;
        emit(TokenType::Name, std::string(s_.substr(p, q - p)), p);
        p = q;
        continue;
      }
      if (c == '\'' || c == '"') {
        p = lex_string(p);
        continue;
      }
      static const char* const kTwo[] = {"//", "**", "==", "!=", ">=", "<="};
      bool two = false;
      for (const char* op : kTwo) {
        if (s_.compare(p, 2, op) == 0) {
          emit(TokenType::Operator, op, p);
          p += 2;
          two = true;
          break;
        }
      }
      if (two) continue;
      if (std::strchr("+-/*%~[](){}><=.:|,;", c) == nullptr || c == '\0') {
        fail(std::string("unexpected char '") + c + "'", p);
      }
      if (c == '(' || c == '[' || c == '{') {
        stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      } else if (c == ')' || c == ']' || c == '}') {
        if (stack.empty()) fail(std::string("unexpected '") + c + "'", p);
        if (stack.back() != c) fail(std::string("unexpected '") + c + "', expected '" + stack.back() + "'", p);
        stack.pop_back();
      }
      emit(TokenType::Operator, std::string(1, c), p);
      ++p;
    }
  }

  size_t digits(size_t p) const {
    // \d+(_\d+)*
    while (p < s_.size() && is_digit(s_[p])) {
      ++p;
      if (p + 1 < s_.size() && s_[p] == '_' && is_digit(s_[p + 1])) ++p;
    }
    return p;
  }

  size_t lex_number(size_t start) {
    size_t p = digits(start);
    bool is_float = false;
    if (p + 1 < s_.size() && s_[p] == '.' && is_digit(s_[p + 1])) {
      p = digits(p + 1);
      is_float = true;
    }
    if (p < s_.size() && (s_[p] == 'e' || s_[p] == 'E')) {
      size_t q = p + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
      if (q < s_.size() && is_digit(s_[q])) {
        p = digits(q);
        is_float = true;
      }
    }
    std::string text;
    for (size_t i = start; i < p; ++i)
      if (s_[i] != '_') text.push_back(s_[i]);
    emit(is_float ? TokenType::Float : TokenType::Integer, std::move(text), start);
    return p;
  }

  static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  size_t lex_string(size_t start) {
    const char quote = s_[start];
    size_t p = start + 1;
    std::string value;
    while (true) {
      if (p >= s_.size()) fail("unexpected char '" + std::string(1, quote) + "'", start);
      const char c = s_[p];
      if (c == quote) break;
      if (c != '\\') {
        value.push_back(c);
        ++p;
        continue;
      }
      if (p + 1 >= s_.size()) fail("unexpected char '" + std::string(1, quote) + "'", start);
      const char e = s_[p + 1];
      p += 2;
      switch (e) {
        case '\\': value.push_back('\\'); break;
        case '\'': value.push_back('\''); break;
        case '"': value.push_back('"'); break;
        case 'a': value.push_back('\a'); break;
        case 'b': value.push_back('\b'); break;
        case 'f': value.push_back('\f'); break;
        case 'n': value.push_back('\n'); break;
        case 'r': value.push_back('\r'); break;
        case 't': value.push_back('\t'); break;
        case 'v': value.push_back('\v'); break;
        case '\n': break;
        case 'x':
        case 'u':
        case 'U': {
          const int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          uint32_t cp = 0;
          for (int i = 0; i < n; ++i) {
            const int h = p + i < s_.size() ? hex_value(s_[p + i]) : -1;
            if (h < 0) fail("truncated \\" + std::string(1, e) + " escape", p);
            cp = cp * 16 + static_cast<uint32_t>(h);
          }
          if (cp > 0x10FFFF) fail("illegal Unicode character", p);
          p += static_cast<size_t>(n);
          utf8_append(value, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            uint32_t cp = static_cast<uint32_t>(e - '0');
            for (int i = 0; i < 2 && p < s_.size() && s_[p] >= '0' && s_[p] <= '7'; ++i, ++p) cp = cp * 8 + static_cast<uint32_t>(s_[p] - '0');
            utf8_append(value, cp);
          } else {
            value.push_back('\\');
            value.push_back(e);
          }
      }
    }
    emit(TokenType::String, std::move(value), start);
    return p + 1;
  }
};

}  // namespace

std::pair<int, int> LexedSource::location(uint32_t offset) const {
  int line = 1;
  size_t line_start = 0;
  const size_t end = std::min<size_t>(offset, source.size());
  for (size_t i = 0; i < end; ++i) {
    if (source[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(utf8_length(std::string_view(source).substr(line_start, end - line_start))) + 1};
}

LexedSource lex(std::string_view source) {
  LexedSource out;
  out.source = normalize_newlines(source);
  Lexer(out).run();
  return out;
}

}  // namespace ninfer::jinja
