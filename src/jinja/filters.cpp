#include "jinja/filters.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <utf8proc.h>

#include "jinja/methods.h"
#include "jinja/renderer.h"
#include "jinja/utf8.h"

namespace ninfer::jinja {

namespace {

// Python-style argument binding: position i or keyword `name`.
const Value* arg(const CallArgs& a, size_t i, std::string_view name) {
  if (i < a.positional.size()) return &a.positional[i];
  return a.kwarg(name);
}
bool flag(const CallArgs& a, size_t i, std::string_view name, bool dflt = false) {
  const Value* v = arg(a, i, name);
  return v ? v->truthy() : dflt;
}

// soft_str: Markup and str stay, anything else goes through str().
Value soft_str(const Value& v) { return v.is_string() ? v : Value::string(to_str(v)); }

Value f_string(Renderer&, const Value& v, CallArgs&) { return soft_str(v); }

Value f_trim(Renderer& r, const Value& v, CallArgs& a) {
  const Value* chars = arg(a, 0, "chars");
  if (chars && !chars->is_none() && !chars->is_string()) r.runtime_error("strip arg must be None or str");
  const Value s = soft_str(v);
  return Value::string(py_strip(s.str(), chars && chars->is_string() ? &chars->str() : nullptr, true, true), s.is_markup());
}

Value f_length(Renderer&, const Value& v, CallArgs&) { return Value::integer(python_len(v)); }

Value f_default(Renderer&, const Value& v, CallArgs& a) {
  const Value* d = arg(a, 0, "default_value");
  const bool boolean = flag(a, 1, "boolean");
  if (v.is_undefined() || (boolean && !v.truthy())) return d ? *d : Value::string("");
  return v;
}

Value attribute_of(Renderer& r, const Value& item, const Value& attribute) {
  if (attribute.is_integral()) return r.getitem(item, attribute);
  const std::string path = to_str(attribute);
  Value cur = item;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    cur = numeric ? r.getitem(cur, Value::integer(std::atoll(part.c_str()))) : r.getitem(cur, Value::string(part));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

Value f_join(Renderer& r, const Value& v, CallArgs& a) {
  const Value* d = arg(a, 0, "d");
  const Value* attribute = arg(a, 1, "attribute");
  const std::string sep = d ? to_str(*d) : "";
  std::string out;
  bool first = true;
  for (const auto& item : iterate(v)) {
    if (!first) out += sep;
    first = false;
    append_str(out, attribute && !attribute->is_none() ? attribute_of(r, item, *attribute) : item);
    r.check_size(out.size());
  }
  return Value::string(std::move(out));
}

Value f_items(Renderer& r, const Value& v, CallArgs&) {
  if (v.is_undefined()) return Value::generator({});
  if (!v.is_dict()) r.runtime_error("Can only get item pairs from a mapping.");
  List out;
  for (const auto& [k, x] : v.dict().entries) out.push_back(Value::tuple({k, x}));
  return Value::generator(std::move(out));
}

Value f_list(Renderer&, const Value& v, CallArgs&) { return Value::list(iterate(v)); }

Value f_first(Renderer&, const Value& v, CallArgs&) {
  List items = iterate(v);
  return items.empty() ? Value::undefined("first") : items.front();
}

Value f_last(Renderer& r, const Value& v, CallArgs&) {
  if (v.is_generator()) r.runtime_error("'generator' object is not reversible");
  List items = iterate(v);
  return items.empty() ? Value::undefined("last") : items.back();
}

Value f_upper(Renderer&, const Value& v, CallArgs&) { return Value::string(py_upper(to_str(v))); }
Value f_lower(Renderer&, const Value& v, CallArgs&) { return Value::string(py_lower(to_str(v))); }
Value f_capitalize(Renderer&, const Value& v, CallArgs&) { return Value::string(py_capitalize(to_str(v))); }
// Jinja2's title filter is not str.title(): words begin after runs of '-', whitespace and opening brackets, and
// each word is its first character upper-cased plus the rest lower-cased ("it's" → "It's").
Value f_title(Renderer&, const Value& v, CallArgs&) {
  const std::u32string s = utf8_decode(to_str(v));
  auto is_sep = [](char32_t c) { return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || py_isspace(c); };
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    const bool sep = is_sep(s[i]);
    while (j < s.size() && is_sep(s[j]) == sep) ++j;
    const std::string item = utf8_encode(std::u32string_view(s).substr(i, j - i));
    const std::string first = utf8_encode(std::u32string_view(s).substr(i, 1));
    out += py_upper(first) + py_lower(item.substr(first.size()));
    i = j;
  }
  return Value::string(std::move(out));
}

Value f_replace(Renderer& r, const Value& v, CallArgs& a) {
  const Value* old = arg(a, 0, "old");
  const Value* repl = arg(a, 1, "new");
  const Value* count = arg(a, 2, "count");
  if (!old || !repl) r.runtime_error("replace() missing required arguments");
  std::string out = py_replace(to_str(v), to_str(*old), to_str(*repl),
                               count && !count->is_none() ? count->as_int() : -1);
  r.check_size(out.size());
  return Value::string(std::move(out));
}

Value f_tojson(Renderer& r, const Value& v, CallArgs& a) {
  const Value* ensure_ascii = arg(a, 0, "ensure_ascii");
  const Value* indent = arg(a, 1, "indent");
  const Value* separators = arg(a, 2, "separators");
  const bool sort_keys = flag(a, 3, "sort_keys");
  bool has_indent = false;
  std::string indent_str;
  if (indent && !indent->is_none()) {
    has_indent = true;
    if (indent->is_integral()) {
      indent_str = std::string(static_cast<size_t>(std::clamp<int64_t>(indent->as_int(), 0, 64)), ' ');
    } else if (indent->is_string()) {
      indent_str = indent->str();
    } else {
      r.runtime_error("indent must be an int or a str");
    }
  }
  std::string item_sep = has_indent ? "," : ", ";
  std::string key_sep = ": ";
  if (separators && !separators->is_none()) {
    List seps = iterate(*separators);
    if (seps.size() != 2 || !seps[0].is_string() || !seps[1].is_string()) r.runtime_error("separators must be a (item, key) pair of str");
    item_sep = seps[0].str();
    key_sep = seps[1].str();
  }
  std::string out = python_json_dumps(v, has_indent ? &indent_str : nullptr, item_sep, key_sep, sort_keys);
  if (ensure_ascii && ensure_ascii->truthy()) {
    std::string ascii;
    for (char32_t c : utf8_decode(out)) {
      if (c < 0x80) {
        ascii.push_back(static_cast<char>(c));
      } else {
        char buf[16];
        if (c >= 0x10000) {
          const char32_t x = c - 0x10000;
          std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xD800 + (x >> 10)), static_cast<unsigned>(0xDC00 + (x & 0x3FF)));
        } else {
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        }
        ascii += buf;
      }
    }
    out = std::move(ascii);
  }
  r.check_size(out.size());
  return Value::string(std::move(out));
}

