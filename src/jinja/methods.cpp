#include "jinja/methods.h"

#include <algorithm>
#include <cstdio>

#include <utf8proc.h>

#include "jinja/utf8.h"

namespace ninfer::jinja {

namespace {

using MethodFn = Value (*)(Renderer& r, const Value& self, CallArgs& args);

struct BoundMethod : Callable {
  Value self;
  MethodFn fn = nullptr;
  Value call(Renderer& r, CallArgs& args) const override { return fn(r, self, args); }
};

const Value* arg(const CallArgs& a, size_t i, std::string_view name) {
  if (i < a.positional.size()) return &a.positional[i];
  return a.kwarg(name);
}

const std::string& need_str(Renderer& r, const Value* v, const char* what) {
  if (!v || !v->is_string()) r.runtime_error(std::string(what) + " must be str, not " + (v ? v->type_name() : "nothing"));
  return v->str();
}

int64_t opt_int(Renderer& r, const Value* v, int64_t dflt) {
  if (!v || v->is_none()) return dflt;
  if (!v->is_integral()) r.runtime_error(std::string("'") + v->type_name() + "' object cannot be interpreted as an integer");
  return v->as_int();
}

// Code point range [start, end) of a Python str.find-style (start, end) pair, clamped.
void py_range(int64_t n, const Value* start, const Value* end, Renderer& r, int64_t& lo, int64_t& hi) {
  lo = opt_int(r, start, 0);
  hi = opt_int(r, end, n);
  if (lo < 0) lo = std::max<int64_t>(0, lo + n);
  if (hi < 0) hi = std::max<int64_t>(0, hi + n);
  hi = std::min(hi, n);
}

std::u32string substr32(const std::u32string& s, int64_t lo, int64_t hi) {
  if (hi <= lo) return {};
  return s.substr(static_cast<size_t>(lo), static_cast<size_t>(hi - lo));
}

Value str_affix(Renderer& r, const Value& self, CallArgs& a, bool prefix) {
  const Value* what = arg(a, 0, "");
  if (!what) r.runtime_error("startswith/endswith takes at least 1 argument");
  const std::u32string s = utf8_decode(self.str());
  int64_t lo, hi;
  py_range(static_cast<int64_t>(s.size()), arg(a, 1, ""), arg(a, 2, ""), r, lo, hi);
  const std::u32string part = substr32(s, lo, hi);
  auto test = [&](const Value& v) {
    const std::u32string x = utf8_decode(need_str(r, &v, prefix ? "startswith first arg" : "endswith first arg"));
    if (lo > static_cast<int64_t>(s.size())) return false;
    if (x.size() > part.size()) return false;
    return prefix ? part.compare(0, x.size(), x) == 0 : part.compare(part.size() - x.size(), x.size(), x) == 0;
  };
  if (what->is_tuple()) {
    for (const auto& v : what->items())
      if (test(v)) return Value::boolean(true);
    return Value::boolean(false);
  }
  return Value::boolean(test(*what));
}

Value str_find(Renderer& r, const Value& self, CallArgs& a, bool reverse, bool raise) {
  const std::u32string s = utf8_decode(self.str());
  const std::u32string sub = utf8_decode(need_str(r, arg(a, 0, ""), "must be str"));
  int64_t lo, hi;
  py_range(static_cast<int64_t>(s.size()), arg(a, 1, ""), arg(a, 2, ""), r, lo, hi);
  int64_t found = -1;
  if (hi - lo >= static_cast<int64_t>(sub.size())) {
    const std::u32string part = substr32(s, lo, hi);
    const size_t p = reverse ? part.rfind(sub) : part.find(sub);
    if (p != std::u32string::npos) found = lo + static_cast<int64_t>(p);
  }
  if (found < 0 && raise) r.runtime_error("substring not found");
  return Value::integer(found);
}

Value str_count(Renderer& r, const Value& self, CallArgs& a) {
  const std::u32string s = utf8_decode(self.str());
  const std::u32string sub = utf8_decode(need_str(r, arg(a, 0, ""), "must be str"));
  int64_t lo, hi;
  py_range(static_cast<int64_t>(s.size()), arg(a, 1, ""), arg(a, 2, ""), r, lo, hi);
  if (hi - lo < static_cast<int64_t>(sub.size())) return Value::integer(0);
  const std::u32string part = substr32(s, lo, hi);
  if (sub.empty()) return Value::integer(static_cast<int64_t>(part.size()) + 1);
  int64_t n = 0;
  for (size_t p = part.find(sub); p != std::u32string::npos; p = part.find(sub, p + sub.size())) ++n;
  return Value::integer(n);
}

Value str_strip_method(Renderer& r, const Value& self, CallArgs& a, bool left, bool right) {
  const Value* chars = arg(a, 0, "chars");
  if (chars && !chars->is_none() && !chars->is_string()) r.runtime_error("strip arg must be None or str");
  const std::string* c = chars && chars->is_string() ? &chars->str() : nullptr;
  return Value::string(py_strip(self.str(), c, left, right));
}

Value str_join(Renderer& r, const Value& self, CallArgs& a) {
  const Value* it = arg(a, 0, "iterable");
  if (!it) r.runtime_error("join() takes exactly one argument");
  std::string out;
  bool first = true;
  for (const auto& v : iterate(*it)) {
    if (!v.is_string()) r.runtime_error(std::string("sequence item: expected str instance, ") + v.type_name() + " found");
    if (!first) out += self.str();
    first = false;
    out += v.str();
    r.check_size(out.size());
  }
  return Value::string(std::move(out));
}

Value str_pad(Renderer& r, const Value& self, CallArgs& a, int mode) {  // 0 center, 1 ljust, 2 rjust
  const int64_t width = opt_int(r, arg(a, 0, "width"), 0);
  const Value* fill = arg(a, 1, "fillchar");
  std::string f = fill ? need_str(r, fill, "fillchar") : " ";
  r.check_size(static_cast<size_t>(std::max<int64_t>(width, 0)) * f.size());
  const auto n = static_cast<int64_t>(utf8_length(self.str()));
  if (width <= n) return Value::string(self.str());
  const int64_t pad = width - n;
  int64_t left = mode == 1 ? 0 : mode == 2 ? pad : pad / 2 + (pad & width & 1);
  int64_t right = pad - left;
  std::string out;
  for (int64_t i = 0; i < left; ++i) out += f;
  out += self.str();
  for (int64_t i = 0; i < right; ++i) out += f;
  return Value::string(std::move(out));
}

template <bool (*Pred)(char32_t)>
Value str_is(const Value& self) {
  const std::u32string s = utf8_decode(self.str());
  if (s.empty()) return Value::boolean(false);
  for (char32_t c : s)
    if (!Pred(c)) return Value::boolean(false);
  return Value::boolean(true);
}

bool is_alpha(char32_t c) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO;
}
bool is_digit_cp(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_ND; }
bool is_alnum(char32_t c) { return is_alpha(c) || is_digit_cp(c); }
bool is_cased(char32_t c) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT;
}

