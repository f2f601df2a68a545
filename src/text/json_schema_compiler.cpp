// Emission of the JSON generation language for reduced schema shapes.
#include "text/json_schema_compiler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "ninfer/constraint_error.h"
#include "text/automaton_memo.h"
#include "text/char_automaton.h"
#include "text/integer_ranges.h"
#include "text/ir_builder.h"
#include "text/json_formats.h"
#include "text/json_string_automaton.h"
#include "text/json_text.h"
#include "text/literal_set.h"
#include "text/number_automaton.h"
#include "text/schema_errors.h"
#include "text/schema_keywords.h"
#include "text/schema_shape.h"
#include "text/shape_description.h"

namespace ninfer::text {
namespace {

using grammar::Expr;
using grammar::ExprKind;
using grammar::Grammar;

[[noreturn]] void unsupported(const std::string& keyword, const std::string& pointer, const std::string& why = "") {
  throw_unsupported(keyword, pointer, why);
}

class Emitter {
 public:
  Emitter(Grammar& g, const SchemaDocument& doc, const JsonFormatOptions& fmt, const SchemaLimits& limits)
      : g_(g), fmt_(fmt), limits_(limits), reducer_(doc, limits) {
    index_document(doc.root());
  }

  // Rule for the value of a conjunction of schema nodes (memoised: recursion closes through it).
  // Rules are keyed by the schema text of their parts, so identical sub-schemas at different
  // places share one rule (and one automaton) instead of being compiled once per place.
  const std::string& content_of(const SchemaNode& n) {
    auto it = content_.find(n.node);
    if (it == content_.end()) {
      // Document nodes by structural id; nodes the reducer built (small) by their text, which
      // never starts with '#'.
      auto id = node_id_.find(n.node);
      it = content_.emplace(n.node, id != node_id_.end() ? "#" + std::to_string(id->second) : n.node->dump()).first;
    }
    return it->second;
  }
  // Gives equal document subtrees one id, bottom up with an explicit stack: linear in the
  // document (a text key per nested node would cost depth x size).
  void index_document(const Json& root) {
    std::unordered_map<std::string, uint32_t> interned;
    std::vector<std::pair<const Json*, bool>> stack{{&root, false}};
    while (!stack.empty()) {
      auto [node, children_done] = stack.back();
      stack.pop_back();
      if (!children_done && node->is_structured()) {
        stack.push_back({node, true});
        for (const auto& child : *node) stack.push_back({&child, false});
        continue;
      }
      std::string sig;
      if (node->is_object()) {
        sig = "o";
        for (const auto& [k, v] : node->items())
          sig += std::to_string(k.size()) + ":" + k + "=" + std::to_string(node_id_.at(&v)) + ",";
      } else if (node->is_array()) {
        sig = "a";
        for (const auto& v : *node) sig += std::to_string(node_id_.at(&v)) + ",";
      } else {
        sig = "s" + node->dump();
      }
      auto [it, fresh] = interned.try_emplace(std::move(sig), static_cast<uint32_t>(interned.size()));
      node_id_[node] = it->second;
    }
  }
  int32_t value_ref(const PartList& parts) {
    std::string key;
    for (const auto& p : parts) key += content_of(p) + "\x1f";
    auto it = rule_of_.find(key);
    int32_t rule;
    if (it != rule_of_.end()) {
      rule = it->second;
    } else {
      rule = static_cast<int32_t>(g_.rules.size());
      g_.rules.push_back({"v" + std::to_string(rule), -1, -1, {}});
      rule_of_.emplace(key, rule);
      // Sub-schemas are lowered by recursion: bound it before the stack is at risk.
      if (nesting_ >= limits_.max_nesting)
        throw limit_exceeded("schema.max_nesting", limits_.max_nesting, "sub-schema nesting")
            .at_pointer(parts.empty() ? "" : parts.back().pointer);
      ++nesting_;
      std::vector<Shape> shapes = reducer_.reduce(parts);
      std::vector<int32_t> alts;
      g_.label(rule, describe_shapes(shapes));  // explanations: what the rule is
      for (const auto& s : shapes) alts.push_back(shape_expr(s));
      --nesting_;
      if (alts.empty() && first_unsat_.empty())
        first_unsat_ = !reducer_.first_conflict().empty() ? reducer_.first_conflict() : parts.empty() ? "" : parts.back().pointer;
      g_.rules[rule].body = choice(std::move(alts));
    }
    const int32_t ref = ir::rule_ref(g_, rule);
    if (!parts.empty()) g_.place_ref(ref, parts.front().pointer);  // explanations: where this use stands
    return ref;
  }

  const std::string& first_unsat() const { return first_unsat_; }

 private:
  Grammar& g_;
  const JsonFormatOptions& fmt_;
  const SchemaLimits& limits_;
  ShapeReducer reducer_;
  uint32_t nesting_ = 0;  // value rules being lowered inside each other
  std::map<std::string, int32_t> rule_of_;
  std::string first_unsat_;
  int32_t ws_rule_ = -1;
  std::map<std::string, CharAutomaton> regex_cache_;
  std::map<std::string, std::shared_ptr<const grammar::ByteAutomaton>> string_automata_;
  std::unordered_map<const Json*, std::string> content_;
  std::unordered_map<const Json*, uint32_t> node_id_;  // structural id of every document node
  std::map<std::pair<uint32_t, uint32_t>, std::shared_ptr<const grammar::ByteAutomaton>> length_automata_;
  std::map<std::pair<uint32_t, uint32_t>, int32_t> length_rules_;
  std::map<std::pair<std::string, size_t>, int32_t> key_rules_;  // (key text after its quote, bit) -> key rule
  std::map<std::string, int32_t> name_rules_;                     // excluded names, value rule -> undeclared members
  // Length bounds above kLongLength are split into blocks of kLengthBlock characters.
  static constexpr uint32_t kLongLength = 256, kLengthBlock = 128;

