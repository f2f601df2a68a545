#include "models/qwen3/frontend/xml_value_typing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ninfer::qwen3 {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Python int()'s reading: optional sign, digits (underscores between digits), surrounding whitespace;
// the value as JSON integer text (no leading zeros, "-" only before a non-zero value).
bool python_int_text(const std::string& raw, std::string& out) {
  std::string t = trim(raw);
  std::string digits;
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  for (; i < t.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(t[i]))) digits += t[i];
    else if (t[i] == '_' && !digits.empty() && i + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i + 1]))) continue;
    else return false;
  }
  if (digits.empty()) return false;
  const size_t first = std::min(digits.find_first_not_of('0'), digits.size() - 1);
  out = (neg && digits[first] != '0' ? "-" : "") + digits.substr(first);
  return true;
}

bool python_int(const std::string& raw, OJson& out) {
  std::string text;
  if (!python_int_text(raw, text)) return false;
  try {
    out = OJson::parse(text);  // big values become doubles, as JSON readers do
  } catch (const std::exception&) {
    return false;  // past binary64: a number overflow (typed_json keeps the digits)
  }
  return out.is_number();
}

// Python float(): a decimal number (no inf/nan, which JSON cannot hold).
bool python_float(const std::string& raw, double& out) {
  const std::string t = trim(raw);
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(out)) return false;
  const std::string l = lower(t);
  return l.find("inf") == std::string::npos && l.find("nan") == std::string::npos && l.find('x') == std::string::npos;
}

class PythonLiteral {
 public:
  explicit PythonLiteral(const std::string& s) : s_(s) {}
  bool parse(OJson& out) {
    skip();
    if (!value(out, 0)) return false;
    skip();
    return i_ == s_.size();
  }

 private:
  const std::string& s_;
  size_t i_ = 0;

  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool word(const char* w) {
    const size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) != 0) return false;
    if (i_ + n < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_ + n])) || s_[i_ + n] == '_')) return false;
    i_ += n;
    return true;
  }
  bool value(OJson& out, int depth) {
    if (depth > 128) return false;
    skip();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') return dict(out, depth);
    if (c == '[') return sequence(out, depth, ']');
    if (c == '(') return sequence(out, depth, ')');
    if (c == '\'' || c == '"') {
      std::string str;
      if (!string(str)) return false;
      out = str;
      return true;
    }
    if (word("True")) return out = true, true;
    if (word("False")) return out = false, true;
    if (word("None")) return out = nullptr, true;
    return number(out);
  }
  bool dict(OJson& out, int depth) {
    ++i_;
    out = OJson::object();
    if (eat('}')) return true;
    while (true) {
      skip();
      std::string key;
      if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"') || !string(key)) return false;
      if (!eat(':')) return false;
      OJson v;
      if (!value(v, depth + 1)) return false;
      out[key] = std::move(v);
      if (eat('}')) return true;
      if (!eat(',')) return false;
      if (eat('}')) return true;
    }
  }
  bool sequence(OJson& out, int depth, char close) {
    ++i_;
    out = OJson::array();
    if (eat(close)) return true;
    while (true) {
      OJson v;
      if (!value(v, depth + 1)) return false;
      out.push_back(std::move(v));
      if (eat(close)) return true;
      if (!eat(',')) return false;
      if (eat(close)) return true;
    }
  }
  bool string(std::string& out) {
    const char q = s_[i_++];
    while (i_ < s_.size() && s_[i_] != q) {
      char c = s_[i_++];
      if (c == '\n') return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) return false;
      c = s_[i_++];
      switch (c) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case 'u':
        case 'x': {
          const size_t n = c == 'u' ? 4 : 2;
          if (i_ + n > s_.size()) return false;
          const std::string hex = s_.substr(i_, n);
          if (!std::all_of(hex.begin(), hex.end(), [](char h) { return std::isxdigit(static_cast<unsigned char>(h)); })) return false;
          const auto cp = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
          if (cp >= 0xD800 && cp <= 0xDFFF) return false;
          i_ += n;
          grammar_append_utf8(out, cp);
          break;
        }
        default: out += '\\', out += c;
      }
    }
    if (i_ >= s_.size()) return false;
    ++i_;
    return true;
  }
  static void grammar_append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) out += static_cast<char>(0xC0 | (cp >> 6)), out += static_cast<char>(0x80 | (cp & 0x3F));
    else
      out += static_cast<char>(0xE0 | (cp >> 12)), out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
          out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  bool number(OJson& out) {
    const size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == '-' || s_[i_] == '+' || s_[i_] == '_'))
      ++i_;
    const std::string t = s_.substr(b, i_ - b);
    if (python_int(t, out)) return true;
    double d;
    if (!python_float(t, d)) return false;
    out = d;
    return true;
  }
};

