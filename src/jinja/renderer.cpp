#include "jinja/renderer.h"

#include <cmath>
#include <limits>

#include "jinja/builtins.h"
#include "jinja/filters.h"
#include "jinja/methods.h"
#include "jinja/utf8.h"

namespace ninfer::jinja {

namespace {

// Bounds the C++ recursion of exec/eval: every level of template nesting and macro call costs a few frames.
constexpr int kStackFramesPerDepth = 12;

// A macro or a call block's caller(): its body and the scope it was defined in.
struct MacroCallable : Callable {
  const Stmt* def = nullptr;
  mutable std::shared_ptr<Scope> closure;
  Value call(Renderer& r, CallArgs& args) const override {
    if (!closure) r.runtime_error("macro '" + name + "' called after its render ended");
    return r.call_macro(*def, closure, args, nullptr);
  }
  void release() const override { closure.reset(); }
};

bool checked_add(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }
bool checked_sub(int64_t a, int64_t b, int64_t& out) { return !__builtin_sub_overflow(a, b, &out); }
bool checked_mul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

double float_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  if (m == 0) m = std::copysign(0.0, b);
  return m;
}

}  // namespace

struct Renderer::DepthGuard {
  Renderer& r;
  explicit DepthGuard(Renderer& renderer) : r(renderer) {
    if (++r.depth_ > r.limits_.max_depth * kStackFramesPerDepth) {
      --r.depth_;
      r.fail(TemplateErrorKind::Limit, "maximum recursion depth exceeded");
    }
  }
  ~DepthGuard() { --r.depth_; }
};

Renderer::Renderer(const ParsedTemplate& t, const RenderLimits& limits) : t_(t), limits_(limits) {}

Renderer::~Renderer() {
  for (const auto& c : closures_) c->release();
  for (const auto& ns : namespaces_) ns->attrs.clear();
}

void Renderer::fail(TemplateErrorKind kind, const std::string& message) const { throw TemplateError(kind, message); }

void Renderer::step(uint64_t n) {
  steps_ += n;
  if (steps_ > limits_.max_steps) fail(TemplateErrorKind::Limit, "template exceeded " + std::to_string(limits_.max_steps) + " steps");
}

void Renderer::check_size(size_t bytes) const {
  if (bytes > limits_.max_output_bytes)
    fail(TemplateErrorKind::Limit, "template output exceeds " + std::to_string(limits_.max_output_bytes) + " bytes");
}

std::string Renderer::render(std::shared_ptr<Scope> root) {
  scope_ = std::move(root);
  std::string out;
  exec_body(t_.body, out);
  return out;
}

void Renderer::append_out(std::string& out, const Value& v) {
  append_str(out, v);
  check_size(out.size());
}

