#include "jinja/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <utf8proc.h>

#include "jinja/template_error.h"
#include "jinja/utf8.h"

namespace ninfer::jinja {

namespace {

uint32_t nesting(const List& items) {
  uint32_t d = 0;
  for (const auto& v : items) d = std::max(d, v.depth());
  if (d + 1 > Value::kMaxDepth) throw TemplateError(TemplateErrorKind::Limit, "value nesting is deeper than " + std::to_string(Value::kMaxDepth));
  return d + 1;
}

[[noreturn]] void type_error(const std::string& message) { throw TemplateError(TemplateErrorKind::Runtime, message); }

const std::string& empty_string() {
  static const std::string s;
  return s;
}

}  // namespace

Value Value::boolean(bool b) {
  Value v(Kind::Bool);
  v.b_ = b;
  return v;
}
Value Value::integer(int64_t i) {
  Value v(Kind::Int);
  v.i_ = i;
  return v;
}
Value Value::floating(double f) {
  Value v(Kind::Float);
  v.f_ = f;
  return v;
}
Value Value::string(std::string s, bool markup) {
  Value v(Kind::String);
  v.markup_ = markup;
  v.p_ = std::make_shared<const std::string>(std::move(s));
  return v;
}
Value Value::list(List items) {
  Value v(Kind::List);
  v.depth_ = nesting(items);
  v.p_ = std::make_shared<const List>(std::move(items));
  return v;
}
Value Value::tuple(List items) {
  Value v(Kind::Tuple);
  v.depth_ = nesting(items);
  v.p_ = std::make_shared<const List>(std::move(items));
  return v;
}
Value Value::generator(List items) {
  Value v(Kind::Generator);
  v.depth_ = nesting(items);
  v.p_ = std::make_shared<const List>(std::move(items));
  return v;
}
Value Value::dict(std::shared_ptr<const Dict> d) {
  Value v(Kind::Dict);
  uint32_t depth = 0;
  for (const auto& [k, x] : d->entries) depth = std::max({depth, k.depth(), x.depth()});
  if (depth + 1 > kMaxDepth) throw TemplateError(TemplateErrorKind::Limit, "value nesting is deeper than " + std::to_string(kMaxDepth));
  v.depth_ = depth + 1;
  v.p_ = std::move(d);
  return v;
}
Value Value::namespace_(std::shared_ptr<Namespace> ns) {
  Value v(Kind::Namespace);
  v.p_ = std::move(ns);
  return v;
}
Value Value::callable(std::shared_ptr<const Callable> fn) {
  Value v(Kind::Callable);
  v.p_ = std::move(fn);
  return v;
}
Value Value::loop(std::shared_ptr<const LoopState> loop) {
  Value v(Kind::Loop);
  v.p_ = std::move(loop);
  return v;
}
Value Value::undefined(std::string name, bool unsafe) {
  Value v(Kind::Undefined);
  v.markup_ = unsafe;
  if (!name.empty()) v.p_ = std::make_shared<const std::string>(std::move(name));
  return v;
}

namespace {

// Object keys repeat across a context (every tool has "type", "function", "name", ...): each distinct key becomes
// one shared string value per conversion.
using KeyTable = std::unordered_map<std::string_view, Value>;

template <typename J>
Value value_from_json(const J& j, uint32_t depth, KeyTable& keys) {
  if (depth > Value::kMaxDepth) throw TemplateError(TemplateErrorKind::Limit, "context nesting is deeper than " + std::to_string(Value::kMaxDepth));
  switch (j.type()) {
    case J::value_t::null:
      return Value::none();
    case J::value_t::boolean:
      return Value::boolean(j.template get<bool>());
    case J::value_t::number_integer:
      return Value::integer(j.template get<int64_t>());
    case J::value_t::number_unsigned: {
      const auto u = j.template get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX)) return Value::floating(static_cast<double>(u));
      return Value::integer(static_cast<int64_t>(u));
    }
    case J::value_t::number_float:
      return Value::floating(j.template get<double>());
    case J::value_t::string:
      return Value::string(j.template get_ref<const std::string&>());
    case J::value_t::array: {
      List items;
      items.reserve(j.size());
      for (const auto& e : j) items.push_back(value_from_json(e, depth + 1, keys));
      return Value::list(std::move(items));
    }
    case J::value_t::object: {
      auto d = std::make_shared<Dict>();
      d->entries.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        auto [slot, fresh] = keys.try_emplace(std::string_view(k));
        if (fresh) slot->second = Value::string(k);
        d->entries.emplace_back(slot->second, value_from_json(it.value(), depth + 1, keys));
      }
      return Value::dict(std::move(d));
    }
    default:
      return Value::none();
  }
}
}  // namespace