Value str_case_test(const Value& self, bool upper) {
  bool cased = false;
  for (char32_t c : utf8_decode(self.str())) {
    const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    if (cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LT) {
      if (!upper) return Value::boolean(false);
      cased = true;
    } else if (cat == UTF8PROC_CATEGORY_LL) {
      if (upper) return Value::boolean(false);
      cased = true;
    }
  }
  return Value::boolean(cased);
}

struct MethodEntry {
  const char* name;
  MethodFn fn;
};

const MethodEntry kStrMethods[] = {
    {"startswith", [](Renderer& r, const Value& s, CallArgs& a) { return str_affix(r, s, a, true); }},
    {"endswith", [](Renderer& r, const Value& s, CallArgs& a) { return str_affix(r, s, a, false); }},
    {"strip", [](Renderer& r, const Value& s, CallArgs& a) { return str_strip_method(r, s, a, true, true); }},
    {"lstrip", [](Renderer& r, const Value& s, CallArgs& a) { return str_strip_method(r, s, a, true, false); }},
    {"rstrip", [](Renderer& r, const Value& s, CallArgs& a) { return str_strip_method(r, s, a, false, true); }},
    {"split",
     [](Renderer& r, const Value& s, CallArgs& a) {
       const Value* sep = arg(a, 0, "sep");
       return Value::list(py_split(r, s.str(), sep ? *sep : Value::none(), opt_int(r, arg(a, 1, "maxsplit"), -1), false));
     }},
    {"rsplit",
     [](Renderer& r, const Value& s, CallArgs& a) {
       const Value* sep = arg(a, 0, "sep");
       return Value::list(py_split(r, s.str(), sep ? *sep : Value::none(), opt_int(r, arg(a, 1, "maxsplit"), -1), true));
     }},
    {"upper", [](Renderer&, const Value& s, CallArgs&) { return Value::string(py_upper(s.str())); }},
    {"lower", [](Renderer&, const Value& s, CallArgs&) { return Value::string(py_lower(s.str())); }},
    {"casefold", [](Renderer&, const Value& s, CallArgs&) { return Value::string(py_lower(s.str())); }},
    {"title", [](Renderer&, const Value& s, CallArgs&) { return Value::string(py_title(s.str())); }},
    {"capitalize", [](Renderer&, const Value& s, CallArgs&) { return Value::string(py_capitalize(s.str())); }},
    {"replace",
     [](Renderer& r, const Value& s, CallArgs& a) {
       const std::string& old = need_str(r, arg(a, 0, "old"), "replace() argument 1");
       const std::string& repl = need_str(r, arg(a, 1, "new"), "replace() argument 2");
       std::string out = py_replace(s.str(), old, repl, opt_int(r, arg(a, 2, "count"), -1));
       r.check_size(out.size());
       return Value::string(std::move(out));
     }},
    {"find", [](Renderer& r, const Value& s, CallArgs& a) { return str_find(r, s, a, false, false); }},
    {"rfind", [](Renderer& r, const Value& s, CallArgs& a) { return str_find(r, s, a, true, false); }},
    {"index", [](Renderer& r, const Value& s, CallArgs& a) { return str_find(r, s, a, false, true); }},
    {"rindex", [](Renderer& r, const Value& s, CallArgs& a) { return str_find(r, s, a, true, true); }},
    {"count", str_count},
    {"join", str_join},
    {"center", [](Renderer& r, const Value& s, CallArgs& a) { return str_pad(r, s, a, 0); }},
    {"ljust", [](Renderer& r, const Value& s, CallArgs& a) { return str_pad(r, s, a, 1); }},
    {"rjust", [](Renderer& r, const Value& s, CallArgs& a) { return str_pad(r, s, a, 2); }},
    {"splitlines",
     [](Renderer&, const Value& s, CallArgs&) {
       List out;
       for (auto& line : py_splitlines(s.str())) out.push_back(Value::string(std::move(line)));
       return Value::list(std::move(out));
     }},
    {"isdigit", [](Renderer&, const Value& s, CallArgs&) { return str_is<is_digit_cp>(s); }},
    {"isnumeric", [](Renderer&, const Value& s, CallArgs&) { return str_is<is_digit_cp>(s); }},
    {"isdecimal", [](Renderer&, const Value& s, CallArgs&) { return str_is<is_digit_cp>(s); }},
    {"isalpha", [](Renderer&, const Value& s, CallArgs&) { return str_is<is_alpha>(s); }},
    {"isalnum", [](Renderer&, const Value& s, CallArgs&) { return str_is<is_alnum>(s); }},
    {"isspace", [](Renderer&, const Value& s, CallArgs&) { return str_is<py_isspace>(s); }},
    {"islower", [](Renderer&, const Value& s, CallArgs&) { return str_case_test(s, false); }},
    {"isupper", [](Renderer&, const Value& s, CallArgs&) { return str_case_test(s, true); }},
    {"zfill",
     [](Renderer& r, const Value& s, CallArgs& a) {
       const int64_t width = opt_int(r, arg(a, 0, "width"), 0);
       r.check_size(static_cast<size_t>(std::max<int64_t>(width, 0)));
       const auto n = static_cast<int64_t>(utf8_length(s.str()));
       if (width <= n) return Value::string(s.str());
       std::string body = s.str();
       std::string sign;
       if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
         sign = body.substr(0, 1);
         body.erase(0, 1);
       }
       return Value::string(sign + std::string(static_cast<size_t>(width - n), '0') + body);
     }},
};