Value f_map(Renderer& r, const Value& v, CallArgs& a) {
  List out;
  const List items = iterate(v);
  if (const Value* attribute = a.kwarg("attribute")) {
    const Value* dflt = a.kwarg("default");
    for (const auto& item : items) {
      Value x = attribute_of(r, item, *attribute);
      out.push_back(x.is_undefined() && dflt ? *dflt : x);
    }
    return Value::generator(std::move(out));
  }
  if (a.positional.empty()) r.runtime_error("map requires a filter argument");
  const std::string name = to_str(a.positional[0]);
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keyword = a.keyword;
  for (const auto& item : items) {
    CallArgs copy = rest;
    out.push_back(r.apply_filter(name, item, copy));
  }
  return Value::generator(std::move(out));
}

Value select_common(Renderer& r, const Value& v, CallArgs& a, bool by_attr, bool keep_if) {
  size_t next = 0;
  Value attribute;
  if (by_attr) {
    if (a.positional.empty()) r.runtime_error("Missing parameter for attribute name");
    attribute = a.positional[next++];
  }
  std::string test;
  if (next < a.positional.size()) test = to_str(a.positional[next++]);
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + static_cast<long>(std::min(next, a.positional.size())), a.positional.end());
  rest.keyword = a.keyword;
  List out;
  for (const auto& item : iterate(v)) {
    const Value x = by_attr ? attribute_of(r, item, attribute) : item;
    bool ok;
    if (test.empty()) {
      ok = x.truthy();
    } else {
      CallArgs copy = rest;
      ok = r.apply_test(test, x, copy);
    }
    if (ok == keep_if) out.push_back(item);
  }
  return Value::generator(std::move(out));
}