  // ---- IR helpers (thin wrappers over ir_builder.h bound to this grammar)
  int32_t lit(const std::string& str) { return ir::literal(g_, str); }
  int32_t seq(std::vector<int32_t> items) { return ir::seq(g_, std::move(items)); }
  int32_t choice(std::vector<int32_t> items) { return ir::choice(g_, std::move(items)); }
  int32_t repeat(int32_t item, uint32_t min, uint32_t max) { return ir::repeat(g_, item, min, max); }
  int32_t optional(int32_t item) { return repeat(item, 0, 1); }
  int32_t automaton(std::shared_ptr<const grammar::ByteAutomaton> a, bool keep_inline = false) {
    return ir::automaton(g_, std::move(a), keep_inline);
  }
  // Whitespace between tokens: nothing (compact) or a bounded run (flexible).
  int32_t ws() {
    if (fmt_.whitespace == JsonWhitespace::Compact) return lit("");
    if (ws_rule_ < 0) {
      Expr cls;
      cls.kind = ExprKind::CharClass;
      cls.ranges = {{'\t', '\n'}, {'\r', '\r'}, {' ', ' '}};
      int32_t c = g_.add(std::move(cls));
      ws_rule_ = static_cast<int32_t>(g_.rules.size());
      g_.rules.push_back({"ws", repeat(c, 0, fmt_.max_whitespace_run), -1, {}});
    }
    Expr e;
    e.kind = ExprKind::RuleRef;
    e.rule = ws_rule_;
    return g_.add(std::move(e));
  }
  int32_t punct(const char* p) { return seq({ws(), lit(p), ws()}); }

  // ---- literal JSON values (enum/const)
  int32_t literal_value(const Json& v) {
    // Empty containers have one whitespace run inside, not two.
    if (v.is_object() && v.empty()) return seq({lit("{"), ws(), lit("}")});
    if (v.is_array() && v.empty()) return seq({lit("["), ws(), lit("]")});
    if (v.is_object()) {
      std::vector<int32_t> items{lit("{"), ws()};
      bool first = true;
      for (const auto& [k, x] : v.items()) {
        if (!first) items.push_back(punct(","));
        first = false;
        items.push_back(lit(json_quote(k)));
        items.push_back(punct(":"));
        items.push_back(literal_value(x));
      }
      items.push_back(ws());
      items.push_back(lit("}"));
      return seq(items);
    }
    if (v.is_array()) {
      std::vector<int32_t> items{lit("["), ws()};
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) items.push_back(punct(","));
        items.push_back(literal_value(v[i]));
      }
      items.push_back(ws());
      items.push_back(lit("]"));
      return seq(items);
    }
    if (v.is_number()) {
      // Every spelling of the number (number_spellings.h), as the validator compares values.
      LiteralSet one;
      one.add_number(dump_json(v, {}));
      return automaton(one.build());
    }
    if (v.is_string()) return lit(json_quote(v.get<std::string>()));
    return lit(dump_json(v, {}));
  }

  // ---- shapes
  int32_t shape_expr(const Shape& s) {
    if (s.has_enum) {
      // Scalars go into one literal set (linear in their bytes, however many); arrays and
      // objects, which may hold whitespace, are alternatives of their own.
      std::vector<int32_t> alts;
      std::set<std::string> seen;
      LiteralSet scalars;
      // The values are checked against the other assertions only (each is in its own enum).
      Shape others = s;
      others.has_enum = false;
      others.enum_values.clear();
      for (const auto& v : s.enum_values) {
        if (!value_matches_shape(v, others, reducer_)) continue;
        if (v.is_array() || v.is_object()) {
          if (seen.insert(dump_json(v, {})).second) alts.push_back(literal_value(v));
        } else if (v.is_number()) {
          scalars.add_number(dump_json(v, {}));
        } else {
          scalars.add(v.is_string() ? json_quote(v.get<std::string>()) : dump_json(v, {}));
        }
      }
      if (!scalars.empty()) {
        try {
          alts.push_back(automaton(scalars.build()));
        } catch (ConstraintError& e) {
          if (e.pointer().empty()) e.at_pointer(s.enum_pointer);
          throw;
        }
      }
      if (alts.empty() && first_unsat_.empty()) first_unsat_ = s.enum_pointer;
      return choice(alts);
    }
    auto excluded = [&](const Json& v) {
      return std::any_of(s.excluded_values.begin(), s.excluded_values.end(), [&](const Json& e) { return e == v; });
    };
    for (const auto& e : s.excluded_values)
      if ((e.is_array() && (s.types & kArray)) || (e.is_object() && (s.types & kObject)))
        unsupported("not", s.excluded_pointer, "excluding array or object values");
    std::vector<int32_t> alts;
    if ((s.types & kNull) && !excluded(Json(nullptr))) alts.push_back(lit("null"));
    if (s.types & kBool) {
      std::vector<int32_t> b;
      if (!excluded(Json(true))) b.push_back(lit("true"));
      if (!excluded(Json(false))) b.push_back(lit("false"));
      if (!b.empty()) alts.push_back(choice(b));
    }
    if (s.types & (kInt | kFrac)) alts.push_back(number_expr(s));
    if (s.types & kString) alts.push_back(string_expr(s));
    if (s.types & kArray) alts.push_back(array_expr(s));
    if (s.types & kObject) alts.push_back(object_expr(s));
    return choice(alts);
  }

