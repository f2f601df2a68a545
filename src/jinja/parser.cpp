#include "jinja/parser.h"

#include <charconv>
#include <cstdlib>
#include <set>

#include "jinja/filters.h"
#include "jinja/template_error.h"

namespace ninfer::jinja {

namespace {

class Parser {
 public:
  Parser(LexedSource& lexed, int max_depth) : lx_(lexed), toks_(lexed.tokens), max_depth_(max_depth) {}

  Body parse_all() {
    Body body = subparse({});
    if (cur().type != TokenType::End) fail("unexpected token");
    check_names(body, false);
    return body;
  }

 private:
  LexedSource& lx_;
  const std::vector<Token>& toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  int max_depth_;
  int loop_depth_ = 0;
  std::vector<std::string> names_seen_;  // every Name loaded, in order (macros look for caller/varargs/kwargs)

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > p.max_depth_) {
        const auto [line, col] = p.lx_.location(p.cur().offset);
        throw TemplateError(TemplateErrorKind::Limit, "template nesting is deeper than " + std::to_string(p.max_depth_), line, col);
      }
    }
    ~DepthGuard() { --p.depth_; }
  };

  const Token& cur() const { return toks_[pos_]; }
  const Token& peek(size_t n = 1) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  void advance() {
    if (pos_ + 1 < toks_.size()) ++pos_;
  }

  [[noreturn]] void fail_at(const std::string& message, uint32_t offset) const {
    const auto [line, col] = lx_.location(offset);
    throw TemplateError(TemplateErrorKind::Syntax, message, line, col);
  }
  [[noreturn]] void fail(const std::string& message) const { fail_at(message, cur().offset); }

  std::string describe(const Token& t) const {
    switch (t.type) {
      case TokenType::End: return "end of template";
      case TokenType::VarEnd: return "end of print statement";
      case TokenType::BlockEnd: return "end of statement block";
      case TokenType::Data: return "template data";
      default: return "'" + t.value + "'";
    }
  }

  bool is_op(const char* op) const { return cur().type == TokenType::Operator && cur().value == op; }
  bool is_name(const char* name) const { return cur().type == TokenType::Name && cur().value == name; }
  void expect_op(const char* op) {
    if (!is_op(op)) fail(std::string("expected '") + op + "', got " + describe(cur()));
    advance();
  }
  std::string expect_name() {
    if (cur().type != TokenType::Name) fail("expected a name, got " + describe(cur()));
    std::string n = cur().value;
    advance();
    return n;
  }
  void expect_block_end() {
    if (cur().type != TokenType::BlockEnd) fail("expected end of statement block, got " + describe(cur()));
    advance();
  }

  ExprPtr make(ExprKind k, uint32_t offset) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->offset = offset;
    return e;
  }

  // ---- statements ----

  // Parses until a block tag whose name is in `ends` (left unconsumed: cur() is that name) or the end.
  Body subparse(const std::set<std::string>& ends) {
    DepthGuard guard(*this);
    Body body;
    while (true) {
      const Token& t = cur();
      if (t.type == TokenType::End) {
        if (!ends.empty()) fail("unexpected end of template, expected one of: " + join(ends));
        return body;
      }
      if (t.type == TokenType::Data) {
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::Data;
        s->offset = t.offset;
        s->text = t.value;
        body.push_back(std::move(s));
        advance();
      } else if (t.type == TokenType::VarBegin) {
        advance();
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::Output;
        s->offset = t.offset;
        s->expr = parse_tuple(true, false);
        if (cur().type != TokenType::VarEnd) fail("expected end of print statement, got " + describe(cur()));
        advance();
        body.push_back(std::move(s));
      } else if (t.type == TokenType::BlockBegin) {
        advance();
        if (cur().type != TokenType::Name) fail("tag name expected");
        if (ends.count(cur().value)) return body;
        body.push_back(parse_statement());
      } else {
        fail("unexpected " + describe(t));
      }
    }
  }

  static std::string join(const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "'" : ", '") + x + "'";
    return out;
  }

  StmtPtr new_stmt(StmtKind k, uint32_t offset) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->offset = offset;
    return s;
  }

  StmtPtr parse_statement() {
    DepthGuard guard(*this);
    const std::string tag = cur().value;
    const uint32_t at = cur().offset;
    if (tag == "if") return parse_if();
    if (tag == "for") return parse_for();
    if (tag == "set") return parse_set();
    if (tag == "macro") return parse_macro();
    if (tag == "call") return parse_call_block();
    if (tag == "filter") return parse_filter_block();
    if (tag == "with") return parse_with();
    if (tag == "block") return parse_block();
    if (tag == "generation") return parse_generation();
    if (tag == "break" || tag == "continue") {
      if (loop_depth_ == 0) fail("'" + tag + "' outside of a loop");
      advance();
      expect_block_end();
      return new_stmt(tag == "break" ? StmtKind::Break : StmtKind::Continue, at);
    }
    if (tag == "include" || tag == "import" || tag == "from" || tag == "extends")
      fail("'" + tag + "' is not supported: chat templates are self-contained");
    fail("Encountered unknown tag '" + tag + "'.");
  }

  StmtPtr parse_if() {
    auto s = new_stmt(StmtKind::If, cur().offset);
    advance();
    while (true) {
      s->conds.push_back(parse_tuple(false, false));
      expect_block_end();
      s->bodies.push_back(subparse({"elif", "else", "endif"}));
      const std::string t = cur().value;
      advance();
      if (t == "elif") continue;
      if (t == "else") {
        expect_block_end();
        s->else_body = subparse({"endif"});
        advance();
      }
      break;
    }
    expect_block_end();
    return s;
  }

  ExprPtr parse_assign_target(bool allow_namespace) {
    const uint32_t at = cur().offset;
    std::vector<ExprPtr> names;
    bool paren = false;
    if (is_op("(")) {
      paren = true;
      advance();
    }
    while (true) {
      const uint32_t name_at = cur().offset;
      std::string n = expect_name();
      if (allow_namespace && is_op(".") && names.empty()) {
        advance();
        auto e = make(ExprKind::GetAttr, name_at);
        e->a = make(ExprKind::Name, name_at);
        e->a->name = n;
        e->name = expect_name();
        return e;
      }
      auto e = make(ExprKind::Name, name_at);
      e->name = std::move(n);
      names.push_back(std::move(e));
      if (!is_op(",")) break;
      advance();
      if (cur().type != TokenType::Name) break;
    }
    if (paren) expect_op(")");
    if (names.size() == 1 && !paren) return std::move(names[0]);
    auto t = make(ExprKind::Tuple, at);
    t->args = std::move(names);
    return t;
  }

  StmtPtr parse_for() {
    auto s = new_stmt(StmtKind::For, cur().offset);
    advance();
    s->target = parse_assign_target(false);
    if (!is_name("in")) fail("expected 'in', got " + describe(cur()));
    advance();
    s->expr = parse_tuple(false, true);
    if (is_name("if")) {
      advance();
      s->cond = parse_expression(true);
    }
    if (is_name("recursive")) {
      advance();
      s->recursive = true;
    }
    expect_block_end();
    ++loop_depth_;
    s->body = subparse({"endfor", "else"});
    --loop_depth_;
    if (cur().value == "else") {
      advance();
      expect_block_end();
      s->else_body = subparse({"endfor"});
    }
    advance();
    expect_block_end();
    return s;
  }

  StmtPtr parse_set() {
    const uint32_t at = cur().offset;
    advance();
    ExprPtr target = parse_assign_target(true);
    if (is_op("=")) {
      advance();
      auto s = new_stmt(StmtKind::Set, at);
      s->target = std::move(target);
      s->expr = parse_tuple(true, false);
      expect_block_end();
      return s;
    }
    auto s = new_stmt(StmtKind::SetBlock, at);
    s->target = std::move(target);
    if (is_op("|")) {
      advance();
      s->expr = parse_filter_chain(nullptr);
    }
    expect_block_end();
    const int saved_loops = loop_depth_;
    s->body = subparse({"endset"});
    loop_depth_ = saved_loops;
    advance();
    expect_block_end();
    return s;
  }

  void parse_params(std::vector<Param>& params) {
    expect_op("(");
    while (!is_op(")")) {
      if (!params.empty()) expect_op(",");
      if (is_op(")")) break;
      Param p;
      p.name = expect_name();
      if (is_op("=")) {
        advance();
        p.default_value = parse_expression(true);
      }
      params.push_back(std::move(p));
    }
    advance();
  }

  void scan_macro_names(Stmt& s, size_t first_name) {
    for (size_t i = first_name; i < names_seen_.size(); ++i) {
      if (names_seen_[i] == "caller") s.uses_caller = true;
      if (names_seen_[i] == "varargs") s.uses_varargs = true;
      if (names_seen_[i] == "kwargs") s.uses_kwargs = true;
    }
  }

  StmtPtr parse_macro() {
    auto s = new_stmt(StmtKind::Macro, cur().offset);
    advance();
    s->text = expect_name();
    parse_params(s->params);
    expect_block_end();
    const size_t first_name = names_seen_.size();
    const int saved_loops = loop_depth_;
    loop_depth_ = 0;
    s->body = subparse({"endmacro"});
    loop_depth_ = saved_loops;
    scan_macro_names(*s, first_name);
    advance();
    if (cur().type == TokenType::Name) advance();  // {% endmacro name %}
    expect_block_end();
    return s;
  }

  StmtPtr parse_call_block() {
    auto s = new_stmt(StmtKind::CallBlock, cur().offset);
    advance();
    if (is_op("(")) parse_params(s->params);
    s->expr = parse_expression(true);
    if (s->expr->kind != ExprKind::Call) fail_at("expected call", s->expr->offset);
    expect_block_end();
    const size_t first_name = names_seen_.size();
    const int saved_loops = loop_depth_;
    loop_depth_ = 0;
    s->body = subparse({"endcall"});
    loop_depth_ = saved_loops;
    scan_macro_names(*s, first_name);
    advance();
    expect_block_end();
    return s;
  }

  StmtPtr parse_filter_block() {
    auto s = new_stmt(StmtKind::FilterBlock, cur().offset);
    advance();
    s->expr = parse_filter_chain(nullptr);
    expect_block_end();
    s->body = subparse({"endfilter"});
    advance();
    expect_block_end();
    return s;
  }

  StmtPtr parse_with() {
    auto s = new_stmt(StmtKind::With, cur().offset);
    advance();
    while (cur().type != TokenType::BlockEnd) {
      if (!s->assignments.empty()) expect_op(",");
      ExprPtr target = parse_assign_target(false);
      expect_op("=");
      s->assignments.emplace_back(std::move(target), parse_expression(true));
    }
    expect_block_end();
    s->body = subparse({"endwith"});
    advance();
    expect_block_end();
    return s;
  }

  StmtPtr parse_block() {
    auto s = new_stmt(StmtKind::Scope, cur().offset);
    advance();
    s->text = expect_name();
    while (is_name("scoped") || is_name("required")) advance();
    expect_block_end();
    s->body = subparse({"endblock"});
    advance();
    if (cur().type == TokenType::Name) advance();
    expect_block_end();
    return s;
  }

  // transformers' AssistantTracker extension: {% generation %}...{% endgeneration %} marks assistant text for
  // return_assistant_tokens_mask and renders its body in place (in its own scope, as a call block does).
  StmtPtr parse_generation() {
    auto s = new_stmt(StmtKind::Scope, cur().offset);
    advance();
    expect_block_end();
    s->body = subparse({"endgeneration"});
    advance();
    expect_block_end();
    return s;
  }

  // ---- expressions ----

  // A comma-separated list becomes a tuple. `for_iter` stops before `if` / `recursive` (no conditional expression).
  ExprPtr parse_tuple(bool with_condexpr, bool for_iter) {
    const uint32_t at = cur().offset;
    std::vector<ExprPtr> items;
    bool is_tuple = false;
    while (true) {
      if (!items.empty()) {
        if (!is_op(",")) break;
        advance();
        is_tuple = true;
      }
      if (cur().type == TokenType::VarEnd || cur().type == TokenType::BlockEnd || is_op(")") ||
          (for_iter && (is_name("if") || is_name("recursive")))) {
        break;
      }
      items.push_back(with_condexpr ? parse_expression(true) : parse_or());
    }
    if (!is_tuple) {
      if (items.empty()) fail("Expected an expression, got " + describe(cur()));
      return std::move(items[0]);
    }
    auto t = make(ExprKind::Tuple, at);
    t->args = std::move(items);
    return t;
  }

  ExprPtr parse_expression(bool with_condexpr) { return with_condexpr ? parse_condexpr() : parse_or(); }

  ExprPtr parse_condexpr() {
    DepthGuard guard(*this);
    const uint32_t at = cur().offset;
    ExprPtr expr1 = parse_or();
    while (is_name("if")) {
      advance();
      ExprPtr test = parse_or();
      ExprPtr expr3;
      if (is_name("else")) {
        advance();
        expr3 = parse_condexpr();
      }
      auto e = make(ExprKind::CondExpr, at);
      e->a = std::move(test);
      e->b = std::move(expr1);
      e->c = std::move(expr3);
      expr1 = std::move(e);
    }
    return expr1;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (is_name("or")) {
      const uint32_t at = cur().offset;
      advance();
      auto e = make(ExprKind::Or, at);
      e->a = std::move(left);
      e->b = parse_and();
      left = std::move(e);
    }
    return left;
  }

  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (is_name("and")) {
      const uint32_t at = cur().offset;
      advance();
      auto e = make(ExprKind::And, at);
      e->a = std::move(left);
      e->b = parse_not();
      left = std::move(e);
    }
    return left;
  }

  ExprPtr parse_not() {
    DepthGuard guard(*this);
    if (is_name("not")) {
      const uint32_t at = cur().offset;
      advance();
      auto e = make(ExprKind::Not, at);
      e->a = parse_not();
      return e;
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    const uint32_t at = cur().offset;
    ExprPtr expr = parse_math1();
    ExprPtr cmp;
    while (true) {
      std::string op;
      if (cur().type == TokenType::Operator &&
          (cur().value == "==" || cur().value == "!=" || cur().value == "<" || cur().value == "<=" ||
           cur().value == ">" || cur().value == ">=")) {
        op = cur().value;
        advance();
      } else if (is_name("in")) {
        op = "in";
        advance();
      } else if (is_name("not") && peek().type == TokenType::Name && peek().value == "in") {
        op = "notin";
        advance();
        advance();
      } else {
        break;
      }
      if (!cmp) {
        cmp = make(ExprKind::Compare, at);
        cmp->a = std::move(expr);
      }
      cmp->compare_ops.push_back(op);
      cmp->args.push_back(parse_math1());
    }
    return cmp ? std::move(cmp) : std::move(expr);
  }

  ExprPtr binary(const std::string& op, ExprPtr l, ExprPtr r, uint32_t at) {
    auto e = make(ExprKind::Binary, at);
    e->name = op;
    e->a = std::move(l);
    e->b = std::move(r);
    return e;
  }

  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
      const std::string op = cur().value;
      const uint32_t at = cur().offset;
      advance();
      left = binary(op, std::move(left), parse_concat(), at);
    }
    return left;
  }

  ExprPtr parse_concat() {
    const uint32_t at = cur().offset;
    ExprPtr first = parse_math2();
    if (!is_op("~")) return first;
    auto e = make(ExprKind::Concat, at);
    e->args.push_back(std::move(first));
    while (is_op("~")) {
      advance();
      e->args.push_back(parse_math2());
    }
    return e;
  }

  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const std::string op = cur().value;
      const uint32_t at = cur().offset;
      advance();
      left = binary(op, std::move(left), parse_pow(), at);
    }
    return left;
  }

  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
      const uint32_t at = cur().offset;
      advance();
      left = binary("**", std::move(left), parse_unary(true), at);
    }
    return left;
  }

  ExprPtr parse_unary(bool with_filter) {
    DepthGuard guard(*this);
    const uint32_t at = cur().offset;
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
      const bool neg = cur().value == "-";
      advance();
      node = make(neg ? ExprKind::Neg : ExprKind::Pos, at);
      node->a = parse_unary(false);
    } else {
      node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
  }

  ExprPtr parse_primary() {
    DepthGuard guard(*this);
    const Token& t = cur();
    const uint32_t at = t.offset;
    switch (t.type) {
      case TokenType::Name: {
        auto e = make(ExprKind::Const, at);
        if (t.value == "true" || t.value == "True") {
          e->value = Value::boolean(true);
        } else if (t.value == "false" || t.value == "False") {
          e->value = Value::boolean(false);
        } else if (t.value == "none" || t.value == "None") {
          e->value = Value::none();
        } else {
          e->kind = ExprKind::Name;
          e->name = t.value;
          names_seen_.push_back(t.value);
        }
        advance();
        return e;
      }
      case TokenType::String: {
        std::string s;
        while (cur().type == TokenType::String) {
          s += cur().value;
          advance();
        }
        auto e = make(ExprKind::Const, at);
        e->value = Value::string(std::move(s));
        return e;
      }
      case TokenType::Integer: {
        auto e = make(ExprKind::Const, at);
        int64_t v = 0;
        const auto res = std::from_chars(t.value.data(), t.value.data() + t.value.size(), v);
        if (res.ec != std::errc()) {
          e->value = Value::floating(std::strtod(t.value.c_str(), nullptr));  // beyond int64: approximate
        } else {
          e->value = Value::integer(v);
        }
        advance();
        return e;
      }
      case TokenType::Float: {
        auto e = make(ExprKind::Const, at);
        e->value = Value::floating(std::strtod(t.value.c_str(), nullptr));
        advance();
        return e;
      }
      case TokenType::Operator:
        if (t.value == "(") {
          advance();
          if (is_op(")")) {
            advance();
            auto e = make(ExprKind::Tuple, at);
            return e;
          }
          ExprPtr inner = parse_tuple(true, false);
          expect_op(")");
          return inner;
        }
        if (t.value == "[") {
          advance();
          auto e = make(ExprKind::List, at);
          while (!is_op("]")) {
            if (!e->args.empty()) expect_op(",");
            if (is_op("]")) break;
            e->args.push_back(parse_expression(true));
          }
          advance();
          return e;
        }
        if (t.value == "{") {
          advance();
          auto e = make(ExprKind::Dict, at);
          while (!is_op("}")) {
            if (!e->keys.empty()) expect_op(",");
            if (is_op("}")) break;
            e->keys.push_back(parse_expression(true));
            expect_op(":");
            e->args.push_back(parse_expression(true));
          }
          advance();
          return e;
        }
        break;
      default:
        break;
    }
    fail("unexpected " + describe(t));
  }

  ExprPtr parse_postfix(ExprPtr node) {
    while (true) {
      if (is_op(".")) {
        const uint32_t at = cur().offset;
        advance();
        if (cur().type == TokenType::Name) {
          auto e = make(ExprKind::GetAttr, at);
          e->a = std::move(node);
          e->name = cur().value;
          advance();
          node = std::move(e);
        } else if (cur().type == TokenType::Integer) {
          auto e = make(ExprKind::GetItem, at);
          e->a = std::move(node);
          e->b = parse_primary();
          node = std::move(e);
        } else {
          fail("expected name or number");
        }
      } else if (is_op("[")) {
        node = parse_subscript(std::move(node));
      } else if (is_op("(")) {
        node = parse_call(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr parse_subscript(ExprPtr node) {
    DepthGuard guard(*this);
    const uint32_t at = cur().offset;
    advance();
    std::vector<ExprPtr> items;
    while (!is_op("]")) {
      if (!items.empty()) {
        expect_op(",");
        if (is_op("]")) break;
      }
      items.push_back(parse_subscribed());
    }
    if (items.empty()) fail("expected subscript expression");
    advance();
    auto e = make(ExprKind::GetItem, at);
    e->a = std::move(node);
    if (items.size() == 1) {
      e->b = std::move(items[0]);
    } else {
      auto t = make(ExprKind::Tuple, at);
      t->args = std::move(items);
      e->b = std::move(t);
    }
    return e;
  }

  ExprPtr parse_subscribed() {
    const uint32_t at = cur().offset;
    ExprPtr start;
    if (!is_op(":")) {
      start = parse_expression(true);
      if (!is_op(":")) return start;
    }
    advance();
    auto e = make(ExprKind::Slice, at);
    e->a = std::move(start);
    if (!is_op("]") && !is_op(",") && !is_op(":")) e->b = parse_expression(true);
    if (is_op(":")) {
      advance();
      if (!is_op("]") && !is_op(",")) e->c = parse_expression(true);
    }
    return e;
  }

  void parse_call_args(Expr& e) {
    expect_op("(");
    bool first = true;
    while (!is_op(")")) {
      if (!first) {
        expect_op(",");
        if (is_op(")")) break;
      }
      first = false;
      if (is_op("*")) {
        advance();
        e.dyn_args = parse_expression(true);
      } else if (is_op("**")) {
        advance();
        e.dyn_kwargs = parse_expression(true);
      } else if (cur().type == TokenType::Name && peek().type == TokenType::Operator && peek().value == "=") {
        std::string key = cur().value;
        advance();
        advance();
        e.kwargs.emplace_back(std::move(key), parse_expression(true));
      } else {
        if (!e.kwargs.empty() || e.dyn_args || e.dyn_kwargs) fail("Invalid argument syntax");
        e.args.push_back(parse_expression(true));
      }
    }
    advance();
  }

  ExprPtr parse_call(ExprPtr node) {
    DepthGuard guard(*this);
    auto e = make(ExprKind::Call, cur().offset);
    e->a = std::move(node);
    parse_call_args(*e);
    return e;
  }

  // `name(args) | name2 ...` applied to `input` (null for filter blocks and set blocks: the body text).
  ExprPtr parse_filter_chain(ExprPtr input) {
    ExprPtr node = std::move(input);
    bool first = true;
    while (first || is_op("|")) {
      if (!first) advance();
      first = false;
      node = parse_one_filter(std::move(node));
    }
    return node;
  }

  ExprPtr parse_one_filter(ExprPtr input) {
    DepthGuard guard(*this);
    auto e = make(ExprKind::Filter, cur().offset);
    std::string name = expect_name();
    while (is_op(".")) {
      advance();
      name += "." + expect_name();
    }
    e->name = name;
    e->fn = find_filter(name);
    e->a = std::move(input);
    if (is_op("(")) parse_call_args(*e);
    return e;
  }

  ExprPtr parse_filter_expr(ExprPtr node) {
    while (true) {
      if (is_op("|")) {
        advance();
        node = parse_one_filter(std::move(node));
      } else if (is_name("is")) {
        node = parse_test(std::move(node));
      } else if (is_op("(")) {
        node = parse_call(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr parse_test(ExprPtr node) {
    DepthGuard guard(*this);
    auto e = make(ExprKind::Test, cur().offset);
    advance();
    if (is_name("not")) {
      advance();
      e->negated = true;
    }
    std::string name = expect_name();
    while (is_op(".")) {
      advance();
      name += "." + expect_name();
    }
    e->name = name;
    e->fn = find_test(name);
    e->a = std::move(node);
    const Token& t = cur();
    if (is_op("(")) {
      parse_call_args(*e);
    } else if ((t.type == TokenType::Name || t.type == TokenType::String || t.type == TokenType::Integer ||
                t.type == TokenType::Float || is_op("[") || is_op("{")) &&
               !is_name("else") && !is_name("or") && !is_name("and")) {
      if (is_name("is")) fail("You cannot chain multiple tests with is");
      ExprPtr arg = parse_primary();
      e->args.push_back(parse_postfix(std::move(arg)));
    }
    return e;
  }

  // ---- Jinja2 reports unknown filters and tests at compile time, except under `if` and conditional
  // expressions (where they fail only when reached). ----

  void check_expr(const Expr* e, bool soft) {
    if (!e) return;
    if (e->kind == ExprKind::CondExpr) soft = true;
    if ((e->kind == ExprKind::Filter || e->kind == ExprKind::Test) && !e->fn && !soft) {
      fail_at(std::string("No ") + (e->kind == ExprKind::Filter ? "filter" : "test") + " named '" + e->name + "'.", e->offset);
    }
    check_expr(e->a.get(), soft);
    check_expr(e->b.get(), soft);
    check_expr(e->c.get(), soft);
    for (const auto& x : e->args) check_expr(x.get(), soft);
    for (const auto& x : e->keys) check_expr(x.get(), soft);
    for (const auto& [k, x] : e->kwargs) check_expr(x.get(), soft);
    check_expr(e->dyn_args.get(), soft);
    check_expr(e->dyn_kwargs.get(), soft);
  }

  void check_names(const Body& body, bool soft) {
    for (const auto& s : body) {
      switch (s->kind) {
        case StmtKind::If:
          for (const auto& c : s->conds) check_expr(c.get(), true);
          for (const auto& b : s->bodies) check_names(b, true);
          check_names(s->else_body, true);
          break;
        case StmtKind::For:
          check_expr(s->expr.get(), soft);
          check_expr(s->cond.get(), false);
          check_names(s->body, false);
          check_names(s->else_body, false);
          break;
        case StmtKind::Macro:
        case StmtKind::CallBlock:
          for (const auto& p : s->params) check_expr(p.default_value.get(), soft);
          check_expr(s->expr.get(), soft);
          check_names(s->body, false);
          break;
        default:
          check_expr(s->expr.get(), soft);
          check_expr(s->target.get(), soft);
          for (const auto& [t, v] : s->assignments) check_expr(v.get(), soft);
          check_names(s->body, soft);
          break;
      }
    }
  }
};

}  // namespace

ParsedTemplate parse_template(std::string_view source, int max_depth) {
  ParsedTemplate t;
  t.lexed = lex(source);
  t.body = Parser(t.lexed, max_depth).parse_all();
  return t;
}

}  // namespace ninfer::jinja