Value f_select(Renderer& r, const Value& v, CallArgs& a) { return select_common(r, v, a, false, true); }
Value f_reject(Renderer& r, const Value& v, CallArgs& a) { return select_common(r, v, a, false, false); }
Value f_selectattr(Renderer& r, const Value& v, CallArgs& a) { return select_common(r, v, a, true, true); }
Value f_rejectattr(Renderer& r, const Value& v, CallArgs& a) { return select_common(r, v, a, true, false); }

Value sort_key(const Value& v, bool case_sensitive) {
  if (!case_sensitive && v.is_string()) return Value::string(py_lower(v.str()));
  return v;
}

Value f_unique(Renderer& r, const Value& v, CallArgs& a) {
  const bool case_sensitive = flag(a, 0, "case_sensitive");
  const Value* attribute = arg(a, 1, "attribute");
  List out;
  List seen;
  for (const auto& item : iterate(v)) {
    const Value key = sort_key(attribute && !attribute->is_none() ? attribute_of(r, item, *attribute) : item, case_sensitive);
    bool dup = false;
    for (const auto& s : seen) {
      if (python_equal(s, key)) {
        dup = true;
        break;
      }
    }
    if (dup) continue;
    seen.push_back(key);
    out.push_back(item);
  }
  return Value::list(std::move(out));
}

Value f_sort(Renderer& r, const Value& v, CallArgs& a) {
  const bool reverse = flag(a, 0, "reverse");
  const bool case_sensitive = flag(a, 1, "case_sensitive");
  const Value* attribute = arg(a, 2, "attribute");
  List items = iterate(v);
  std::vector<std::pair<Value, size_t>> keyed;
  for (size_t i = 0; i < items.size(); ++i)
    keyed.emplace_back(sort_key(attribute && !attribute->is_none() ? attribute_of(r, items[i], *attribute) : items[i], case_sensitive), i);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? python_less(y.first, x.first) : python_less(x.first, y.first);
  });
  List out;
  for (const auto& [k, i] : keyed) out.push_back(items[i]);
  return Value::list(std::move(out));
}

Value f_dictsort(Renderer& r, const Value& v, CallArgs& a) {
  const bool case_sensitive = flag(a, 0, "case_sensitive");
  const Value* by = arg(a, 1, "by");
  const bool reverse = flag(a, 2, "reverse");
  if (!v.is_dict()) r.runtime_error("You can only sort by either \"key\" or \"value\"");
  const bool by_value = by && by->is_string() && by->str() == "value";
  std::vector<std::pair<Value, Value>> entries = v.dict().entries;
  std::stable_sort(entries.begin(), entries.end(), [&](const auto& x, const auto& y) {
    const Value kx = sort_key(by_value ? x.second : x.first, case_sensitive);
    const Value ky = sort_key(by_value ? y.second : y.first, case_sensitive);
    return reverse ? python_less(ky, kx) : python_less(kx, ky);
  });
  List out;
  for (auto& [k, x] : entries) out.push_back(Value::tuple({k, x}));
  return Value::list(std::move(out));
}

Value f_reverse(Renderer&, const Value& v, CallArgs&) {
  if (v.is_string()) {
    std::u32string s = utf8_decode(v.str());
    std::reverse(s.begin(), s.end());
    return Value::string(utf8_encode(s));
  }
  List items = iterate(v);
  std::reverse(items.begin(), items.end());
  return Value::list(std::move(items));
}

bool parse_python_float(std::string s, double& out) {
  s = py_strip(s, nullptr, true, true);
  std::string clean;
  for (char c : s)
    if (c != '_') clean.push_back(c);
  if (clean.empty()) return false;
  char* end = nullptr;
  out = std::strtod(clean.c_str(), &end);
  return end && *end == '\0';
}