  int32_t number_expr(const Shape& shape) {
    // OpenAPI integer formats (int32, int64) narrow numbers to integer ranges.
    Shape s = shape;
    for (const auto& f : shape.formats)
      if (auto r = integer_format_range(f.pattern)) {
        s.types &= ~kFrac;
        if (double(r->first) > s.lower || (double(r->first) == s.lower && s.lower_exclusive))
          s.lower = double(r->first), s.lower_exclusive = false;
        if (double(r->second) < s.upper || (double(r->second) == s.upper && s.upper_exclusive))
          s.upper = double(r->second), s.upper_exclusive = false;
        if (!s.int_lower || *s.int_lower < r->first) s.int_lower = r->first;
        if (!s.int_upper || *s.int_upper > r->second) s.int_upper = r->second;
        if (s.number_pointer.empty()) s.number_pointer = f.pointer;
      }
    const bool bounded = std::isfinite(s.lower) || std::isfinite(s.upper);
    bool integral = !(s.types & kFrac);
    uint64_t modulus = 0;
    for (double m : s.multiple_of) {
      // Fractional multipleOf disagrees between exact decimals and binary64 validators: refuse it.
      if (std::floor(m) != m || m > 1e5) unsupported("multipleOf", s.number_pointer, "only integer divisors up to 100000");
      const uint64_t k = static_cast<uint64_t>(m);
      modulus = modulus ? std::lcm(modulus, k) : k;
      integral = true;  // a multiple of an integer is an integer
    }
    if (modulus > 100000) unsupported("multipleOf", s.number_pointer, "combined divisor above 100000");
    if (integral && modulus == 0) {
      // Exact integer bounds (from the schema's own integers, not through double).
      if (s.int_out_of_range) {
        if (first_unsat_.empty()) first_unsat_ = s.number_pointer;
        return choice({});
      }
      std::optional<int64_t> lo = s.int_lower, hi = s.int_upper;
      if (lo && hi && *lo > *hi) {
        if (first_unsat_.empty()) first_unsat_ = s.number_pointer;
        return choice({});
      }
      // `not` enum/const values punch holes into the range.
      std::vector<int64_t> holes;
      for (const auto& e : s.excluded_values)
        if (e.is_number() && json_type_bit(e) == kInt && std::fabs(e.get<double>()) < 9.2e18) holes.push_back(e.get<int64_t>());
      std::sort(holes.begin(), holes.end());
      holes.erase(std::unique(holes.begin(), holes.end()), holes.end());
      std::vector<int32_t> pieces;
      std::optional<int64_t> from = lo;
      for (int64_t h : holes) {
        if ((lo && h < *lo) || (hi && h > *hi)) continue;
        if (!from || *from <= h - 1) pieces.push_back(integer_range_expr(g_, from, h - 1));
        if (h == INT64_MAX) {
          from.reset();
          hi = INT64_MIN;  // nothing left above
          break;
        }
        from = h + 1;
      }
      if (!(hi && from && *from > *hi) && !(hi && *hi == INT64_MIN && holes.size() && holes.back() == INT64_MAX))
        pieces.push_back(integer_range_expr(g_, from, hi));
      return choice(pieces);
    }
    // `not` enum/const numbers inside the range: the range is cut into pieces with exclusive
    // bounds at each excluded value (exclusive bounds are exact, see number_automaton.h).
    std::vector<double> cuts;
    for (const auto& e : s.excluded_values)
      if (e.is_number()) {
        const double d = e.get<double>();
        if (!(s.types & kInt)) unsupported("not", s.excluded_pointer, "excluding values of non-integer-only numbers");
        if (d > s.lower && d < s.upper) cuts.push_back(d);
        else if ((d == s.lower && !s.lower_exclusive) || (d == s.upper && !s.upper_exclusive))
          unsupported("not", s.excluded_pointer, "excluding a value on an inclusive bound");
      }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    if (!cuts.empty()) {
      std::vector<int32_t> pieces;
      double lo = s.lower;
      bool lo_ex = s.lower_exclusive;
      for (size_t k = 0; k <= cuts.size(); ++k) {
        const double hi = k < cuts.size() ? cuts[k] : s.upper;
        const bool hi_ex = k < cuts.size() ? true : s.upper_exclusive;
        if (auto a = bounded_number(lo, lo_ex, hi, hi_ex, integral, modulus, s)) pieces.push_back(automaton(std::move(a)));
        lo = hi;
        lo_ex = true;
      }
      return choice(pieces);
    }
    if (!(s.types & kInt)) {
      // Numbers that are not integers ("not": {"type": "integer"}): a fraction with a non-zero digit.
      if (bounded) unsupported("not", s.excluded_pointer.empty() ? s.number_pointer : s.excluded_pointer,
                               "bounds on non-integer-only numbers");
      Expr d;
      d.kind = ExprKind::CharClass;
      d.ranges = {{'0', '9'}};
      const int32_t digit = g_.add(std::move(d));
      Expr nz;
      nz.kind = ExprKind::CharClass;
      nz.ranges = {{'1', '9'}};
      const int32_t nonzero = g_.add(std::move(nz));
      // A validator parses the text to binary64, where long numbers lose their fraction (1e20 + 0.5
      // is an integer there). At most 15 significant digits, the last one a non-zero fraction
      // digit: the distance to the nearest integer is then at least 1e-15 of the magnitude, above
      // half a binary64 ulp, so the parsed value keeps a fraction.
      std::vector<int32_t> forms{seq({lit("0."), repeat(digit, 0, 14), nonzero})};
      for (uint32_t k = 0; k <= 13; ++k)
        forms.push_back(seq({nonzero, repeat(digit, k, k), lit("."), repeat(digit, 0, 13 - k), nonzero}));
      return seq({optional(lit("-")), choice(forms)});
    }
    if (bounded || modulus > 0) {
      auto a = bounded_number(s.lower, s.lower_exclusive, s.upper, s.upper_exclusive, integral, modulus, s);
      if (!a) {
        if (first_unsat_.empty()) first_unsat_ = s.number_pointer;
        return choice({});
      }
      return automaton(std::move(a));
    }
    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    auto digits = [&](uint32_t min) {
      Expr d;
      d.kind = ExprKind::CharClass;
      d.ranges = {{'0', '9'}};
      return repeat(g_.add(std::move(d)), min, grammar::kUnbounded);
    };
    Expr nz;
    nz.kind = ExprKind::CharClass;
    nz.ranges = {{'1', '9'}};
    int32_t int_part = choice({lit("0"), seq({g_.add(std::move(nz)), digits(0)})});
    Expr e_cls;
    e_cls.kind = ExprKind::CharClass;
    e_cls.ranges = {{'E', 'E'}, {'e', 'e'}};
    Expr sign;
    sign.kind = ExprKind::CharClass;
    sign.ranges = {{'+', '+'}, {'-', '-'}};
    int32_t frac = optional(seq({lit("."), digits(1)}));
    int32_t exp = optional(seq({g_.add(std::move(e_cls)), optional(g_.add(std::move(sign))), digits(1)}));
    return seq({optional(lit("-")), int_part, frac, exp});
  }

  // Numbers between two bounds (infinite = none) in every spelling of the family of
  // number_automaton.h (exponents included), integers as plain integer text; null when the range is empty.
  std::shared_ptr<const grammar::ByteAutomaton> bounded_number(double lower, bool lower_ex, double upper, bool upper_ex,
                                                               bool integral, uint64_t modulus, const Shape& s) {
    NumberSpec spec;
    spec.integer = integral;
    spec.multiple_of = modulus;
    if (std::isfinite(lower)) spec.lower = NumberBound{lower, lower_ex};
    if (std::isfinite(upper)) spec.upper = NumberBound{upper, upper_ex};
    char key[160];
    std::snprintf(key, sizeof key, "num:%d:%llu:%.17g:%d:%.17g:%d", int(integral), static_cast<unsigned long long>(modulus),
                  spec.lower ? lower : -HUGE_VAL, int(lower_ex), spec.upper ? upper : HUGE_VAL, int(upper_ex));
    if (auto known = AutomatonMemo::shared().find(key)) return known;
    try {
      auto a = number_automaton(spec);
      AutomatonMemo::shared().put(key, a);
      return a;
    } catch (const std::invalid_argument& e) {
      unsupported(modulus > 0 ? "multipleOf" : "minimum", s.number_pointer.empty() ? s.excluded_pointer : s.number_pointer,
                  e.what());
    }
  }