Value Value::from_json(const nlohmann::json& j) {
  KeyTable keys;
  return value_from_json(j, 0, keys);
}
Value Value::from_json(const nlohmann::ordered_json& j) {
  KeyTable keys;
  return value_from_json(j, 0, keys);
}

Value Value::undefined_ref(const std::string& name) {
  Value v(Kind::Undefined);
  v.p_ = std::shared_ptr<const void>(std::shared_ptr<const void>(), &name);  // aliasing: points, owns nothing
  return v;
}

const std::string& Value::str() const { return *static_cast<const std::string*>(p_.get()); }
const List& Value::items() const { return *static_cast<const List*>(p_.get()); }
const Dict& Value::dict() const { return *static_cast<const Dict*>(p_.get()); }
Namespace& Value::ns() const { return *const_cast<Namespace*>(static_cast<const Namespace*>(p_.get())); }
const Callable& Value::fn() const { return *static_cast<const Callable*>(p_.get()); }
const LoopState& Value::loop() const { return *static_cast<const LoopState*>(p_.get()); }
const std::string& Value::undefined_name() const {
  return p_ ? *static_cast<const std::string*>(p_.get()) : empty_string();
}

bool Value::truthy() const {
  switch (kind_) {
    case Kind::Undefined:
    case Kind::None:
      return false;
    case Kind::Bool:
      return b_;
    case Kind::Int:
      return i_ != 0;
    case Kind::Float:
      return f_ != 0.0;
    case Kind::String:
      return !str().empty();
    case Kind::List:
    case Kind::Tuple:
      return !items().empty();
    case Kind::Dict:
      return !dict().entries.empty();
    default:
      return true;
  }
}

const char* Value::type_name() const {
  switch (kind_) {
    case Kind::Undefined: return "Undefined";
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return markup_ ? "Markup" : "str";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Namespace: return "Namespace";
    case Kind::Callable: return "function";
    case Kind::Loop: return "LoopContext";
    case Kind::Generator: return "generator";
  }
  return "object";
}

const Value* Dict::find(std::string_view key) const {
  for (const auto& [k, v] : entries)
    if (k.is_string() && k.str() == key) return &v;
  return nullptr;
}

const Value* Dict::find(const Value& key) const {
  if (key.is_string()) return find(std::string_view(key.str()));
  for (const auto& [k, v] : entries)
    if (python_equal(k, key)) return &v;
  return nullptr;
}

Value* Namespace::find(std::string_view name) {
  for (auto& [k, v] : attrs)
    if (k == name) return &v;
  return nullptr;
}

void Namespace::set(const std::string& name, Value v) {
  if (Value* slot = find(name)) {
    *slot = std::move(v);
  } else {
    attrs.emplace_back(name, std::move(v));
  }
}

const Value* CallArgs::kwarg(std::string_view name) const {
  for (const auto& [k, v] : keyword)
    if (k == name) return &v;
  return nullptr;
}

bool python_equal(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_float() == b.as_float();
    return a.as_int() == b.as_int();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::Undefined:
    case K::None:
      return true;
    case K::String:
      return a.str() == b.str();
    case K::List:
    case K::Tuple: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!python_equal(x[i], y[i])) return false;
      return true;
    }
    case K::Dict: {
      const auto& x = a.dict().entries;
      const auto& y = b.dict();
      if (x.size() != y.entries.size()) return false;
      for (const auto& [k, v] : x) {
        const Value* w = y.find(k);
        if (!w || !python_equal(v, *w)) return false;
      }
      return true;
    }
    case K::Namespace:
      return &a.ns() == &b.ns();
    case K::Callable:
      return &a.fn() == &b.fn();
    case K::Loop:
      return &a.loop() == &b.loop();
    default:
      return false;
  }
}

bool python_less(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.as_float() < b.as_float();
    return a.as_int() < b.as_int();
  }
  if (a.is_string() && b.is_string()) return a.str() < b.str();
  if ((a.is_list() && b.is_list()) || (a.is_tuple() && b.is_tuple())) {
    const auto& x = a.items();
    const auto& y = b.items();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!python_equal(x[i], y[i])) return python_less(x[i], y[i]);
    }
    return x.size() < y.size();
  }
  type_error(std::string("'<' not supported between instances of '") + a.type_name() + "' and '" + b.type_name() + "'");
}