const MethodEntry kDictMethods[] = {
    {"items",
     [](Renderer&, const Value& d, CallArgs&) {
       List out;
       for (const auto& [k, v] : d.dict().entries) out.push_back(Value::tuple({k, v}));
       return Value::list(std::move(out));
     }},
    {"keys",
     [](Renderer&, const Value& d, CallArgs&) {
       List out;
       for (const auto& [k, v] : d.dict().entries) out.push_back(k);
       return Value::list(std::move(out));
     }},
    {"values",
     [](Renderer&, const Value& d, CallArgs&) {
       List out;
       for (const auto& [k, v] : d.dict().entries) out.push_back(v);
       return Value::list(std::move(out));
     }},
    {"get",
     [](Renderer& r, const Value& d, CallArgs& a) {
       if (a.positional.empty()) r.runtime_error("get expected at least 1 argument, got 0");
       if (const Value* v = d.dict().find(a.positional[0])) return *v;
       return a.positional.size() > 1 ? a.positional[1] : Value::none();
     }},
    {"copy", [](Renderer&, const Value& d, CallArgs&) { return d; }},
};

const MethodEntry kListMethods[] = {
    {"index",
     [](Renderer& r, const Value& l, CallArgs& a) {
       if (a.positional.empty()) r.runtime_error("index expected at least 1 argument, got 0");
       const auto& items = l.items();
       for (size_t i = 0; i < items.size(); ++i)
         if (python_equal(items[i], a.positional[0])) return Value::integer(static_cast<int64_t>(i));
       r.runtime_error(to_repr(a.positional[0]) + " is not in list");
     }},
    {"count",
     [](Renderer& r, const Value& l, CallArgs& a) {
       if (a.positional.empty()) r.runtime_error("count() takes exactly one argument (0 given)");
       int64_t n = 0;
       for (const auto& v : l.items()) n += python_equal(v, a.positional[0]);
       return Value::integer(n);
     }},
    {"copy", [](Renderer&, const Value& l, CallArgs&) { return l; }},
};