  // One character of string content in canonical form.
  int32_t string_char() {
    Expr raw;
    raw.kind = ExprKind::CharClass;
    raw.ranges = {{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0xD7FF}, {0xE000, grammar::kMaxCodepoint}};
    std::vector<int32_t> alts{g_.add(std::move(raw))};
    for (const char* esc : {"\\\"", "\\\\", "\\b", "\\f", "\\n", "\\r", "\\t"}) alts.push_back(lit(esc));
    for (int c = 0; c < 0x20; ++c) {
      if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') continue;
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      alts.push_back(lit(buf));
    }
    return choice(alts);
  }

  // A regex from the schema, compiled once per compile; errors become UnsupportedSchema at `pointer`.
  const CharAutomaton& regex(const std::string& pattern, RegexMode mode, const std::string& keyword,
                             const std::string& pointer) {
    const std::string key = std::string(mode == RegexMode::Search ? "s:" : "f:") + pattern;
    auto it = regex_cache_.find(key);
    if (it != regex_cache_.end()) return it->second;
    try {
      return regex_cache_.emplace(key, CharAutomaton::from_regex(pattern, mode, budget())).first->second;
    } catch (const ConstraintError& e) {
      unsupported(keyword, pointer, e.what());
    }
  }
  AutomatonBudget budget() const {
    AutomatonBudget b;
    b.max_length = limits_.max_string_length;
    return b;
  }
  CharAutomaton intersect(const CharAutomaton& a, const CharAutomaton& b, const std::string& keyword,
                          const std::string& pointer) {
    try {
      return a.intersect(b, budget());
    } catch (const ConstraintError& e) {
      unsupported(keyword, pointer, e.what());
    }
  }

  // The decoded string values a shape allows, or nullopt when only lengths (or nothing) constrain it.
  std::optional<CharAutomaton> string_language(const Shape& s) {
    const bool excludes = !s.excluded_patterns.empty() ||
                          std::any_of(s.excluded_values.begin(), s.excluded_values.end(),
                                      [](const Json& e) { return e.is_string(); });
    if (s.patterns.empty() && !excludes && std::none_of(s.formats.begin(), s.formats.end(), [](const PatternRef& f) {
          return !integer_format_range(f.pattern) && !format_is_annotation(f.pattern);
        }))
      return std::nullopt;
    CharAutomaton lang = CharAutomaton::any_string();
    if (s.min_length > 0 || s.max_length != std::numeric_limits<uint64_t>::max()) {
      const uint64_t cap = limits_.max_string_length;
      if (s.min_length > cap || (s.max_length != std::numeric_limits<uint64_t>::max() && s.max_length > cap))
        unsupported(s.max_length > cap ? "maxLength" : "minLength", s.pointer, "length bounds above " + std::to_string(cap));
      const uint32_t max = s.max_length == std::numeric_limits<uint64_t>::max() ? UINT32_MAX : static_cast<uint32_t>(s.max_length);
      try {
        lang = CharAutomaton::length_between(static_cast<uint32_t>(s.min_length), max, budget());
      } catch (const ConstraintError& e) {
        unsupported("maxLength", s.pointer, e.what());
      }
    }
    for (const auto& f : s.formats) {
      if (integer_format_range(f.pattern) || format_is_annotation(f.pattern)) continue;  // nothing to assert on strings
      auto re = string_format_regex(f.pattern);
      if (!re) unsupported("format", f.pointer, "format '" + f.pattern + "'");
      lang = intersect(lang, regex(*re, RegexMode::FullMatch, "format", f.pointer), "format", f.pointer);
      if (f.pattern == "hostname")  // RFC 1123: at most 253 characters in all
        lang = intersect(lang, CharAutomaton::length_between(1, 253, budget()), "format", f.pointer);
    }
    for (const auto& p : s.patterns)
      lang = intersect(lang, regex(p.pattern, RegexMode::Search, "pattern", p.pointer), "pattern", p.pointer);
    for (const auto& p : s.excluded_patterns)
      lang = intersect(lang, regex(p.pattern, RegexMode::Search, "not", p.pointer).complement(), "not", p.pointer);
    if (excludes) {
      CharAutomaton literals;
      for (const auto& e : s.excluded_values)
        if (e.is_string()) literals = literals.unite(CharAutomaton::literal(utf8_to_u32(e.get<std::string>())), budget());
      lang = intersect(lang, literals.complement(), "not", s.excluded_pointer);
    }
    return lang;
  }

  // Everything string_language reads, as text: equal keys give equal languages.
  static std::string string_language_key(const Shape& s) {
    std::string k = std::to_string(s.min_length) + "," + std::to_string(s.max_length);
    for (const auto& f : s.formats) k += "|f" + std::to_string(f.pattern.size()) + ":" + f.pattern;
    for (const auto& p : s.patterns) k += "|p" + std::to_string(p.pattern.size()) + ":" + p.pattern;
    for (const auto& p : s.excluded_patterns) k += "|x" + std::to_string(p.pattern.size()) + ":" + p.pattern;
    for (const auto& e : s.excluded_values)
      if (e.is_string()) k += "|v" + e.dump();
    return k;
  }

