// The syntax tree the parser builds and the renderer walks. Immutable after parsing, so one Template serves any
// number of concurrent renders.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jinja/value.h"

namespace ninfer::jinja {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

class Renderer;
// A filter: (renderer, input, arguments) → output. Tests have the same shape and return a bool Value.
using FilterFn = Value (*)(Renderer& r, const Value& input, CallArgs& args);

enum class ExprKind : uint8_t {
  Const,      // value
  Name,       // name
  GetAttr,    // a.name
  GetItem,    // a[b]
  Slice,      // a[b:c:d] (any of b, c, d may be null)
  Call,       // a(args, kwargs, *dyn_args, **dyn_kwargs)
  Filter,     // a | name(args) (a null inside {% filter %} blocks)
  Test,       // a is [not] name(args)
  Neg,        // -a
  Pos,        // +a
  Not,        // not a
  And,        // a and b
  Or,         // a or b
  Binary,     // a op b (op: + - * / // % **)
  Concat,     // args joined with ~
  Compare,    // a op1 args[0] op2 args[1] ... (ops in compare_ops)
  CondExpr,   // b if a else c (c may be null)
  List,       // [args]
  Tuple,      // (args)
  Dict,       // {keys[i]: args[i]}
};

struct Expr {
  ExprKind kind;
  uint32_t offset = 0;  // into the normalized source, for error locations
  std::string name;     // Name, GetAttr, Filter, Test; Binary / Compare operators
  Value value;          // Const
  ExprPtr a, b, c;
  std::vector<ExprPtr> args;
  std::vector<ExprPtr> keys;                             // Dict keys
  std::vector<std::pair<std::string, ExprPtr>> kwargs;   // Call, Filter, Test
  ExprPtr dyn_args, dyn_kwargs;                          // Call: *args, **kwargs
  std::vector<std::string> compare_ops;                  // Compare: ==, !=, <, <=, >, >=, in, notin
  FilterFn fn = nullptr;                                 // Filter/Test: resolved at parse time (null = unknown)
  bool negated = false;                                  // Test
};

enum class StmtKind : uint8_t {
  Data,       // text
  Output,     // {{ expr }}
  If,         // conds[i] → bodies[i]; else_body
  For,        // for target in expr [if cond] body [else else_body]
  Set,        // set target = expr
  SetBlock,   // set target %}body{% endset (optional filter in expr, applied to the body text)
  Macro,      // macro name(params=defaults) body
  CallBlock,  // call(params) expr %}body (body becomes caller())
  FilterBlock,  // filter expr %}body (expr is a Filter chain whose innermost input is null)
  Break,
  Continue,
  With,       // with targets = values %}body
  Scope,      // a body rendered in place ({% block %})
};

struct Param {
  std::string name;
  ExprPtr default_value;  // null = required
};

struct Stmt {
  StmtKind kind;
  uint32_t offset = 0;
  std::string text;             // Data; Macro name
  ExprPtr expr;                 // Output, For iterable, Set value, CallBlock call, FilterBlock filter chain
  ExprPtr target;               // For / Set target: a Name, a Tuple of Names, or GetAttr of a Name (namespace)
  ExprPtr cond;                 // For filter
  std::vector<ExprPtr> conds;   // If
  std::vector<Body> bodies;     // If branches
  Body body;                    // For, SetBlock, Macro, CallBlock, FilterBlock, With, Scope
  Body else_body;               // If, For
  std::vector<Param> params;    // Macro, CallBlock
  std::vector<std::pair<ExprPtr, ExprPtr>> assignments;  // With
  bool uses_caller = false, uses_varargs = false, uses_kwargs = false;  // Macro
  bool recursive = false;       // For
};

}  // namespace ninfer::jinja