const char* const kBlockedListMethods[] = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"};
const char* const kBlockedDictMethods[] = {"pop", "popitem", "setdefault", "update", "clear"};

template <size_t N>
Value bind(const MethodEntry (&table)[N], const Value& self, const std::string& name) {
  for (const auto& m : table) {
    if (name == m.name) {
      auto b = std::make_shared<BoundMethod>();
      b->name = name;
      b->self = self;
      b->fn = m.fn;
      return Value::callable(std::move(b));
    }
  }
  return Value::undefined(name);
}

int64_t slice_index(Renderer& r, const Value& v) {
  if (v.is_integral()) return v.as_int();
  r.runtime_error("slice indices must be integers or None or have an __index__ method");
}

}  // namespace

bool has_method(const Value& self, const std::string& name) {
  auto in = [&](const auto& table) {
    for (const auto& m : table)
      if (name == m.name) return true;
    return false;
  };
  auto in_names = [&](const auto& names) {
    for (const char* b : names)
      if (name == b) return true;
    return false;
  };
  if (self.is_string()) return in(kStrMethods);
  if (self.is_dict()) return in(kDictMethods) || in_names(kBlockedDictMethods);
  if (self.is_sequence_list()) return in(kListMethods) || (self.is_list() && in_names(kBlockedListMethods));
  return false;
}