  int32_t string_expr(const Shape& s) {
    if (s.min_length > s.max_length) {
      if (first_unsat_.empty()) first_unsat_ = s.pointer;
      return choice({});
    }
    int32_t content;
    // Equal string constraints (six `format: hostname` properties, say) share one automaton: built
    // and minimised once, and one shared rule in the grammar automaton.
    const std::string key = string_language_key(s);
    // Across compiles too (AutomatonMemo): the key holds everything the language depends on,
    // the length cap included.
    const std::string memo_key = "str:" + std::to_string(limits_.max_string_length) + ":" + key;
    if (auto it = string_automata_.find(key); it != string_automata_.end()) {
      content = automaton(it->second);
    } else if (auto known = AutomatonMemo::shared().find(memo_key)) {
      string_automata_.emplace(key, known);
      content = automaton(std::move(known));
    } else if (auto lang = string_language(s)) {
      if (lang->is_empty()) {
        if (first_unsat_.empty()) first_unsat_ = s.pointer;
        return choice({});
      }
      content = lang->to_ir(g_, Encoding::JsonString);
      if (g_.exprs[content].kind == grammar::ExprKind::Automaton) {
        string_automata_.emplace(key, g_.exprs[content].automaton);
        AutomatonMemo::shared().put(memo_key, g_.exprs[content].automaton);
      }
    } else if (s.min_length == 0 && s.max_length == std::numeric_limits<uint64_t>::max()) {
      content = automaton(json_string_content());
    } else {
      // Lengths only: one automaton per bound pair, or blocks of characters for long bounds.
      const uint64_t cap = limits_.max_string_length;
      if (s.min_length > cap || (s.max_length != std::numeric_limits<uint64_t>::max() && s.max_length > cap))
        unsupported(s.max_length > cap ? "maxLength" : "minLength", s.pointer,
                    "string length bounds above " + std::to_string(cap));
      const uint32_t max = s.max_length == std::numeric_limits<uint64_t>::max() ? UINT32_MAX : static_cast<uint32_t>(s.max_length);
      const uint32_t min = static_cast<uint32_t>(s.min_length);
      try {
        content = (max != UINT32_MAX && max > kLongLength) || min > kLongLength ? long_length_content(min, max)
                                                                              : automaton(length_content(min, max));
      } catch (const ConstraintError& e) {
        unsupported("maxLength", s.pointer, e.what());
      }
    }
    return seq({lit("\""), content, lit("\"")});
  }

  // String content of min..max characters (max may be kUnbounded): the minimal deterministic
  // automaton of length_between, lowered once per distinct bound pair.
  std::shared_ptr<const grammar::ByteAutomaton> length_content(uint32_t min, uint32_t max) {
    const auto key = std::make_pair(min, max);
    auto it = length_automata_.find(key);
    if (it == length_automata_.end()) {
      const std::string memo_key = "len:" + std::to_string(limits_.max_string_length) + ":" + std::to_string(min) + "," +
                                   std::to_string(max);
      std::shared_ptr<const grammar::ByteAutomaton> a = AutomatonMemo::shared().find(memo_key);
      if (!a) {
        grammar::Grammar scratch;
        const int32_t x = CharAutomaton::length_between(min, max, budget()).to_ir(scratch, Encoding::JsonString);
        a = scratch.exprs[x].automaton;
        AutomatonMemo::shared().put(memo_key, a);
      }
      it = length_automata_.emplace(key, std::move(a)).first;
    }
    return it->second;
  }

  // A rule whose body is the content automaton of min..max characters, one per bound pair.
  int32_t length_rule(uint32_t min, uint32_t max) {
    const auto key = std::make_pair(min, max);
    auto it = length_rules_.find(key);
    if (it == length_rules_.end()) {
      const int32_t body = automaton(length_content(min, max));
      const int32_t rule = static_cast<int32_t>(g_.rules.size());
      g_.rules.push_back({"len" + std::to_string(min) + "_" + std::to_string(max), body, -1, {}});
      it = length_rules_.emplace(key, rule).first;
    }
    return rule_ref(it->second);
  }

  // Long length bounds without one automaton state per counted character: a length L splits
  // uniquely into k full blocks of kLengthBlock characters and a tail of L mod kLengthBlock, so
  // the content is Full{k} Tail with the bounds on (k, tail) spelled out. Full is one shared rule
  // (the automaton grows with max / kLengthBlock instead of max, and masks inside a block are the
  // same for every block); the tails stay inline, so closing the string never returns from a call.
  // Bounds above kLongLength give k >= 2, so the last alternative has a block to join its tail.
  int32_t long_length_content(uint32_t min, uint32_t max) {
    const uint32_t b = kLengthBlock;
    const uint32_t klo = min / b, rlo = min % b;
    std::vector<int32_t> alts;
    auto blocks = [&](uint32_t lo, uint32_t hi) { return repeat(length_rule(b, b), lo, hi); };
    // Tails stay inline even where equal tails of other strings exist (a shared tail would end
    // in a return, making every token that closes the string depend on the caller).
    auto tail = [&](uint32_t lo, uint32_t hi) { return automaton(length_content(lo, hi), true); };
    if (max == grammar::kUnbounded) {
      alts.push_back(seq({blocks(klo, klo), tail(rlo, b - 1)}));
      alts.push_back(seq({blocks(klo + 1, grammar::kUnbounded), tail(0, b - 1)}));
    } else {
      const uint32_t k = max / b, r = max % b;  // min <= max, so klo <= k
      if (klo < k) alts.push_back(seq({blocks(klo, klo), tail(rlo, b - 1)}));
      if (klo + 1 < k) alts.push_back(seq({blocks(klo + 1, k - 1), tail(0, b - 1)}));
      // The last block joins the shortened tail in one inline automaton: every return from the
      // shared block then lands where at least a block's worth of characters may follow, so
      // tokens that cross a block's end do not depend on which block it was.
      alts.push_back(seq({blocks(k - 1, k - 1), tail(b + (klo == k ? rlo : 0), b + r)}));
    }
    return choice(alts);
  }