std::string float_repr(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  if (f == 0) return std::signbit(f) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  const int exp = std::atoi(sci.c_str() + e + 1);
  std::string out;
  if (mant[0] == '-') {
    out.push_back('-');
    mant.erase(0, 1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits.push_back(c);
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const size_t int_len = static_cast<size_t>(exp) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    }
  } else {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  }
  return out;
}

namespace {

bool python_printable(char32_t cp) {
  if (cp == ' ') return true;
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp < 0x7F) return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_ZS:
      return false;
    default:
      return true;
  }
}

void append_string_repr(std::string& out, const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  out.push_back(quote);
  for (char32_t cp : utf8_decode(s)) {
    if (cp == static_cast<char32_t>(quote) || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (python_printable(cp)) {
      utf8_append(out, cp);
    } else {
      char buf[16];
      if (cp < 0x100) {
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      } else if (cp < 0x10000) {
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      } else {
        std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
      }
      out += buf;
    }
  }
  out.push_back(quote);
}

void append_container(std::string& out, const Value& v) {
  if (v.is_dict()) {
    out.push_back('{');
    bool first = true;
    for (const auto& [k, x] : v.dict().entries) {
      if (!first) out += ", ";
      first = false;
      append_repr(out, k);
      out += ": ";
      append_repr(out, x);
    }
    out.push_back('}');
    return;
  }
  const auto& items = v.items();
  out.push_back(v.is_tuple() ? '(' : '[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    append_repr(out, items[i]);
  }
  if (v.is_tuple() && items.size() == 1) out.push_back(',');
  out.push_back(v.is_tuple() ? ')' : ']');
}

}  // namespace

void append_str(std::string& out, const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::Undefined:
      return;
    case K::None:
      out += "None";
      return;
    case K::Bool:
      out += v.as_bool() ? "True" : "False";
      return;
    case K::Int:
      out += std::to_string(v.as_int());
      return;
    case K::Float:
      out += float_repr(v.as_float());
      return;
    case K::String:
      out += v.str();
      return;
    case K::List:
    case K::Tuple:
    case K::Dict:
      append_container(out, v);
      return;
    case K::Namespace: {
      // A namespace may hold itself (set ns.me = ns): bound the recursion as Python's RecursionError does.
      static thread_local int namespace_depth = 0;
      if (namespace_depth >= static_cast<int>(Value::kMaxDepth)) throw TemplateError(TemplateErrorKind::Limit, "maximum recursion depth exceeded while printing a namespace");
      ++namespace_depth;
      struct Release {
        ~Release() { --namespace_depth; }
      } release;
      out += "<Namespace {";
      bool first = true;
      for (const auto& [k, x] : v.ns().attrs) {
        if (!first) out += ", ";
        first = false;
        append_string_repr(out, k);
        out += ": ";
        append_repr(out, x);
      }
      out += "}>";
      return;
    }
    case K::Callable:
      out += "<function " + v.fn().name + ">";
      return;
    case K::Generator:
      out += "<generator object>";
      return;
    case K::Loop:
      out += "<LoopContext " + std::to_string(v.loop().index0 + 1) + "/" + std::to_string(v.loop().items->size()) + ">";
      return;
  }
}

std::string to_str(const Value& v) {
  if (v.is_string()) return v.str();
  std::string out;
  append_str(out, v);
  return out;
}

void append_repr(std::string& out, const Value& v) {
  if (v.is_string()) {
    if (v.is_markup()) {
      out += "Markup(";
      append_string_repr(out, v.str());
      out += ")";
    } else {
      append_string_repr(out, v.str());
    }
  } else if (v.is_undefined()) {
    out += "Undefined";
  } else {
    append_str(out, v);
  }
}

std::string to_repr(const Value& v) {
  std::string out;
  append_repr(out, v);
  return out;
}

namespace {

void json_string(std::string& out, const std::string& s) {
  out.push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escape, appended in one go
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u != '"' && u != '\\') continue;
    out.append(s, run, i - run);
    run = i + 1;
    switch (u) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", u);
        out += buf;
      }
    }
  }
  out.append(s, run, std::string::npos);
  out.push_back('"');
}