Value find_method(const Value& self, const std::string& name) {
  if (self.is_string()) return bind(kStrMethods, self, name);
  if (self.is_dict()) {
    for (const char* b : kBlockedDictMethods)
      if (name == b) return Value::undefined(name, true);
    return bind(kDictMethods, self, name);
  }
  if (self.is_sequence_list()) {
    if (self.is_list()) {
      for (const char* b : kBlockedListMethods)
        if (name == b) return Value::undefined(name, true);
    }
    return bind(kListMethods, self, name);
  }
  return Value::undefined(name);
}

Value loop_attribute(Renderer&, const Value& loop, const std::string& name) {
  const LoopState& l = loop.loop();
  const auto n = static_cast<int64_t>(l.items->size());
  const auto i = static_cast<int64_t>(l.index0);
  if (name == "index") return Value::integer(i + 1);
  if (name == "index0") return Value::integer(i);
  if (name == "revindex") return Value::integer(n - i);
  if (name == "revindex0") return Value::integer(n - i - 1);
  if (name == "first") return Value::boolean(i == 0);
  if (name == "last") return Value::boolean(i == n - 1);
  if (name == "length") return Value::integer(n);
  if (name == "depth") return Value::integer(static_cast<int64_t>(l.depth0) + 1);
  if (name == "depth0") return Value::integer(static_cast<int64_t>(l.depth0));
  if (name == "previtem") return i > 0 ? (*l.items)[static_cast<size_t>(i - 1)] : Value::undefined("previtem");
  if (name == "nextitem") return i + 1 < n ? (*l.items)[static_cast<size_t>(i + 1)] : Value::undefined("nextitem");
  if (name == "cycle") {
    struct Cycle : Callable {
      size_t index0 = 0;
      Value call(Renderer& r, CallArgs& args) const override {
        if (args.positional.empty()) r.runtime_error("no items for cycling given");
        return args.positional[index0 % args.positional.size()];
      }
    };
    auto c = std::make_shared<Cycle>();
    c->name = "cycle";
    c->index0 = l.index0;
    return Value::callable(std::move(c));
  }
  return Value::undefined(name);
}

Value slice_value(Renderer& r, const Value& obj, const Value& start_v, const Value& stop_v, const Value& step_v) {
  const bool is_str = obj.is_string();
  if (!is_str && !obj.is_sequence_list()) {
    if (obj.is_none() || obj.is_number()) r.runtime_error(std::string("'") + obj.type_name() + "' object is not subscriptable");
    return Value::undefined();
  }
  std::u32string cps;
  if (is_str) cps = utf8_decode(obj.str());
  const int64_t len = is_str ? static_cast<int64_t>(cps.size()) : static_cast<int64_t>(obj.items().size());
  const int64_t step = step_v.is_none() ? 1 : slice_index(r, step_v);
  if (step == 0) r.runtime_error("slice step cannot be zero");
  const int64_t lower = step < 0 ? -1 : 0;
  const int64_t upper = step < 0 ? len - 1 : len;
  auto clamp = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t x = slice_index(r, v);
    if (x < 0) {
      x += len;
      if (x < lower) x = lower;
    } else if (x > upper) {
      x = upper;
    }
    return x;
  };
  const int64_t start = clamp(start_v, step < 0 ? upper : lower);
  const int64_t stop = clamp(stop_v, step < 0 ? lower : upper);
  if (is_str) {
    std::u32string out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(cps[static_cast<size_t>(i)]);
    return Value::string(utf8_encode(out));
  }
  List out;
  const auto& items = obj.items();
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(items[static_cast<size_t>(i)]);
  return obj.is_list() ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