  int32_t array_expr(const Shape& s) {
    if (s.min_items > s.max_items) {
      if (first_unsat_.empty()) first_unsat_ = s.pointer;
      return choice({});
    }
    // Position i's schema: the conjunction over array parts of prefix[i] or their rest schema.
    size_t prefix_len = 0;
    for (const auto& a : s.arrays) prefix_len = std::max(prefix_len, a.prefix.size());
    auto position_parts = [&](size_t i, bool& impossible) {
      PartList parts;
      impossible = false;
      for (const auto& a : s.arrays) {
        if (i < a.prefix.size()) parts.push_back(a.prefix[i]);
        else if (a.rest_false) impossible = true;
        else if (a.rest) parts.push_back(*a.rest);
      }
      return parts;
    };
    const uint64_t max_items = s.max_items;
    const uint64_t min_items = s.min_items;
    if (min_items > 100000) unsupported("minItems", s.pointer, "more than 100000 items");
    // Items 0..prefix_len-1 nested as optionals from min_items on; then the repeated rest.
    std::vector<int32_t> item_exprs;
    size_t limit = static_cast<size_t>(std::min<uint64_t>(prefix_len, max_items));
    bool truncated = false;
    for (size_t i = 0; i < limit; ++i) {
      bool impossible;
      PartList parts = position_parts(i, impossible);
      if (impossible) {
        limit = i;
        truncated = true;
        break;
      }
      item_exprs.push_back(value_ref(parts));
    }
    if (min_items > limit && (truncated || limit == max_items)) {
      if (first_unsat_.empty()) first_unsat_ = s.pointer;
      return choice({});
    }
    // The tail after the prefix: rest items, count [max(0,min-limit), max-limit].
    int32_t tail = -1;  // expression for ("," item)* after at least one item; -1 = none allowed
    bool rest_allowed = !truncated && limit == prefix_len && max_items > prefix_len;
    bool rest_impossible = false;
    PartList rest_parts;
    if (rest_allowed) {
      rest_parts = position_parts(prefix_len, rest_impossible);
      rest_allowed = !rest_impossible;
    }
    const uint64_t rest_min = min_items > limit ? min_items - limit : 0;
    if (rest_min > 0 && !rest_allowed) {
      if (first_unsat_.empty()) first_unsat_ = s.pointer;
      return choice({});
    }
    uint32_t rest_max = 0;
    if (rest_allowed) {
      uint64_t m = max_items == std::numeric_limits<uint64_t>::max() ? grammar::kUnbounded : max_items - limit;
      if (m != grammar::kUnbounded && m > 100000) unsupported("maxItems", s.pointer, "more than 100000 items");
      rest_max = static_cast<uint32_t>(std::min<uint64_t>(m, grammar::kUnbounded));
      if (rest_min > 100000) unsupported("minItems", s.pointer, "more than 100000 items");
    }
    const uint32_t rmin = static_cast<uint32_t>(rest_min);
    // Build from the back: after item k (0-based, k < limit) comes "," item k+1 (optional when k+1 >= min).
    int32_t rest_value = rest_allowed ? value_ref(rest_parts) : -1;
    auto rest_after_some = [&]() -> int32_t {  // continuation when at least one item precedes the rest
      if (!rest_allowed || rest_max == 0) return lit("");
      return repeat(seq({punct(","), rest_value}), rmin, rest_max);
    };
    int32_t after = -1;  // continuation after item index `limit - 1`
    if (limit > 0) after = rest_after_some();
    for (size_t k = limit; k-- > 1;) {
      // after item k-1: "," item_k then after_k
      int32_t next = seq({punct(","), item_exprs[k], after});
      after = k < min_items ? next : optional(next);
    }
    // The closing whitespace run belongs to a non-empty body: "[" ws "]" has a single run.
    int32_t body;
    if (limit > 0) {
      int32_t first = seq({item_exprs[0], after, ws()});
      body = min_items > 0 ? first : optional(first);
    } else if (rest_allowed && rest_max > 0) {
      // No prefix: rest items only.
      int32_t some = seq({rest_value, repeat(seq({punct(","), rest_value}), rmin > 0 ? rmin - 1 : 0,
                                                rest_max == grammar::kUnbounded ? grammar::kUnbounded : rest_max - 1),
                          ws()});
      body = rmin > 0 ? some : optional(some);
    } else {
      body = lit("");
    }
    (void)tail;
    return seq({lit("["), ws(), body, lit("]")});
  }

