// The values templates compute with, modelled on the Python objects Jinja2 hands around: undefined, None, bool,
// int, float, str (optionally Markup), list, tuple, dict (insertion-ordered), namespace, callables and the loop
// object. Lists, tuples and dicts are immutable (the sandbox forbids mutating them), so values share them freely;
// a namespace is the one mutable object.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ninfer::jinja {

class Value;
class Renderer;
using List = std::vector<Value>;

struct Dict;
struct Namespace;
struct Callable;
struct LoopState;

class Value {
 public:
  // Generator: what map/select/reject/items/batch return in Jinja2: iterable once, no len(), no indexing, always true.
  enum class Kind : uint8_t { Undefined, None, Bool, Int, Float, String, List, Tuple, Dict, Namespace, Callable, Loop, Generator };

  Value() = default;
  static Value none() { return Value(Kind::None); }
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value floating(double f);
  static Value string(std::string s, bool markup = false);
  static Value list(List items);
  static Value tuple(List items);
  static Value generator(List items);
  static Value dict(std::shared_ptr<const Dict> d);
  static Value namespace_(std::shared_ptr<Namespace> ns);
  static Value callable(std::shared_ptr<const Callable> fn);
  static Value loop(std::shared_ptr<const LoopState> loop);
  // An undefined value; `name` is kept for error messages, `unsafe` marks a sandbox-blocked attribute.
  static Value undefined(std::string name = {}, bool unsafe = false);
  // The same, naming it by a string that outlives the value (a name in the syntax tree): no allocation.
  static Value undefined_ref(const std::string& name);
  static Value from_json(const nlohmann::json& j);
  static Value from_json(const nlohmann::ordered_json& j);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::Undefined; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int || kind_ == Kind::Bool; }  // Python int (bool included)
  bool is_string() const { return kind_ == Kind::String; }
  bool is_markup() const { return kind_ == Kind::String && markup_; }
  bool is_list() const { return kind_ == Kind::List; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  bool is_sequence_list() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }
  bool is_dict() const { return kind_ == Kind::Dict; }
  bool is_namespace() const { return kind_ == Kind::Namespace; }
  bool is_callable() const { return kind_ == Kind::Callable; }
  bool is_loop() const { return kind_ == Kind::Loop; }
  bool is_generator() const { return kind_ == Kind::Generator; }

  bool as_bool() const { return b_; }
  int64_t as_int() const { return kind_ == Kind::Bool ? (b_ ? 1 : 0) : i_; }
  double as_float() const { return kind_ == Kind::Float ? f_ : static_cast<double>(as_int()); }
  const std::string& str() const;  // String only
  const List& items() const;       // List/Tuple/Generator only
  const Dict& dict() const;
  Namespace& ns() const;
  const Callable& fn() const;
  const LoopState& loop() const;
  const std::string& undefined_name() const;
  bool undefined_unsafe() const { return markup_; }

  bool truthy() const;
  uint32_t depth() const { return depth_; }
  static constexpr uint32_t kMaxDepth = 500;  // deeper containers are a TemplateError(Limit)
  const char* type_name() const;  // Python's type name, for messages

 private:
  explicit Value(Kind k) : kind_(k) {}
  Kind kind_ = Kind::Undefined;
  bool markup_ = false;  // String: Markup; Undefined: sandbox-blocked attribute
  bool b_ = false;
  uint32_t depth_ = 0;  // container nesting (bounded: printing and comparing recurse over it)
  int64_t i_ = 0;
  double f_ = 0;
  std::shared_ptr<const void> p_;
};

struct Dict {
  std::vector<std::pair<Value, Value>> entries;  // insertion order, unique keys
  const Value* find(const Value& key) const;
  const Value* find(std::string_view key) const;
};

struct Namespace {
  std::vector<std::pair<std::string, Value>> attrs;
  Value* find(std::string_view name);
  void set(const std::string& name, Value v);
};

struct CallArgs {
  List positional;
  std::vector<std::pair<std::string, Value>> keyword;
  const Value* kwarg(std::string_view name) const;
};

struct Callable {
  std::string name;
  virtual ~Callable() = default;
  virtual Value call(Renderer& r, CallArgs& args) const = 0;
  // Drops what the callable holds from its render (a macro's defining scope), which may hold the callable back.
  virtual void release() const {}
};

struct LoopState {
  std::shared_ptr<const List> items;
  size_t index0 = 0;
  size_t depth0 = 0;
};

// Python semantics shared by the evaluator and the filters.
bool python_equal(const Value& a, const Value& b);
// Python's a < b; throws TemplateError(Runtime) for unorderable types.
bool python_less(const Value& a, const Value& b);
// str(x) and repr(x) as Python prints them (undefined prints empty).
std::string to_str(const Value& v);
void append_str(std::string& out, const Value& v);
std::string to_repr(const Value& v);
void append_repr(std::string& out, const Value& v);
// Python float repr: shortest round trip, "1.0", "1e+16", "inf", "nan".
std::string float_repr(double f);
// Python json.dumps(ensure_ascii=False, indent, separators, sort_keys); throws TemplateError(Runtime) for
// values JSON cannot hold (undefined, callables).
// `indent` null = no newlines; else the text repeated per nesting level.
std::string python_json_dumps(const Value& v, const std::string* indent, const std::string& item_sep,
                              const std::string& key_sep, bool sort_keys);
// Iterates like Python's iter(): list/tuple items, dict keys, string characters, undefined as empty.
// Throws TemplateError(Runtime) for values that are not iterable.
List iterate(const Value& v);
int64_t python_len(const Value& v);  // throws TemplateError(Runtime) when len() is undefined

}  // namespace ninfer::jinja