// The schema's "type" as vLLM reads it: str(type).strip().lower(); a list names its first
// non-null type here.
std::string type_name(const OJson* schema) {
  if (!schema || !schema->is_object()) return "string";
  auto it = schema->find("type");
  if (it == schema->end()) return "string";
  if (it->is_string()) return lower(trim(it->get<std::string>()));
  if (it->is_array())
    for (const auto& t : *it)
      if (t.is_string() && t.get<std::string>() != "null") return lower(t.get<std::string>());
  return "string";
}

bool int_like(const std::string& t) {
  return starts_with(t, "int") || starts_with(t, "uint") || starts_with(t, "long") || starts_with(t, "short") ||
         starts_with(t, "unsigned");
}

std::string dump(const OJson& v) { return v.dump(-1, ' ', false, OJson::error_handler_t::replace); }

}  // namespace

bool parse_python_literal(const std::string& text, OJson& out) { return PythonLiteral(text).parse(out); }

OJson vllm_typed_value(const std::string& raw, const OJson* schema) {
  if (!schema) return raw;
  if (lower(raw) == "null") return nullptr;
  const std::string t = type_name(schema);
  if (t == "string" || t == "str" || t == "text" || t == "varchar" || t == "char" || t == "enum") return raw;
  if (int_like(t)) {
    OJson v;
    return python_int(raw, v) ? v : OJson(raw);
  }
  if (starts_with(t, "num") || starts_with(t, "float")) {
    double d;
    if (!python_float(raw, d)) return raw;
    OJson v;
    if (d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<int64_t>(d);
    return d;
  }
  if (t == "boolean" || t == "bool" || t == "binary") return lower(raw) == "true";
  if (t == "object" || t == "array" || t == "arr" || starts_with(t, "dict") || starts_with(t, "list")) {
    try {
      return OJson::parse(raw);
    } catch (const std::exception&) {
    }
    OJson v;
    if (parse_python_literal(raw, v)) return v;
    return raw;
  }
  // Any other type name: vLLM tries a Python literal, else keeps the text.
  OJson v;
  if (parse_python_literal(raw, v)) return v;
  return raw;
}

OJson strict_typed_value(const std::string& raw, const XmlParameter& p) {
  switch (p.kind) {
    case XmlValueKind::RawString:
      return raw;
    case XmlValueKind::RawStringOrNull:
      return raw == "null" || raw == "None" ? OJson(nullptr) : OJson(raw);
    case XmlValueKind::Json:
      break;
  }
  try {
    return OJson::parse(raw);
  } catch (const std::exception&) {
  }
  if (raw == "True") return true;
  if (raw == "False") return false;
  if (raw == "None") return nullptr;
  return vllm_typed_value(raw, &p.schema);
}


std::string vllm_typed_json(const std::string& raw, const OJson* schema) {
  const OJson v = vllm_typed_value(raw, schema);
  std::string digits;
  if (v.is_string() && schema && (int_like(type_name(schema)) || starts_with(type_name(schema), "num")) &&
      python_int_text(raw, digits)) {
    return digits;  // an integer past binary64, which the typing left as text
  }
  return dump(v);
}

std::string strict_typed_json(const std::string& raw, const XmlParameter& p) {
  const OJson v = strict_typed_value(raw, p);
  std::string digits;
  // A JSON value that is an integer past binary64 (JSON has no other unquoted digits).
  if (p.kind == XmlValueKind::Json && v.is_string() && python_int_text(raw, digits) && trim(raw) == digits) return digits;
  if (p.kind == XmlValueKind::Json && v.is_string()) return vllm_typed_json(raw, &p.schema);
  return dump(v);
}

}  // namespace ninfer::qwen3