  int32_t object_expr(const Shape& s) {
    if (s.min_properties > s.max_properties) {
      if (first_unsat_.empty()) first_unsat_ = s.pointer;
      return choice({});
    }
    // Declared names: union over parts in order of first appearance, then required-only names.
    std::vector<std::string> names;
    std::set<std::string> declared;
    for (const auto& part : s.objects)
      for (const auto& [name, node] : part.properties)
        if (declared.insert(name).second) names.push_back(name);
    for (const auto& r : s.required)
      if (declared.insert(r).second) names.push_back(r);
    // Pattern properties of every part, and the propertyNames language.
    struct PatternProp {
      size_t part;
      SchemaNode node;
      const CharAutomaton* lang;
    };
    std::vector<PatternProp> patterns;
    for (size_t pi = 0; pi < s.objects.size(); ++pi)
      for (const auto& [pat, node] : s.objects[pi].pattern_properties)
        patterns.push_back({pi, node, &regex(pat, RegexMode::Search, "patternProperties", node.pointer)});
    std::optional<CharAutomaton> names_lang;
    for (const auto& pn : s.property_names) {
      const CharAutomaton& l = regex(pn.pattern, RegexMode::Search, "propertyNames", pn.pointer);
      names_lang = names_lang ? intersect(*names_lang, l, "propertyNames", pn.pointer) : l;
    }
    // Value schema of a name that no part declares (per part: matching patterns, else additional).
    // Returns false when some part forbids the name.
    auto undeclared_parts = [&](const ObjectPart& part, size_t pi, const std::vector<bool>& matched, PartList& out) {
      bool any = false;
      for (size_t k = 0; k < patterns.size(); ++k)
        if (patterns[k].part == pi && matched[k]) out.push_back(patterns[k].node), any = true;
      if (any) return true;
      if (part.additional_false) return false;
      if (part.additional) out.push_back(*part.additional);
      return true;
    };
    struct Prop {
      std::string name;
      bool required;
      bool possible;
      PartList parts;
    };
    std::vector<Prop> props;
    for (const auto& name : names) {
      Prop p{name, std::find(s.required.begin(), s.required.end(), name) != s.required.end(), true, {}};
      const std::u32string u = utf8_to_u32(name);
      std::vector<bool> matched(patterns.size());
      for (size_t k = 0; k < patterns.size(); ++k) matched[k] = patterns[k].lang->accepts(u);
      if (names_lang && !names_lang->accepts(u)) p.possible = false;
      if (std::find(s.forbidden_properties.begin(), s.forbidden_properties.end(), name) != s.forbidden_properties.end())
        p.possible = false;
      for (size_t pi = 0; pi < s.objects.size() && p.possible; ++pi) {
        const auto& part = s.objects[pi];
        bool found = false;
        for (const auto& [pname, node] : part.properties)
          if (pname == name) p.parts.push_back(node), found = true;
        // Pattern properties apply to declared names too.
        for (size_t k = 0; k < patterns.size(); ++k)
          if (patterns[k].part == pi && matched[k] && found) p.parts.push_back(patterns[k].node);
        if (!found && !undeclared_parts(part, pi, matched, p.parts)) p.possible = false;
      }
      if (!p.possible && p.required) {
        if (first_unsat_.empty()) first_unsat_ = s.object_pointer;
        return choice({});
      }
      if (p.possible) props.push_back(std::move(p));
    }
    // Kinds of undeclared names: the key's string content and the value's schema parts.
    std::vector<std::pair<int32_t, PartList>> undeclared_kinds;
    // Additional names differ from the declared ones and from names a `not` forbids.
    std::vector<std::string> taken = names;
    taken.insert(taken.end(), s.forbidden_properties.begin(), s.forbidden_properties.end());
    if (patterns.empty() && !names_lang) {
      bool allowed = true;
      PartList parts;
      for (size_t pi = 0; pi < s.objects.size(); ++pi) allowed &= undeclared_parts(s.objects[pi], pi, {}, parts);
      if (allowed) undeclared_kinds.push_back({automaton(json_string_content_except(taken)), std::move(parts)});
    } else {
      if (patterns.size() > 6) unsupported("patternProperties", s.object_pointer, "more than 6 patterns on one object");
      CharAutomaton undeclared = CharAutomaton::any_string();
      if (!taken.empty()) {
        CharAutomaton literals;
        for (const auto& n : taken) literals = literals.unite(CharAutomaton::literal(utf8_to_u32(n)), budget());
        undeclared = literals.complement();
      }
      if (names_lang) undeclared = intersect(undeclared, *names_lang, "propertyNames", s.property_names[0].pointer);
      // One region per subset of matched patterns.
      for (uint32_t region = 0; region < (1u << patterns.size()); ++region) {
        std::vector<bool> matched(patterns.size());
        CharAutomaton keys = undeclared;
        for (size_t k = 0; k < patterns.size() && !keys.is_empty(); ++k) {
          matched[k] = region >> k & 1u;
          keys = intersect(keys, matched[k] ? *patterns[k].lang : patterns[k].lang->complement(), "patternProperties",
                           patterns[k].node.pointer);
        }
        if (keys.is_empty()) continue;
        PartList parts;
        bool allowed = true;
        for (size_t pi = 0; pi < s.objects.size() && allowed; ++pi) allowed = undeclared_parts(s.objects[pi], pi, matched, parts);
        if (!allowed) continue;
        undeclared_kinds.push_back({keys.to_ir(g_, Encoding::JsonString), std::move(parts)});
      }
    }
    const bool additional_allowed = !undeclared_kinds.empty();
    // Additional names are not kept distinct from each other, and a JSON parser merges repeated
    // keys: a minimum that additional properties would have to reach cannot be guaranteed.
    if (additional_allowed && s.min_properties > props.size())
      unsupported("minProperties", s.object_pointer, "the minimum needs additional properties, whose names may repeat");
    const uint64_t min_p = s.min_properties, max_p = s.max_properties;
    if (fmt_.property_order == JsonPropertyOrder::Flexible) {
      // Undeclared names without patterns or propertyNames are "any name but these".
      std::string names_key;
      if (patterns.empty() && !names_lang) {
        names_key = "names";
        for (const auto& t : taken) names_key += "\x1f" + t;
      }
      return any_order_object(props, undeclared_kinds, names_key, min_p, max_p, s);
    }
    // One additional member (key ":" value) as a rule, or -1 when no undeclared name is allowed.
    int32_t additional_rule = -1;
    std::vector<int32_t> members;
    for (auto& [content, parts] : undeclared_kinds)
      members.push_back(seq({lit("\""), content, lit("\""), punct(":"), value_ref(parts)}));
    if (!members.empty()) {
      additional_rule = static_cast<int32_t>(g_.rules.size());
      g_.rules.push_back({"m" + std::to_string(additional_rule), choice(members), -1, {}});
    }
    const size_t n = props.size();
    std::vector<size_t> declared_order(n);
    for (size_t i = 0; i < n; ++i) declared_order[i] = i;
    return seq({lit("{"), ws(), chain_object(props, declared_order, additional_rule, min_p, max_p), lit("}")});
  }

  // Any property order (JsonPropertyOrder::Flexible): the object is a rule whose members loop
  // over one key rule per declared property and one for the undeclared members; the parser keeps
  // the keys emitted so far per open object (grammar::KeySetObject): each declared key at most
  // once, required keys before the end, the member count within [min, max].
  template <typename Props>
  int32_t any_order_object(const Props& props, std::vector<std::pair<int32_t, PartList>>& undeclared_kinds,
                           const std::string& names_key, uint64_t min_p, uint64_t max_p, const Shape& s) {
    grammar::KeySetObject ko;
    uint64_t required = 0;
    for (const auto& p : props) required += p.required ? 1 : 0;
    // The empty object must be completable: required keys fit under the maximum, and the
    // declared keys reach the minimum when no other name may come.
    if (required > max_p || (undeclared_kinds.empty() && props.size() < min_p)) {
      if (first_unsat_.empty()) first_unsat_ = s.object_pointer;
      return choice({});
    }
    auto new_rule = [&](const std::string& prefix, int32_t body) {
      const int32_t r = static_cast<int32_t>(g_.rules.size());
      g_.rules.push_back({prefix + std::to_string(r), body, -1, {}});
      return r;
    };
    std::vector<int32_t> alts;
    for (const auto& p : props) {
      // The key rule holds the key after its opening quote (the object's rule scans the quote,
      // so a token like `","` after a value needs no key to be chosen yet). Objects share a key
      // rule when the key has the same bit in both (the alternatives of one anyOf): the parser
      // then keeps one item for the key however many objects are open at that place.
      const std::string text = json_quote(p.name).substr(1);
      auto [it, fresh] = key_rules_.try_emplace({text, ko.keys.size()}, -1);
      if (fresh) it->second = new_rule("key", lit(text));
      const int32_t key = it->second;
      ko.keys.push_back(key);
      ko.required.push_back(p.required ? 1 : 0);
      alts.push_back(seq({rule_ref(key), punct(":"), value_ref(p.parts)}));
    }
    if (!undeclared_kinds.empty()) {
      // One rule holds every kind of undeclared member, name and value: the regions of
      // patternProperties share one automaton (one parse state while a name is being written),
      // and the value that follows is the one of the name's region. Objects with the same
      // "any name but these" and the same value share the rule.
      std::vector<int32_t> kinds;
      std::string shared_key = names_key;
      for (auto& [content, parts] : undeclared_kinds) {
        const int32_t value = value_ref(parts);
        kinds.push_back(seq({content, lit("\""), punct(":"), value}));
        shared_key += "\x1e" + std::to_string(g_.exprs[value].rule);
      }
      int32_t names = -1;
      if (!names_key.empty()) {
        auto [it, fresh] = name_rules_.try_emplace(shared_key, -1);
        if (fresh) it->second = new_rule("names", choice(std::move(kinds)));
        names = it->second;
      } else {
        names = new_rule("names", choice(std::move(kinds)));
      }
      ko.additional.push_back(names);
      alts.push_back(rule_ref(names));
    }
    ko.min_members = min_p;
    ko.max_members = max_p;
    // One repeating member, separated by commas: every member's automaton once.
    Expr m;
    m.kind = ExprKind::Members;
    m.children = {punct(","), ws(), seq({lit("\""), choice(std::move(alts))})};
    m.member_flags = {grammar::kMemberRepeats};
    const int32_t members = g_.add(std::move(m));
    const int32_t object = new_rule("obj", seq({lit("{"), ws(), members, lit("}")}));
    ko.rule = object;
    g_.key_sets.push_back(std::move(ko));
    return rule_ref(object);
  }