Value f_int(Renderer& r, const Value& v, CallArgs& a) {
  const Value* dflt = arg(a, 0, "default");
  const Value* base_v = arg(a, 1, "base");
  const Value fallback = dflt ? *dflt : Value::integer(0);
  if (v.is_integral()) return Value::integer(v.as_int());
  if (v.is_float()) {
    if (!std::isfinite(v.as_float())) return fallback;
    if (std::fabs(v.as_float()) >= 9.2e18) r.runtime_error("integer overflow");
    return Value::integer(static_cast<int64_t>(v.as_float()));
  }
  if (v.is_string()) {
    const std::string s = py_strip(v.str(), nullptr, true, true);
    const int base = base_v && base_v->is_integral() ? static_cast<int>(base_v->as_int()) : 10;
    std::string clean;
    for (char c : s)
      if (c != '_') clean.push_back(c);
    if (!clean.empty()) {
      char* end = nullptr;
      errno = 0;
      const long long x = std::strtoll(clean.c_str(), &end, base);
      if (end && *end == '\0' && errno == 0) return Value::integer(x);
    }
    double d;
    if (parse_python_float(v.str(), d) && std::isfinite(d) && std::fabs(d) < 9.2e18) return Value::integer(static_cast<int64_t>(d));
  }
  return fallback;
}

Value f_float(Renderer&, const Value& v, CallArgs& a) {
  const Value* dflt = arg(a, 0, "default");
  if (v.is_number()) return Value::floating(v.as_float());
  double d;
  if (v.is_string() && parse_python_float(v.str(), d)) return Value::floating(d);
  return dflt ? *dflt : Value::floating(0.0);
}

Value f_abs(Renderer& r, const Value& v, CallArgs&) {
  if (v.is_float()) return Value::floating(std::fabs(v.as_float()));
  if (v.is_integral()) {
    if (v.as_int() == INT64_MIN) r.runtime_error("integer overflow");
    return Value::integer(std::llabs(v.as_int()));
  }
  r.runtime_error(std::string("bad operand type for abs(): '") + v.type_name() + "'");
}

Value f_round(Renderer& r, const Value& v, CallArgs& a) {
  const Value* precision_v = arg(a, 0, "precision");
  const Value* method_v = arg(a, 1, "method");
  const int64_t precision = precision_v ? precision_v->as_int() : 0;
  const std::string method = method_v ? to_str(*method_v) : "common";
  if (method != "common" && method != "ceil" && method != "floor") r.runtime_error("method must be common, ceil or floor");
  if (!v.is_number()) r.runtime_error(std::string("type ") + v.type_name() + " doesn't define __round__ method");
  if (method == "common") {
    if (v.is_integral()) return Value::integer(v.as_int());
    const double x = v.as_float();
    if (!std::isfinite(x)) return v;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(std::clamp<int64_t>(precision, 0, 300)), x);
    double rounded = std::strtod(buf, nullptr);
    if (precision < 0) {
      const double p = std::pow(10.0, static_cast<double>(-precision));
      rounded = std::nearbyint(x / p) * p;
    }
    return Value::floating(rounded);
  }
  const double p = std::pow(10.0, static_cast<double>(precision));
  const double x = v.as_float() * p;
  return Value::floating((method == "ceil" ? std::ceil(x) : std::floor(x)) / p);
}

Value f_escape(Renderer&, const Value& v, CallArgs&) {
  if (v.is_markup()) return v;
  return Value::string(html_escape(to_str(v)), true);
}

Value f_safe(Renderer&, const Value& v, CallArgs&) { return Value::string(to_str(v), true); }

Value f_indent(Renderer& r, const Value& v, CallArgs& a) {
  const Value* width_v = arg(a, 0, "width");
  const bool first = flag(a, 1, "first");
  const bool blank = flag(a, 2, "blank");
  std::string indention = "    ";
  if (width_v) {
    if (width_v->is_string()) {
      indention = width_v->str();
    } else if (width_v->is_integral()) {
      const int64_t w = width_v->as_int();
      r.check_size(static_cast<size_t>(std::max<int64_t>(w, 0)));
      indention = std::string(static_cast<size_t>(std::max<int64_t>(w, 0)), ' ');
    } else {
      r.runtime_error("width must be an int or a str");
    }
  }
  std::string s = to_str(v) + "\n";
  const std::vector<std::string> lines = py_splitlines(s);
  std::string out;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) out += "\n" + indention;
      out += lines[i];
    }
  } else {
    out = lines.empty() ? "" : lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      out += "\n";
      if (!lines[i].empty()) out += indention;
      out += lines[i];
    }
  }
  if (first) out = indention + out;
  r.check_size(out.size());
  return Value::string(std::move(out));
}

