// Renderer: walks a parsed template with one render's state (scopes, output, step and depth counters). Created per
// render call, never shared. Filters, tests and methods call back into it for errors, callables and limits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "jinja/ast.h"
#include "jinja/parser.h"
#include "jinja/template.h"
#include "jinja/value.h"

namespace ninfer::jinja {

struct Scope {
  std::shared_ptr<Scope> parent;
  std::vector<std::pair<std::string, Value>> vars;
  Value* find_local(std::string_view name) {
    for (auto& [k, v] : vars)
      if (k == name) return &v;
    return nullptr;
  }
  void set(const std::string& name, Value v) {
    if (Value* slot = find_local(name)) {
      *slot = std::move(v);
    } else {
      vars.emplace_back(name, std::move(v));
    }
  }
};

class Renderer {
 public:
  Renderer(const ParsedTemplate& t, const RenderLimits& limits);
  // Breaks the reference cycles a render can build (a scope holds a macro that holds the scope; a namespace that
  // holds itself), which values never outlive.
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  void track(std::shared_ptr<const Callable> closure) { closures_.push_back(std::move(closure)); }
  void track(std::shared_ptr<Namespace> ns) { namespaces_.push_back(std::move(ns)); }
  std::string render(std::shared_ptr<Scope> root);

  [[noreturn]] void fail(TemplateErrorKind kind, const std::string& message) const;
  [[noreturn]] void runtime_error(const std::string& message) const { fail(TemplateErrorKind::Runtime, message); }
  // Counts work against max_steps.
  void step(uint64_t n = 1);
  // Refuses strings and lists larger than the output limit.
  void check_size(size_t bytes) const;
  size_t max_value_bytes() const { return limits_.max_output_bytes; }

  Value call(const Value& callee, CallArgs& args);
  // Applies a filter / test by name (map('upper'), select('odd')).
  Value apply_filter(std::string_view name, const Value& input, CallArgs& args);
  bool apply_test(std::string_view name, const Value& input, CallArgs& args);
  // stable_name: `name` outlives the render (it is in the syntax tree), so an undefined result may point to it.
  Value getattr(const Value& obj, const std::string& name, bool stable_name = false);
  Value getitem(const Value& obj, const Value& key);
  // Renders a macro body with its arguments bound (macros and caller()).
  Value call_macro(const Stmt& def, const std::shared_ptr<Scope>& closure, CallArgs& args, const Value* caller);

 private:
  enum class Flow { Normal, Break, Continue };

  const ParsedTemplate& t_;
  RenderLimits limits_;
  uint64_t steps_ = 0;
  int depth_ = 0;        // C++ recursion of exec/eval
  int call_depth_ = 0;   // macro nesting
  std::shared_ptr<Scope> scope_;
  std::vector<std::shared_ptr<const Callable>> closures_;
  std::vector<std::shared_ptr<Namespace>> namespaces_;

  Flow exec_body(const Body& body, std::string& out);
  Flow exec(const Stmt& s, std::string& out);
  void exec_for(const Stmt& s, std::string& out);
  void assign(const Expr& target, const Value& v);
  Value eval(const Expr& e);
  Value eval_inner(const Expr& e);
  Value lookup(const std::string& name);
  void eval_args(const Expr& e, CallArgs& args);
  Value apply_filter_chain(const Expr& last, Value v);
  Value binary(const std::string& op, const Value& a, const Value& b);
  bool compare(const std::string& op, const Value& a, const Value& b);
  void append_out(std::string& out, const Value& v);
  struct DepthGuard;
};

}  // namespace ninfer::jinja