Renderer::Flow Renderer::exec_body(const Body& body, std::string& out) {
  for (const auto& s : body) {
    const Flow f = exec(*s, out);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Renderer::Flow Renderer::exec(const Stmt& s, std::string& out) {
  DepthGuard guard(*this);
  step();
  try {
    switch (s.kind) {
      case StmtKind::Data:
        out += s.text;
        check_size(out.size());
        return Flow::Normal;
      case StmtKind::Output:
        append_out(out, eval(*s.expr));
        return Flow::Normal;
      case StmtKind::If:
        for (size_t i = 0; i < s.conds.size(); ++i) {
          if (eval(*s.conds[i]).truthy()) return exec_body(s.bodies[i], out);
        }
        return exec_body(s.else_body, out);
      case StmtKind::For:
        exec_for(s, out);
        return Flow::Normal;
      case StmtKind::Set:
        assign(*s.target, eval(*s.expr));
        return Flow::Normal;
      case StmtKind::SetBlock: {
        std::string text;
        exec_body(s.body, text);
        Value v = Value::string(std::move(text));
        if (s.expr) v = apply_filter_chain(*s.expr, std::move(v));
        assign(*s.target, v);
        return Flow::Normal;
      }
      case StmtKind::Macro: {
        auto m = std::make_shared<MacroCallable>();
        m->name = s.text;
        m->def = &s;
        m->closure = scope_;
        track(std::shared_ptr<const Callable>(m));
        scope_->set(s.text, Value::callable(std::move(m)));
        return Flow::Normal;
      }
      case StmtKind::CallBlock: {
        auto c = std::make_shared<MacroCallable>();
        c->name = "caller";
        c->def = &s;
        c->closure = scope_;
        track(std::shared_ptr<const Callable>(c));
        const Expr& call = *s.expr;
        Value callee = eval(*call.a);
        CallArgs args;
        eval_args(call, args);
        args.keyword.emplace_back("caller", Value::callable(std::move(c)));
        append_out(out, this->call(callee, args));
        return Flow::Normal;
      }
      case StmtKind::FilterBlock: {
        std::string text;
        auto saved = scope_;
        scope_ = std::make_shared<Scope>(Scope{saved, {}});
        exec_body(s.body, text);
        scope_ = saved;
        append_out(out, apply_filter_chain(*s.expr, Value::string(std::move(text))));
        return Flow::Normal;
      }
      case StmtKind::Break:
        return Flow::Break;
      case StmtKind::Continue:
        return Flow::Continue;
      case StmtKind::With: {
        auto saved = scope_;
        auto inner = std::make_shared<Scope>(Scope{saved, {}});
        for (const auto& [target, value] : s.assignments) {
          Value v = eval(*value);
          scope_ = inner;
          assign(*target, v);
          scope_ = saved;
        }
        scope_ = inner;
        const Flow f = exec_body(s.body, out);
        scope_ = saved;
        return f;
      }
      case StmtKind::Scope: {
        auto saved = scope_;
        scope_ = std::make_shared<Scope>(Scope{saved, {}});
        exec_body(s.body, out);
        scope_ = saved;
        return Flow::Normal;
      }
    }
  } catch (TemplateError& e) {
    if (e.line() == 0) {
      const auto [line, col] = t_.lexed.location(s.offset);
      throw TemplateError(e.kind(), e.what(), line, col);
    }
    throw;
  }
  return Flow::Normal;
}

void Renderer::exec_for(const Stmt& s, std::string& out) {
  Value iterable = eval(*s.expr);
  List items = iterate(iterable);
  step(items.size());
  auto saved = scope_;
  // One scope per iteration, as in Jinja2 (a `set` in the body does not survive to the next iteration). The scope
  // object is reused unless something (a macro defined in the body) still holds it.
  auto fresh_scope = [&](std::shared_ptr<Scope>& slot) {
    if (slot && slot.use_count() == 1) {
      slot->vars.clear();
    } else {
      slot = std::make_shared<Scope>(Scope{saved, {}});
    }
    scope_ = slot;
  };
  std::shared_ptr<Scope> iteration;
  if (s.cond) {
    List kept;
    for (auto& item : items) {
      fresh_scope(iteration);
      assign(*s.target, item);
      const bool keep = eval(*s.cond).truthy();
      scope_ = saved;
      if (keep) kept.push_back(std::move(item));
    }
    items = std::move(kept);
  }
  // Like Python's LoopContext, one loop object advances through the iterations.
  auto state = std::make_shared<LoopState>();
  state->items = std::make_shared<const List>(std::move(items));
  const Value loop_value = Value::loop(state);
  const size_t n = state->items->size();
  for (size_t i = 0; i < n; ++i) {
    step();
    state->index0 = i;
    scope_ = saved;
    fresh_scope(iteration);
    scope_->vars.emplace_back("loop", loop_value);
    assign(*s.target, (*state->items)[i]);
    const Flow f = exec_body(s.body, out);
    scope_ = saved;
    if (f == Flow::Break) break;
  }
  scope_ = saved;
  if (n == 0) exec_body(s.else_body, out);
}

void Renderer::assign(const Expr& target, const Value& v) {
  if (target.kind == ExprKind::Name) {
    scope_->set(target.name, v);
    return;
  }
  if (target.kind == ExprKind::GetAttr) {
    Value ns = lookup(target.a->name);
    if (!ns.is_namespace()) runtime_error("cannot assign attribute on non-namespace object");
    ns.ns().set(target.name, v);
    return;
  }
  // Tuple unpacking.
  List values = iterate(v);
  if (values.size() != target.args.size()) {
    runtime_error(values.size() > target.args.size()
                      ? "too many values to unpack (expected " + std::to_string(target.args.size()) + ")"
                      : "not enough values to unpack (expected " + std::to_string(target.args.size()) + ", got " +
                            std::to_string(values.size()) + ")");
  }
  for (size_t i = 0; i < values.size(); ++i) assign(*target.args[i], values[i]);
}

Value Renderer::lookup(const std::string& name) {
  for (Scope* s = scope_.get(); s; s = s->parent.get()) {
    if (Value* v = s->find_local(name)) return *v;
  }
  if (Value g = global_function(name); !g.is_undefined()) return g;
  return Value::undefined_ref(name);  // names come from the syntax tree, which outlives the render
}

// A block's filter chain (`{% filter a|b %}`, `{% set x | a %}`): the outermost expression is the
// last filter; the block text is the innermost input.
Value Renderer::apply_filter_chain(const Expr& last, Value v) {
  std::vector<const Expr*> chain;
  for (const Expr* f = &last; f; f = f->a.get()) chain.push_back(f);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    CallArgs args;
    eval_args(**it, args);
    if (!(*it)->fn) runtime_error("No filter named '" + (*it)->name + "' found.");
    v = (*it)->fn(*this, v, args);
  }
  return v;
}

void Renderer::eval_args(const Expr& e, CallArgs& args) {
  args.positional.reserve(e.args.size());
  for (const auto& a : e.args) args.positional.push_back(eval(*a));
  for (const auto& [k, a] : e.kwargs) args.keyword.emplace_back(k, eval(*a));
  if (e.dyn_args) {
    for (auto& v : iterate(eval(*e.dyn_args))) args.positional.push_back(std::move(v));
  }
  if (e.dyn_kwargs) {
    Value d = eval(*e.dyn_kwargs);
    if (!d.is_dict()) runtime_error("argument after ** must be a mapping, not " + std::string(d.type_name()));
    for (const auto& [k, v] : d.dict().entries) {
      if (!k.is_string()) runtime_error("keywords must be strings");
      args.keyword.emplace_back(k.str(), v);
    }
  }
}

Value Renderer::eval(const Expr& e) {
  DepthGuard guard(*this);
  try {
    return eval_inner(e);
  } catch (TemplateError& err) {
    if (err.line() == 0) {
      const auto [line, col] = t_.lexed.location(e.offset);
      throw TemplateError(err.kind(), err.what(), line, col);
    }
    throw;
  }
}

Value Renderer::eval_inner(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Const:
      return e.value;
    case ExprKind::Name:
      return lookup(e.name);
    case ExprKind::GetAttr:
      return getattr(eval(*e.a), e.name, true);
    case ExprKind::GetItem: {
      Value obj = eval(*e.a);
      if (e.b->kind == ExprKind::Slice) {
        const Expr& sl = *e.b;
        Value start = sl.a ? eval(*sl.a) : Value::none();
        Value stop = sl.b ? eval(*sl.b) : Value::none();
        Value stride = sl.c ? eval(*sl.c) : Value::none();
        if (obj.is_undefined()) runtime_error("'" + obj.undefined_name() + "' is undefined");
        return slice_value(*this, obj, start, stop, stride);
      }
      return getitem(obj, eval(*e.b));
    }
    case ExprKind::Slice:
      runtime_error("slice outside of a subscript");
    case ExprKind::Call: {
      Value callee = eval(*e.a);
      CallArgs args;
      eval_args(e, args);
      return call(callee, args);
    }
    case ExprKind::Filter: {
      Value input = e.a ? eval(*e.a) : Value::undefined();
      CallArgs args;
      eval_args(e, args);
      if (!e.fn) runtime_error("No filter named '" + e.name + "' found.");
      step();
      return e.fn(*this, input, args);
    }
    case ExprKind::Test: {
      Value input = eval(*e.a);
      CallArgs args;
      eval_args(e, args);
      if (!e.fn) runtime_error("No test named '" + e.name + "' found.");
      const bool r = e.fn(*this, input, args).truthy();
      return Value::boolean(e.negated ? !r : r);
    }
    case ExprKind::Neg:
    case ExprKind::Pos: {
      Value v = eval(*e.a);
      if (v.is_undefined()) runtime_error("'" + v.undefined_name() + "' is undefined");
      if (!v.is_number()) runtime_error(std::string("bad operand type for unary ") + (e.kind == ExprKind::Neg ? "-" : "+") + ": '" + v.type_name() + "'");
      if (e.kind == ExprKind::Pos) return v.is_bool() ? Value::integer(v.as_int()) : v;
      if (v.is_float()) return Value::floating(-v.as_float());
      if (v.as_int() == std::numeric_limits<int64_t>::min()) runtime_error("integer overflow");
      return Value::integer(-v.as_int());
    }
    case ExprKind::Not:
      return Value::boolean(!eval(*e.a).truthy());
    case ExprKind::And: {
      Value a = eval(*e.a);
      return a.truthy() ? eval(*e.b) : a;
    }
    case ExprKind::Or: {
      Value a = eval(*e.a);
      return a.truthy() ? a : eval(*e.b);
    }
    case ExprKind::Binary:
      return binary(e.name, eval(*e.a), eval(*e.b));
    case ExprKind::Concat: {
      std::string s;
      for (const auto& a : e.args) {
        append_str(s, eval(*a));
        check_size(s.size());
      }
      return Value::string(std::move(s));
    }
    case ExprKind::Compare: {
      Value left = eval(*e.a);
      for (size_t i = 0; i < e.args.size(); ++i) {
        Value right = eval(*e.args[i]);
        if (!compare(e.compare_ops[i], left, right)) return Value::boolean(false);
        left = std::move(right);
      }
      return Value::boolean(true);
    }
    case ExprKind::CondExpr:
      if (eval(*e.a).truthy()) return eval(*e.b);
      return e.c ? eval(*e.c) : Value::undefined();
    case ExprKind::List:
    case ExprKind::Tuple: {
      List items;
      items.reserve(e.args.size());
      for (const auto& a : e.args) items.push_back(eval(*a));
      return e.kind == ExprKind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
    }
    case ExprKind::Dict: {
      auto d = std::make_shared<Dict>();
      for (size_t i = 0; i < e.keys.size(); ++i) {
        Value k = eval(*e.keys[i]);
        Value v = eval(*e.args[i]);
        if (k.is_sequence_list() && k.is_list()) runtime_error("unhashable type: 'list'");
        if (k.is_dict()) runtime_error("unhashable type: 'dict'");
        bool replaced = false;
        for (auto& [ek, ev] : d->entries) {
          if (python_equal(ek, k)) {
            ev = v;
            replaced = true;
            break;
          }
        }
        if (!replaced) d->entries.emplace_back(std::move(k), std::move(v));
      }
      return Value::dict(std::move(d));
    }
  }
  return Value::undefined();
}