Value f_wordcount(Renderer&, const Value& v, CallArgs&) {
  int64_t n = 0;
  bool in_word = false;
  for (char32_t c : utf8_decode(to_str(v))) {
    const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    const bool w = c == '_' || (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
                   (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO);  // Python's \w
    if (w && !in_word) ++n;
    in_word = w;
  }
  return Value::integer(n);
}

Value f_batch(Renderer& r, const Value& v, CallArgs& a) {
  const Value* count_v = arg(a, 0, "linecount");
  const Value* fill = arg(a, 1, "fill_with");
  if (!count_v || !count_v->is_integral() || count_v->as_int() <= 0) r.runtime_error("batch needs a positive line count");
  const auto n = static_cast<size_t>(count_v->as_int());
  List out, cur;
  for (const auto& item : iterate(v)) {
    cur.push_back(item);
    if (cur.size() == n) {
      out.push_back(Value::list(std::move(cur)));
      cur.clear();
    }
  }
  if (!cur.empty()) {
    if (fill && !fill->is_none())
      while (cur.size() < n) cur.push_back(*fill);
    out.push_back(Value::list(std::move(cur)));
  }
  return Value::generator(std::move(out));
}

Value f_sum(Renderer& r, const Value& v, CallArgs& a) {
  const Value* attribute = arg(a, 0, "attribute");
  const Value* start = arg(a, 1, "start");
  Value total = start ? *start : Value::integer(0);
  for (const auto& item : iterate(v)) {
    const Value x = attribute && !attribute->is_none() ? attribute_of(r, item, *attribute) : item;
    if (!total.is_number() || !x.is_number()) r.runtime_error(std::string("unsupported operand type(s) for +: '") + total.type_name() + "' and '" + x.type_name() + "'");
    if (total.is_float() || x.is_float()) {
      total = Value::floating(total.as_float() + x.as_float());
    } else {
      int64_t s;
      if (__builtin_add_overflow(total.as_int(), x.as_int(), &s)) r.runtime_error("integer overflow");
      total = Value::integer(s);
    }
  }
  return total;
}

Value min_max(Renderer& r, const Value& v, CallArgs& a, bool want_max) {
  const bool case_sensitive = flag(a, 0, "case_sensitive");
  const Value* attribute = arg(a, 1, "attribute");
  List items = iterate(v);
  if (items.empty()) return Value::undefined(want_max ? "max" : "min");
  size_t best = 0;
  Value best_key = sort_key(attribute && !attribute->is_none() ? attribute_of(r, items[0], *attribute) : items[0], case_sensitive);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = sort_key(attribute && !attribute->is_none() ? attribute_of(r, items[i], *attribute) : items[i], case_sensitive);
    if (want_max ? python_less(best_key, k) : python_less(k, best_key)) {
      best = i;
      best_key = k;
    }
  }
  return items[best];
}
Value f_max(Renderer& r, const Value& v, CallArgs& a) { return min_max(r, v, a, true); }
Value f_min(Renderer& r, const Value& v, CallArgs& a) { return min_max(r, v, a, false); }

Value f_center(Renderer& r, const Value& v, CallArgs& a) {
  const Value* width_v = arg(a, 0, "width");
  const int64_t width = width_v ? width_v->as_int() : 80;
  r.check_size(static_cast<size_t>(std::max<int64_t>(width, 0)));
  const std::string s = to_str(v);
  const auto n = static_cast<int64_t>(utf8_length(s));
  if (width <= n) return Value::string(s);
  const int64_t pad = width - n;
  const int64_t left = pad / 2 + (pad & width & 1);
  return Value::string(std::string(static_cast<size_t>(left), ' ') + s + std::string(static_cast<size_t>(pad - left), ' '));
}