  // The members of an object with its declared keys in `order` (each optional unless required).
  // Additional members (rule `additional`, -1 for none) follow the declared ones.
  template <typename Props>
  int32_t chain_object(const Props& props, const std::vector<size_t>& order, int32_t additional, uint64_t min_p,
                       uint64_t max_p) {
    const size_t n = order.size();
    const bool counting = min_p > 0 || max_p != std::numeric_limits<uint64_t>::max();
    const bool additional_allowed = additional >= 0;
    auto additional_member = [&]() { return rule_ref(additional); };
    if (!counting) {
      // One Members expression: each member's key and value appear once in the automaton
      // whether a comma precedes them or not, and the object stays one rule (no chain of
      // nullable rules for the parser to predict at every key). Additional members are a
      // repeating member at the end.
      Expr m;
      m.kind = ExprKind::Members;
      m.children = {punct(","), ws()};
      auto add = [&](int32_t member, uint8_t flags) {
        m.children.push_back(member);
        m.member_flags.push_back(flags);
      };
      for (size_t i = 0; i < n; ++i) {
        const auto& p = props[order[i]];
        add(member_expr(p.name, p.parts), p.required ? grammar::kMemberRequired : 0);
      }
      if (additional_allowed) add(additional_member(), grammar::kMemberRepeats);
      return g_.add(std::move(m));
    }
    // Counted members: rules chain(i, c) = properties i.. given c members emitted so far.
    std::map<std::pair<size_t, uint64_t>, int32_t> chain_rules;
    std::function<int32_t(size_t, uint64_t)> chain = [&](size_t i, uint64_t c) -> int32_t {
      auto key = std::make_pair(i, c);
      auto it = chain_rules.find(key);
      if (it != chain_rules.end()) return rule_ref(it->second);
      int32_t body;
      if (i == n) {
        // Additional properties: count in [max(0, min - c), max - c].
        const uint64_t need = min_p > c ? min_p - c : 0;
        const uint64_t room = max_p == std::numeric_limits<uint64_t>::max() ? grammar::kUnbounded : max_p - std::min(max_p, c);
        // The closing whitespace run follows the last member only (an empty object has one run).
        const int32_t end_ws = c > 0 ? ws() : lit("");
        if (!additional_allowed || room == 0) {
          body = need == 0 ? end_ws : choice({});
        } else {
          const uint32_t lo = static_cast<uint32_t>(std::min<uint64_t>(need, 100000));
          const uint32_t hi = room >= grammar::kUnbounded ? grammar::kUnbounded : static_cast<uint32_t>(std::min<uint64_t>(room, 100000));
          if (c > 0) {
            body = seq({repeat(seq({punct(","), additional_member()}), lo, hi), ws()});
          } else {
            int32_t some = seq({additional_member(), repeat(seq({punct(","), additional_member()}), lo > 0 ? lo - 1 : 0,
                                                              hi == grammar::kUnbounded ? hi : hi - 1), ws()});
            body = lo > 0 ? some : optional(some);
          }
        }
      } else {
        const auto& p = props[order[i]];
        std::vector<int32_t> alts;
        if (c + 1 <= max_p) alts.push_back(seq({c > 0 ? punct(",") : lit(""), member_expr(p.name, p.parts), chain(i + 1, c + 1)}));
        if (!p.required) alts.push_back(chain(i + 1, c));
        body = choice(alts);
      }
      int32_t rule = static_cast<int32_t>(g_.rules.size());
      g_.rules.push_back({"o" + std::to_string(rule), body, -1, {}});
      chain_rules.emplace(key, rule);
      return rule_ref(rule);
    };
    return chain(0, 0);
  }

  // One declared member: its key, the separator, its value.
  int32_t member_expr(const std::string& name, const PartList& parts) {
    return seq({lit(json_quote(name)), punct(":"), value_ref(parts)});
  }

  int32_t rule_ref(int32_t rule) { return ir::rule_ref(g_, rule); }
};

}  // namespace

LoweredSchema json_schema_grammar(std::string_view schema_text, const JsonFormatOptions& format,
                                  const SchemaLimits& limits) {
  if (schema_text.size() > limits.max_bytes)
    throw limit_exceeded("schema.max_bytes", limits.max_bytes, "schema of " + std::to_string(schema_text.size()) + " bytes")
        .at_pointer("");
  SchemaDocument doc(schema_text, limits.max_document_depth);
  LoweredSchema out;
  AuditedKeywords audit = audit_keywords(doc, format.schema_strictness);  // typos fail before any lowering
  out.ignored_keywords = std::move(audit.ignored);
  out.suspected_typos = std::move(audit.suspected_typos);
  Grammar& g = out.grammar;
  g.rules.push_back({"root", -1, -1, {}});
  g.root = 0;
  Emitter em(g, doc, format, limits);
  g.rules[0].body = em.value_ref({SchemaNode{&doc.root(), ""}});
  out.unsat_pointer = em.first_unsat();
  return out;
}

AuditedKeywords json_schema_keyword_audit(std::string_view schema_text, const JsonFormatOptions& format) {
  return audit_keywords(SchemaDocument(schema_text), format.schema_strictness);
}

LoweredSchema json_object_grammar(const JsonFormatOptions& format) {
  return json_schema_grammar(R"({"type":"object"})", format);
}

}  // namespace ninfer::text