Value Renderer::binary(const std::string& op, const Value& a, const Value& b) {
  if (a.is_undefined()) runtime_error("'" + a.undefined_name() + "' is undefined");
  if (b.is_undefined()) runtime_error("'" + b.undefined_name() + "' is undefined");
  const char o = op[0];
  const bool two = op.size() == 2;
  if (a.is_number() && b.is_number()) {
    const bool ints = a.is_integral() && b.is_integral();
    const int64_t x = a.as_int(), y = b.as_int();
    const double fx = a.as_float(), fy = b.as_float();
    int64_t r = 0;
    if (o == '+') {
      if (!ints) return Value::floating(fx + fy);
      if (!checked_add(x, y, r)) runtime_error("integer overflow");
      return Value::integer(r);
    }
    if (o == '-') {
      if (!ints) return Value::floating(fx - fy);
      if (!checked_sub(x, y, r)) runtime_error("integer overflow");
      return Value::integer(r);
    }
    if (o == '*' && !two) {
      if (!ints) return Value::floating(fx * fy);
      if (!checked_mul(x, y, r)) runtime_error("integer overflow");
      return Value::integer(r);
    }
    if (o == '/' && !two) {
      if (fy == 0) runtime_error(ints ? "division by zero" : "float division by zero");
      return Value::floating(fx / fy);
    }
    if (o == '/' && two) {
      if (ints) {
        if (y == 0) runtime_error("integer division or modulo by zero");
        if (x == std::numeric_limits<int64_t>::min() && y == -1) runtime_error("integer overflow");
        return Value::integer(floor_div(x, y));
      }
      if (fy == 0) runtime_error("float floor division by zero");
      return Value::floating(std::floor(fx / fy));
    }
    if (o == '%') {
      if (ints) {
        if (y == 0) runtime_error("integer modulo by zero");
        if (y == -1) return Value::integer(0);
        return Value::integer(floor_mod(x, y));
      }
      if (fy == 0) runtime_error("float modulo");
      return Value::floating(float_mod(fx, fy));
    }
    if (o == '*' && two) {
      if (ints && y >= 0) {
        int64_t acc = 1, base = x, e = y;
        while (e > 0) {
          if (e & 1) {
            if (!checked_mul(acc, base, acc)) runtime_error("integer overflow");
          }
          e >>= 1;
          if (e > 0 && !checked_mul(base, base, base)) runtime_error("integer overflow");
        }
        return Value::integer(acc);
      }
      if (fx == 0 && fy < 0) runtime_error("0.0 cannot be raised to a negative power");
      return Value::floating(std::pow(fx, fy));
    }
  }
  if (o == '+' && !two) {
    if (a.is_string() && b.is_string()) {
      // Markup + str escapes the str (Markup.__add__ / __radd__).
      std::string s;
      if (a.is_markup() == b.is_markup()) {
        s = a.str() + b.str();
      } else if (a.is_markup()) {
        s = a.str() + html_escape(b.str());
      } else {
        s = html_escape(a.str()) + b.str();
      }
      check_size(s.size());
      return Value::string(std::move(s), a.is_markup() || b.is_markup());
    }
    if ((a.is_list() && b.is_list()) || (a.is_tuple() && b.is_tuple())) {
      List items = a.items();
      check_size((items.size() + b.items().size()) * 8);
      items.insert(items.end(), b.items().begin(), b.items().end());
      return a.is_list() ? Value::list(std::move(items)) : Value::tuple(std::move(items));
    }
    if (a.is_string()) runtime_error(std::string("can only concatenate str (not \"") + b.type_name() + "\") to str");
    if (a.is_list()) runtime_error(std::string("can only concatenate list (not \"") + b.type_name() + "\") to list");
  }
  if (o == '*' && !two) {
    const Value* seq = nullptr;
    const Value* count = nullptr;
    if ((a.is_string() || a.is_sequence_list()) && b.is_integral()) {
      seq = &a;
      count = &b;
    } else if ((b.is_string() || b.is_sequence_list()) && a.is_integral()) {
      seq = &b;
      count = &a;
    }
    if (seq) {
      const int64_t n = std::max<int64_t>(0, count->as_int());
      if (seq->is_string()) {
        const size_t len = seq->str().size();
        if (len > 0 && static_cast<uint64_t>(n) > max_value_bytes() / len) check_size(max_value_bytes() + 1);
        std::string s;
        s.reserve(len * static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) s += seq->str();
        return Value::string(std::move(s));
      }
      const size_t len = seq->items().size();
      if (len > 0 && static_cast<uint64_t>(n) > max_value_bytes() / (8 * len)) check_size(max_value_bytes() + 1);
      step(len * static_cast<size_t>(n));
      List items;
      for (int64_t i = 0; i < n; ++i) items.insert(items.end(), seq->items().begin(), seq->items().end());
      return seq->is_list() ? Value::list(std::move(items)) : Value::tuple(std::move(items));
    }
  }
  if (o == '%' && a.is_string()) return Value::string(percent_format(*this, a.str(), b));
  runtime_error("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" + b.type_name() + "'");
}