Value f_format(Renderer& r, const Value& v, CallArgs& a) {
  if (!a.keyword.empty()) r.runtime_error("format with keyword arguments is not supported");
  return Value::string(percent_format(r, to_str(v), Value::tuple(a.positional)));
}

Value f_attr(Renderer& r, const Value& v, CallArgs& a) {
  const Value* name = arg(a, 0, "name");
  if (!name) r.runtime_error("attr() needs a name");
  return r.getattr(v, to_str(*name));
}

// ---- tests ----

Value t_defined(Renderer&, const Value& v, CallArgs&) { return Value::boolean(!v.is_undefined()); }
Value t_undefined(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_undefined()); }
Value t_none(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_none()); }
Value t_string(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_string()); }
Value t_number(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_number()); }
Value t_integer(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_int()); }
Value t_float(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_float()); }
Value t_mapping(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_dict()); }
Value t_boolean(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_bool()); }
Value t_true(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_bool() && v.as_bool()); }
Value t_false(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_bool() && !v.as_bool()); }
Value t_callable(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_callable()); }
Value t_escaped(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_markup()); }
Value t_iterable(Renderer&, const Value& v, CallArgs&) {
  return Value::boolean(v.is_undefined() || v.is_string() || v.is_sequence_list() || v.is_dict() || v.is_loop() ||
                        v.is_generator());
}
Value t_sequence(Renderer&, const Value& v, CallArgs&) {
  return Value::boolean(v.is_undefined() || v.is_string() || v.is_sequence_list() || v.is_dict());
}

int64_t mod_of(Renderer& r, const Value& v, int64_t m) {
  if (v.is_undefined()) r.runtime_error("'" + v.undefined_name() + "' is undefined");
  if (v.is_float()) return static_cast<int64_t>(std::fmod(v.as_float(), static_cast<double>(m)) != 0);
  if (!v.is_integral()) r.runtime_error(std::string("unsupported operand type(s) for %: '") + v.type_name() + "' and 'int'");
  const int64_t x = v.as_int() % m;
  return x;
}
Value t_odd(Renderer& r, const Value& v, CallArgs&) { return Value::boolean(mod_of(r, v, 2) != 0); }
Value t_even(Renderer& r, const Value& v, CallArgs&) { return Value::boolean(mod_of(r, v, 2) == 0); }
Value t_divisibleby(Renderer& r, const Value& v, CallArgs& a) {
  const Value* n = arg(a, 0, "num");
  if (!n || !n->is_number()) r.runtime_error("divisibleby needs a number");
  if (n->is_integral() && v.is_integral()) {
    if (n->as_int() == 0) r.runtime_error("integer modulo by zero");
    return Value::boolean(v.as_int() % n->as_int() == 0);
  }
  if (n->as_float() == 0) r.runtime_error("float modulo");
  if (!v.is_number()) r.runtime_error("unsupported operand type(s) for %");
  return Value::boolean(std::fmod(v.as_float(), n->as_float()) == 0);
}