bool contains(Renderer& r, const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::String:
      if (!item.is_string()) r.runtime_error(std::string("'in <string>' requires string as left operand, not ") + item.type_name());
      return container.str().find(item.str()) != std::string::npos;
    case Value::Kind::List:
    case Value::Kind::Tuple:
    case Value::Kind::Generator:
      for (const auto& v : container.items())
        if (python_equal(v, item)) return true;
      return false;
    case Value::Kind::Dict:
      if (item.is_list() || item.is_dict()) r.runtime_error(std::string("unhashable type: '") + item.type_name() + "'");
      return container.dict().find(item) != nullptr;
    case Value::Kind::Undefined:
      return false;
    case Value::Kind::Loop:
      for (const auto& v : *container.loop().items)
        if (python_equal(v, item)) return true;
      return false;
    default:
      r.runtime_error(std::string("argument of type '") + container.type_name() + "' is not iterable");
  }
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string percent_format(Renderer& r, const std::string& fmt, const Value& args) {
  List values = args.is_tuple() ? args.items() : List{args};
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (++i >= fmt.size()) r.runtime_error("incomplete format");
    const char c = fmt[i];
    if (c == '%') {
      out.push_back('%');
      continue;
    }
    if (next >= values.size()) r.runtime_error("not enough arguments for format string");
    const Value& v = values[next++];
    if (c == 's') {
      append_str(out, v);
    } else if (c == 'r') {
      append_repr(out, v);
    } else if (c == 'd' || c == 'i') {
      if (!v.is_number()) r.runtime_error(std::string("%d format: a real number is required, not ") + v.type_name());
      out += std::to_string(v.is_float() ? static_cast<int64_t>(v.as_float()) : v.as_int());
    } else if (c == 'f') {
      if (!v.is_number()) r.runtime_error(std::string("must be real number, not ") + v.type_name());
      char buf[64];
      std::snprintf(buf, sizeof buf, "%f", v.as_float());
      out += buf;
    } else {
      r.runtime_error(std::string("unsupported format character '") + c + "'");
    }
    r.check_size(out.size());
  }
  if (next < values.size() && (args.is_tuple() || next == 0)) r.runtime_error("not all arguments converted during string formatting");
  return out;
}

bool py_isspace(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::string py_strip(std::string_view s, const std::string* chars, bool left, bool right) {
  if (!chars && is_ascii(s)) {
    size_t b = 0, e = s.size();
    auto sp = [](char c) { return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F); };
    if (left)
      while (b < e && sp(s[b])) ++b;
    if (right)
      while (e > b && sp(s[e - 1])) --e;
    return std::string(s.substr(b, e - b));
  }
  const std::u32string cps = utf8_decode(s);
  const std::u32string set = chars ? utf8_decode(*chars) : std::u32string();
  auto strip_it = [&](char32_t c) { return chars ? set.find(c) != std::u32string::npos : py_isspace(c); };
  size_t b = 0, e = cps.size();
  if (left)
    while (b < e && strip_it(cps[b])) ++b;
  if (right)
    while (e > b && strip_it(cps[e - 1])) --e;
  return utf8_encode(std::u32string_view(cps).substr(b, e - b));
}