bool Renderer::compare(const std::string& op, const Value& a, const Value& b) {
  if (op == "==") return python_equal(a, b);
  if (op == "!=") return !python_equal(a, b);
  if (op == "in") return contains(*this, b, a);
  if (op == "notin") return !contains(*this, b, a);
  if (a.is_undefined()) runtime_error("'" + a.undefined_name() + "' is undefined");
  if (b.is_undefined()) runtime_error("'" + b.undefined_name() + "' is undefined");
  auto unorderable = [&]() {
    runtime_error("'" + op + "' not supported between instances of '" + a.type_name() + "' and '" + b.type_name() + "'");
  };
  const bool comparable = (a.is_number() && b.is_number()) || (a.is_string() && b.is_string()) ||
                          (a.is_list() && b.is_list()) || (a.is_tuple() && b.is_tuple());
  if (!comparable) unorderable();
  if (op == "<") return python_less(a, b);
  if (op == ">") return python_less(b, a);
  if (op == "<=") return !python_less(b, a);
  if (op == ">=") return !python_less(a, b);
  unorderable();
  return false;
}

Value Renderer::call(const Value& callee, CallArgs& args) {
  if (callee.is_callable()) {
    step();
    return callee.fn().call(*this, args);
  }
  if (callee.is_undefined()) {
    if (callee.undefined_unsafe()) runtime_error("access to attribute '" + callee.undefined_name() + "' is unsafe");
    runtime_error("'" + callee.undefined_name() + "' is undefined");
  }
  runtime_error(std::string("'") + callee.type_name() + "' object is not callable");
}