std::string json_float(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f < 0 ? "-Infinity" : "Infinity";
  return float_repr(f);
}

struct JsonWriter {
  std::string indent_unit;
  bool has_indent;
  std::string item_sep;
  std::string key_sep;
  bool sort_keys;
  std::string out;
  int depth = 0;

  void newline(int level) {
    out.push_back('\n');
    for (int i = 0; i < level; ++i) out += indent_unit;
  }

  void key(const Value& k) {
    if (k.is_string()) {
      json_string(out, k.str());
    } else if (k.is_bool()) {
      json_string(out, k.as_bool() ? "true" : "false");
    } else if (k.is_int()) {
      json_string(out, std::to_string(k.as_int()));
    } else if (k.is_float()) {
      json_string(out, json_float(k.as_float()));
    } else if (k.is_none()) {
      json_string(out, "null");
    } else {
      type_error(std::string("keys must be str, int, float, bool or None, not ") + k.type_name());
    }
  }

  void write(const Value& v, int level) {
    if (++depth > 1000) throw TemplateError(TemplateErrorKind::Limit, "maximum recursion depth exceeded while encoding a JSON object");
    using K = Value::Kind;
    switch (v.kind()) {
      case K::None: out += "null"; break;
      case K::Bool: out += v.as_bool() ? "true" : "false"; break;
      case K::Int: out += std::to_string(v.as_int()); break;
      case K::Float: out += json_float(v.as_float()); break;
      case K::String: json_string(out, v.str()); break;
      case K::List:
      case K::Tuple: {
        const auto& items = v.items();
        if (items.empty()) {
          out += "[]";
          break;
        }
        out.push_back('[');
        for (size_t i = 0; i < items.size(); ++i) {
          if (i) out += item_sep;
          if (has_indent) newline(level + 1);
          write(items[i], level + 1);
        }
        if (has_indent) newline(level);
        out.push_back(']');
        break;
      }
      case K::Dict: {
        const auto& entries = v.dict().entries;
        if (entries.empty()) {
          out += "{}";
          break;
        }
        std::vector<const std::pair<Value, Value>*> order;
        order.reserve(entries.size());
        for (const auto& e : entries) order.push_back(&e);
        if (sort_keys) {
          std::stable_sort(order.begin(), order.end(),
                           [](const auto* a, const auto* b) { return python_less(a->first, b->first); });
        }
        out.push_back('{');
        bool first = true;
        for (const auto* e : order) {
          if (!first) out += item_sep;
          first = false;
          if (has_indent) newline(level + 1);
          key(e->first);
          out += key_sep;
          write(e->second, level + 1);
        }
        if (has_indent) newline(level);
        out.push_back('}');
        break;
      }
      default:
        type_error(std::string("Object of type ") + v.type_name() + " is not JSON serializable");
    }
    --depth;
  }
};

}  // namespace

std::string python_json_dumps(const Value& v, const std::string* indent, const std::string& item_sep,
                              const std::string& key_sep, bool sort_keys) {
  JsonWriter w{indent ? *indent : std::string(), indent != nullptr, item_sep, key_sep, sort_keys, {}};
  w.write(v, 0);
  return std::move(w.out);
}

List iterate(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::Undefined:
      return {};
    case K::List:
    case K::Tuple:
    case K::Generator:
      return v.items();
    case K::Dict: {
      List keys;
      keys.reserve(v.dict().entries.size());
      for (const auto& [k, x] : v.dict().entries) keys.push_back(k);
      return keys;
    }
    case K::String: {
      List chars;
      const std::string& s = v.str();
      size_t i = 0;
      while (i < s.size()) {
        size_t j = i + 1;
        while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
        chars.push_back(Value::string(s.substr(i, j - i)));
        i = j;
      }
      return chars;
    }
    default:
      type_error(std::string("'") + v.type_name() + "' object is not iterable");
  }
}

int64_t python_len(const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::Undefined: return 0;
    case K::String: return static_cast<int64_t>(utf8_length(v.str()));
    case K::List:
    case K::Tuple: return static_cast<int64_t>(v.items().size());
    case K::Dict: return static_cast<int64_t>(v.dict().entries.size());
    case K::Loop: return static_cast<int64_t>(v.loop().items->size());
    default: type_error(std::string("object of type '") + v.type_name() + "' has no len()");
  }
}

}  // namespace ninfer::jinja