List py_split(Renderer& r, const std::string& s, const Value& sep, int64_t maxsplit, bool from_right) {
  List out;
  if (maxsplit < 0) maxsplit = INT64_MAX;
  if (sep.is_none()) {
    std::u32string cps = utf8_decode(s);
    std::vector<std::u32string> parts;
    if (!from_right) {
      size_t i = 0;
      while (true) {
        while (i < cps.size() && py_isspace(cps[i])) ++i;
        if (i >= cps.size()) break;
        if (static_cast<int64_t>(parts.size()) == maxsplit) {
          parts.push_back(cps.substr(i));  // the remainder keeps its trailing whitespace, as in Python
          break;
        }
        size_t j = i;
        while (j < cps.size() && !py_isspace(cps[j])) ++j;
        parts.push_back(cps.substr(i, j - i));
        i = j;
      }
    } else {
      size_t e = cps.size();
      while (true) {
        while (e > 0 && py_isspace(cps[e - 1])) --e;
        if (e == 0) break;
        if (static_cast<int64_t>(parts.size()) == maxsplit) {
          parts.push_back(cps.substr(0, e));
          break;
        }
        size_t j = e;
        while (j > 0 && !py_isspace(cps[j - 1])) --j;
        parts.push_back(cps.substr(j, e - j));
        e = j;
      }
      std::reverse(parts.begin(), parts.end());
    }
    for (const auto& p : parts) out.push_back(Value::string(utf8_encode(p)));
    r.step(out.size());
    return out;
  }
  if (!sep.is_string()) r.runtime_error(std::string("must be str or None, not ") + sep.type_name());
  const std::string& d = sep.str();
  if (d.empty()) r.runtime_error("empty separator");
  std::vector<std::string> parts;
  if (!from_right) {
    size_t i = 0;
    while (static_cast<int64_t>(parts.size()) < maxsplit) {
      const size_t p = s.find(d, i);
      if (p == std::string::npos) break;
      parts.push_back(s.substr(i, p - i));
      i = p + d.size();
    }
    parts.push_back(s.substr(i));
  } else {
    size_t e = s.size();
    int64_t n = 0;
    while (n < maxsplit && e >= d.size()) {
      const size_t p = s.rfind(d, e - d.size());
      if (p == std::string::npos) break;
      parts.push_back(s.substr(p + d.size(), e - p - d.size()));
      e = p;
      ++n;
    }
    parts.push_back(s.substr(0, e));
    std::reverse(parts.begin(), parts.end());
  }
  for (auto& p : parts) out.push_back(Value::string(std::move(p)));
  r.step(out.size());
  return out;
}

std::string py_upper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : utf8_decode(s)) utf8_append(out, static_cast<char32_t>(utf8proc_toupper(static_cast<utf8proc_int32_t>(c))));
  return out;
}

std::string py_lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : utf8_decode(s)) utf8_append(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
  return out;
}

std::string py_title(std::string_view s) {
  std::string out;
  bool prev_cased = false;
  for (char32_t c : utf8_decode(s)) {
    const auto ci = static_cast<utf8proc_int32_t>(c);
    if (prev_cased) {
      utf8_append(out, static_cast<char32_t>(utf8proc_tolower(ci)));
    } else {
      utf8_append(out, static_cast<char32_t>(utf8proc_totitle(ci)));
    }
    prev_cased = is_cased(c);
  }
  return out;
}

std::string py_capitalize(std::string_view s) {
  std::string out;
  bool first = true;
  for (char32_t c : utf8_decode(s)) {
    const auto ci = static_cast<utf8proc_int32_t>(c);
    utf8_append(out, static_cast<char32_t>(first ? utf8proc_totitle(ci) : utf8proc_tolower(ci)));
    first = false;
  }
  return out;
}

std::string py_replace(const std::string& s, const std::string& old, const std::string& repl, int64_t count) {
  if (count < 0) count = INT64_MAX;
  std::string out;
  if (old.empty()) {
    // Python inserts the replacement before every code point and at the end.
    int64_t n = 0;
    size_t i = 0;
    while (i <= s.size()) {
      if (n < count) {
        out += repl;
        ++n;
      }
      if (i == s.size()) break;
      size_t j = i + 1;
      while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
      out.append(s, i, j - i);
      i = j;
    }
    return out;
  }
  size_t i = 0;
  int64_t n = 0;
  while (n < count) {
    const size_t p = s.find(old, i);
    if (p == std::string::npos) break;
    out.append(s, i, p - i);
    out += repl;
    i = p + old.size();
    ++n;
  }
  out.append(s, i, std::string::npos);
  return out;
}

std::vector<std::string> py_splitlines(const std::string& s) {
  std::vector<std::string> lines;
  const std::u32string cps = utf8_decode(s);
  std::u32string cur;
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    const bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E ||
                     c == 0x85 || c == 0x2028 || c == 0x2029;
    if (!brk) {
      cur.push_back(c);
      continue;
    }
    if (c == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n') ++i;
    lines.push_back(utf8_encode(cur));
    cur.clear();
  }
  if (!cur.empty()) lines.push_back(utf8_encode(cur));
  return lines;
}

}  // namespace ninfer::jinja