Value Renderer::apply_filter(std::string_view name, const Value& input, CallArgs& args) {
  FilterFn f = find_filter(name);
  if (!f) runtime_error("No filter named '" + std::string(name) + "'.");
  step();
  return f(*this, input, args);
}

bool Renderer::apply_test(std::string_view name, const Value& input, CallArgs& args) {
  FilterFn f = find_test(name);
  if (!f) runtime_error("No test named '" + std::string(name) + "'.");
  step();
  return f(*this, input, args).truthy();
}

Value Renderer::call_macro(const Stmt& def, const std::shared_ptr<Scope>& closure, CallArgs& args, const Value*) {
  if (++call_depth_ > limits_.max_depth) {
    --call_depth_;
    fail(TemplateErrorKind::Limit, "maximum recursion depth exceeded in macro calls");
  }
  struct CallDepth {
    int& d;
    ~CallDepth() { --d; }
  } depth_release{call_depth_};
  auto frame = std::make_shared<Scope>(Scope{closure, {}});
  const std::string macro_name = def.kind == StmtKind::Macro ? def.text : "caller";
  const size_t n = def.params.size();
  if (args.positional.size() > n && !def.uses_varargs) {
    runtime_error("macro '" + macro_name + "' takes not more than " + std::to_string(n) + " argument(s)");
  }
  std::vector<bool> bound(n, false);
  for (size_t i = 0; i < n && i < args.positional.size(); ++i) {
    frame->set(def.params[i].name, args.positional[i]);
    bound[i] = true;
  }
  std::shared_ptr<Dict> kwargs = def.uses_kwargs ? std::make_shared<Dict>() : nullptr;
  Value caller;
  for (auto& [k, v] : args.keyword) {
    bool matched = false;
    for (size_t i = 0; i < n; ++i) {
      if (def.params[i].name == k) {
        if (bound[i]) runtime_error("macro '" + macro_name + "' got multiple values for argument '" + k + "'");
        frame->set(k, v);
        bound[i] = true;
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (k == "caller" && def.uses_caller) {
      caller = v;
      continue;
    }
    if (!def.uses_kwargs) runtime_error("macro '" + macro_name + "' takes no keyword argument '" + k + "'");
    kwargs->entries.emplace_back(Value::string(k), v);
  }
  auto saved = scope_;
  scope_ = frame;
  for (size_t i = 0; i < n; ++i) {
    if (bound[i]) continue;
    if (def.params[i].default_value) {
      frame->set(def.params[i].name, eval(*def.params[i].default_value));
    } else {
      frame->set(def.params[i].name, Value::undefined(def.params[i].name));
    }
  }
  if (def.uses_varargs) {
    List extra;
    for (size_t i = n; i < args.positional.size(); ++i) extra.push_back(args.positional[i]);
    frame->set("varargs", Value::tuple(std::move(extra)));
  }
  if (def.uses_kwargs) frame->set("kwargs", Value::dict(std::move(kwargs)));
  if (def.uses_caller) frame->set("caller", caller.is_undefined() ? Value::undefined("caller") : caller);
  std::string out;
  try {
    exec_body(def.body, out);
  } catch (...) {
    scope_ = saved;
    throw;
  }
  scope_ = saved;
  return Value::string(std::move(out));
}

Value Renderer::getattr(const Value& obj, const std::string& name, bool stable_name) {
  if (obj.is_undefined()) {
    if (obj.undefined_unsafe()) runtime_error("access to attribute '" + obj.undefined_name() + "' is unsafe");
    runtime_error("'" + (obj.undefined_name().empty() ? std::string("value") : obj.undefined_name()) + "' is undefined");
  }
  if (name.size() >= 2 && name[0] == '_' && name[1] == '_') return Value::undefined(name, true);
  if (obj.is_dict()) {
    if (has_method(obj, name)) return find_method(obj, name);
    if (const Value* v = obj.dict().find(std::string_view(name))) return *v;
    return stable_name ? Value::undefined_ref(name) : Value::undefined(name);
  }
  if (obj.is_namespace()) {
    if (Value* v = obj.ns().find(name)) return *v;
    return stable_name ? Value::undefined_ref(name) : Value::undefined(name);
  }
  if (obj.is_loop()) return loop_attribute(*this, obj, name);
  if (has_method(obj, name)) return find_method(obj, name);
  return stable_name ? Value::undefined_ref(name) : Value::undefined(name);
}

Value Renderer::getitem(const Value& obj, const Value& key) {
  if (obj.is_undefined()) {
    if (obj.undefined_unsafe()) runtime_error("access to attribute '" + obj.undefined_name() + "' is unsafe");
    runtime_error("'" + (obj.undefined_name().empty() ? std::string("value") : obj.undefined_name()) + "' is undefined");
  }
  if (obj.is_dict()) {
    if (const Value* v = obj.dict().find(key)) return *v;
  } else if ((obj.is_sequence_list() || obj.is_string()) && key.is_integral()) {
    int64_t i = key.as_int();
    if (obj.is_string()) {
      const std::string& s = obj.str();
      if (is_ascii(s)) {
        const auto n = static_cast<int64_t>(s.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::undefined();
        return Value::string(s.substr(static_cast<size_t>(i), 1));
      }
      const std::u32string cps = utf8_decode(s);
      const auto n = static_cast<int64_t>(cps.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value::undefined();
      std::string c;
      utf8_append(c, cps[static_cast<size_t>(i)]);
      return Value::string(std::move(c));
    }
    const auto n = static_cast<int64_t>(obj.items().size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) return Value::undefined();
    return obj.items()[static_cast<size_t>(i)];
  }
  if (key.is_string()) return getattr(obj, key.str());
  return Value::undefined();
}

}  // namespace ninfer::jinja
