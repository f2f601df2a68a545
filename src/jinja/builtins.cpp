#include "jinja/builtins.h"

#include <ctime>
#include <string>

#include "jinja/renderer.h"

namespace ninfer::jinja {

namespace {

constexpr int64_t kMaxRange = 100000;  // the sandbox's MAX_RANGE

template <typename F>
Value make_fn(const char* name, F f) {
  struct Fn : Callable {
    F f;
    explicit Fn(F fn) : f(fn) {}
    Value call(Renderer& r, CallArgs& args) const override { return f(r, args); }
  };
  auto fn = std::make_shared<Fn>(f);
  fn->name = name;
  return Value::callable(std::move(fn));
}

int64_t int_arg(Renderer& r, const Value& v) {
  if (!v.is_integral()) r.runtime_error(std::string("'") + v.type_name() + "' object cannot be interpreted as an integer");
  return v.as_int();
}

Value range_fn(Renderer& r, CallArgs& a) {
  if (!a.keyword.empty()) r.runtime_error("range() takes no keyword arguments");
  const auto& p = a.positional;
  if (p.empty() || p.size() > 3) r.runtime_error("range expected 1 to 3 arguments, got " + std::to_string(p.size()));
  int64_t start = 0, stop = 0, step = 1;
  if (p.size() == 1) {
    stop = int_arg(r, p[0]);
  } else {
    start = int_arg(r, p[0]);
    stop = int_arg(r, p[1]);
    if (p.size() == 3) step = int_arg(r, p[2]);
  }
  if (step == 0) r.runtime_error("range() arg 3 must not be zero");
  // Length as Python computes it, in a wide type so extreme bounds cannot overflow.
  __int128 len = 0;
  if (step > 0 && start < stop) len = ((__int128)stop - start + step - 1) / step;
  if (step < 0 && start > stop) len = ((__int128)start - stop - step - 1) / (-(__int128)step);
  if (len > kMaxRange)
    r.fail(TemplateErrorKind::Limit, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  r.step(static_cast<uint64_t>(len));
  List out;
  out.reserve(static_cast<size_t>(len));
  for (int64_t i = 0, v = start; i < static_cast<int64_t>(len); ++i, v += step) out.push_back(Value::integer(v));
  return Value::list(std::move(out));
}

Value namespace_fn(Renderer& r, CallArgs& a) {
  auto ns = std::make_shared<Namespace>();
  for (const auto& p : a.positional) {
    if (!p.is_dict()) r.runtime_error(std::string("'") + p.type_name() + "' object is not iterable");
    for (const auto& [k, v] : p.dict().entries) ns->set(to_str(k), v);
  }
  for (const auto& [k, v] : a.keyword) ns->set(k, v);
  r.track(ns);
  return Value::namespace_(std::move(ns));
}

Value dict_fn(Renderer& r, CallArgs& a) {
  auto d = std::make_shared<Dict>();
  auto put = [&](const Value& k, const Value& v) {
    for (auto& [ek, ev] : d->entries) {
      if (python_equal(ek, k)) {
        ev = v;
        return;
      }
    }
    d->entries.emplace_back(k, v);
  };
  if (a.positional.size() > 1) r.runtime_error("dict expected at most 1 argument");
  if (!a.positional.empty()) {
    const Value& src = a.positional[0];
    if (src.is_dict()) {
      for (const auto& [k, v] : src.dict().entries) put(k, v);
    } else {
      for (const auto& item : iterate(src)) {
        List kv = iterate(item);
        if (kv.size() != 2) r.runtime_error("dictionary update sequence element has wrong length");
        put(kv[0], kv[1]);
      }
    }
  }
  for (const auto& [k, v] : a.keyword) put(Value::string(k), v);
  return Value::dict(std::move(d));
}

Value raise_fn(Renderer& r, CallArgs& a) {
  const Value msg = !a.positional.empty() ? a.positional[0] : a.kwarg("message") ? *a.kwarg("message") : Value::none();
  r.fail(TemplateErrorKind::Raised, to_str(msg));
}

Value strftime_fn(Renderer& r, CallArgs& a) {
  if (a.positional.empty() || !a.positional[0].is_string()) r.runtime_error("strftime_now() needs a format string");
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  const std::string& fmt = a.positional[0].str();
  if (fmt.empty()) return Value::string("");
  std::string buf(fmt.size() * 4 + 64, '\0');
  const size_t n = std::strftime(buf.data(), buf.size(), fmt.c_str(), &tm);
  buf.resize(n);
  return Value::string(std::move(buf));
}

Value joiner_fn(Renderer&, CallArgs& a) {
  struct Joiner : Callable {
    std::string sep;
    mutable bool used = false;
    Value call(Renderer&, CallArgs&) const override {
      if (!used) {
        used = true;
        return Value::string("");
      }
      return Value::string(sep);
    }
  };
  auto j = std::make_shared<Joiner>();
  j->name = "joiner";
  const Value* sep = !a.positional.empty() ? &a.positional[0] : a.kwarg("sep");
  j->sep = sep ? to_str(*sep) : ", ";
  return Value::callable(std::move(j));
}

}  // namespace

Value global_function(std::string_view name) {
  static const Value range = make_fn("range", range_fn);
  static const Value ns = make_fn("namespace", namespace_fn);
  static const Value dict = make_fn("dict", dict_fn);
  static const Value raise = make_fn("raise_exception", raise_fn);
  static const Value strftime = make_fn("strftime_now", strftime_fn);
  static const Value joiner = make_fn("joiner", joiner_fn);
  if (name == "range") return range;
  if (name == "namespace") return ns;
  if (name == "dict") return dict;
  if (name == "raise_exception") return raise;
  if (name == "strftime_now") return strftime;
  if (name == "joiner") return joiner;
  return Value::undefined();
}

}  // namespace ninfer::jinja