const Value& other(Renderer& r, CallArgs& a) {
  const Value* o = arg(a, 0, "other");
  if (!o) r.runtime_error("test needs an argument");
  return *o;
}
bool orderable(const Value& a, const Value& b) {
  return (a.is_number() && b.is_number()) || (a.is_string() && b.is_string()) || (a.is_list() && b.is_list()) ||
         (a.is_tuple() && b.is_tuple());
}
void need_orderable(Renderer& r, const Value& a, const Value& b) {
  if (!orderable(a, b)) r.runtime_error(std::string("'<' not supported between instances of '") + a.type_name() + "' and '" + b.type_name() + "'");
}
Value t_eq(Renderer& r, const Value& v, CallArgs& a) { return Value::boolean(python_equal(v, other(r, a))); }
Value t_ne(Renderer& r, const Value& v, CallArgs& a) { return Value::boolean(!python_equal(v, other(r, a))); }
Value t_lt(Renderer& r, const Value& v, CallArgs& a) {
  need_orderable(r, v, other(r, a));
  return Value::boolean(python_less(v, other(r, a)));
}
Value t_le(Renderer& r, const Value& v, CallArgs& a) {
  need_orderable(r, v, other(r, a));
  return Value::boolean(!python_less(other(r, a), v));
}
Value t_gt(Renderer& r, const Value& v, CallArgs& a) {
  need_orderable(r, v, other(r, a));
  return Value::boolean(python_less(other(r, a), v));
}
Value t_ge(Renderer& r, const Value& v, CallArgs& a) {
  need_orderable(r, v, other(r, a));
  return Value::boolean(!python_less(v, other(r, a)));
}
Value t_in(Renderer& r, const Value& v, CallArgs& a) { return Value::boolean(contains(r, other(r, a), v)); }
Value t_sameas(Renderer& r, const Value& v, CallArgs& a) {
  const Value& o = other(r, a);
  if (v.is_none() || o.is_none()) return Value::boolean(v.is_none() && o.is_none());
  if (v.is_bool() || o.is_bool()) return Value::boolean(v.is_bool() && o.is_bool() && v.as_bool() == o.as_bool());
  return Value::boolean(false);
}
Value t_lower(Renderer&, const Value& v, CallArgs&) {
  const std::string s = to_str(v);
  return Value::boolean(py_lower(s) == s && py_upper(s) != s);
}
Value t_upper(Renderer&, const Value& v, CallArgs&) {
  const std::string s = to_str(v);
  return Value::boolean(py_upper(s) == s && py_lower(s) != s);
}
Value t_filter(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_string() && find_filter(v.str()) != nullptr); }
Value t_test(Renderer&, const Value& v, CallArgs&) { return Value::boolean(v.is_string() && find_test(v.str()) != nullptr); }

struct Entry {
  std::string_view name;
  FilterFn fn;
};

const Entry kFilters[] = {
    {"abs", f_abs},           {"attr", f_attr},         {"batch", f_batch},         {"capitalize", f_capitalize},
    {"center", f_center},     {"count", f_length},      {"d", f_default},           {"default", f_default},
    {"dictsort", f_dictsort}, {"e", f_escape},          {"escape", f_escape},       {"first", f_first},
    {"float", f_float},       {"format", f_format},     {"indent", f_indent},       {"int", f_int},
    {"items", f_items},       {"join", f_join},         {"last", f_last},           {"length", f_length},
    {"list", f_list},         {"lower", f_lower},       {"map", f_map},             {"max", f_max},
    {"min", f_min},           {"reject", f_reject},     {"rejectattr", f_rejectattr}, {"replace", f_replace},
    {"reverse", f_reverse},   {"round", f_round},       {"safe", f_safe},           {"select", f_select},
    {"selectattr", f_selectattr}, {"sort", f_sort},     {"string", f_string},       {"sum", f_sum},
    {"title", f_title},       {"tojson", f_tojson},     {"trim", f_trim},           {"unique", f_unique},
    {"upper", f_upper},       {"wordcount", f_wordcount},
};

const Entry kTests[] = {
    {"boolean", t_boolean}, {"callable", t_callable}, {"defined", t_defined},   {"divisibleby", t_divisibleby},
    {"eq", t_eq},           {"equalto", t_eq},        {"==", t_eq},             {"escaped", t_escaped},
    {"even", t_even},       {"false", t_false},       {"filter", t_filter},     {"float", t_float},
    {"ge", t_ge},           {">=", t_ge},             {"gt", t_gt},             {"greaterthan", t_gt},
    {">", t_gt},            {"in", t_in},             {"integer", t_integer},   {"iterable", t_iterable},
    {"le", t_le},           {"<=", t_le},             {"lower", t_lower},       {"lt", t_lt},
    {"lessthan", t_lt},     {"<", t_lt},              {"mapping", t_mapping},   {"ne", t_ne},
    {"!=", t_ne},           {"none", t_none},         {"number", t_number},     {"odd", t_odd},
    {"sameas", t_sameas},   {"sequence", t_sequence}, {"string", t_string},     {"test", t_test},
    {"true", t_true},       {"undefined", t_undefined}, {"upper", t_upper},
};

}  // namespace

FilterFn find_filter(std::string_view name) {
  for (const auto& e : kFilters)
    if (e.name == name) return e.fn;
  return nullptr;
}

FilterFn find_test(std::string_view name) {
  for (const auto& e : kTests)
    if (e.name == name) return e.fn;
  return nullptr;
}

}  // namespace ninfer::jinja
