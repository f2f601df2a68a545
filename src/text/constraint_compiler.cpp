#include "text/constraint_compiler.h"

#include "grammar/gbnf_parser.h"
#include "ninfer/constraint_error.h"
#include "text/char_automaton.h"
#include "text/json_schema_compiler.h"
#include "text/json_string_automaton.h"
#include "text/literal_set.h"

namespace ninfer::text {
namespace {

grammar::Grammar choice_grammar(const std::vector<std::string>& options, const ChoiceLimits& limits) {
  if (options.size() > limits.max_options)
    throw limit_exceeded("choice.max_options", limits.max_options, std::to_string(options.size()) + " choices");
  size_t bytes = 0;
  for (const auto& o : options) bytes += o.size();
  if (bytes > limits.max_total_bytes)
    throw limit_exceeded("choice.max_total_bytes", limits.max_total_bytes, std::to_string(bytes) + " bytes of choices");
  // One minimal automaton for all options: linear in their bytes (no alternation to determinise).
  LiteralSet set;
  for (const auto& o : options) set.add(o);
  grammar::Grammar g;
  grammar::Expr e;
  e.kind = grammar::ExprKind::Automaton;
  e.automaton = set.build();
  const int32_t body = g.add(std::move(e));
  g.rules.push_back({"root", body, -1, {}});
  g.root = 0;
  return g;
}

ConstraintError from_grammar_error(const OutputConstraint& c, const grammar::GrammarError& e, const std::string& unsat) {
  using K = grammar::GrammarErrorKind;
  if ((e.kind() == K::TooDeep || e.kind() == K::TooLarge) && !e.limit().empty()) {
    ConstraintError out(ConstraintErrorKind::LimitExceeded, e.what());
    out.with_limit(e.limit(), e.limit_value());
    if (c.kind() == OutputConstraint::Kind::Grammar && e.location().line > 0)
      out.at_line(e.location().line, e.location().column);
    return out;
  }
  if (c.kind() == OutputConstraint::Kind::Grammar)
    return ConstraintError(ConstraintErrorKind::InvalidGrammar, e.what()).at_line(e.location().line, e.location().column);
  if (e.kind() == K::EmptyLanguage) {
    const std::string what = c.kind() == OutputConstraint::Kind::Regex ? "regex matches nothing" : "schema admits no value";
    return ConstraintError(c.kind() == OutputConstraint::Kind::Regex ? ConstraintErrorKind::InvalidRegex
                                                                       : ConstraintErrorKind::Unsatisfiable,
                           what + (unsat.empty() ? std::string() : " (first conflict at '" + unsat + "')"))
        .at_pointer(unsat);
  }
  if (c.kind() == OutputConstraint::Kind::Regex)
    return ConstraintError(ConstraintErrorKind::InvalidRegex, std::string("regex too large: ") + e.what()).at_offset(0);
  return ConstraintError(ConstraintErrorKind::UnsupportedSchema, std::string("schema too large to compile: ") + e.what())
      .at_pointer("")
      .with_keyword("size");
}

}  // namespace

LoweredConstraint lower_constraint(const OutputConstraint& c) {
  switch (c.kind()) {
    case OutputConstraint::Kind::Grammar:
      try {
        return {grammar::parse_gbnf(c.source()), ""};
      } catch (const grammar::GrammarError& e) {
        throw from_grammar_error(c, e, "");
      }
    case OutputConstraint::Kind::JsonObject: {
      auto l = json_object_grammar(c.json_options());
      return {std::move(l.grammar), l.unsat_pointer};
    }
    case OutputConstraint::Kind::JsonSchema: {
      auto l = json_schema_grammar(c.source(), c.json_options());
      return {std::move(l.grammar), l.unsat_pointer};
    }
    case OutputConstraint::Kind::Choice:
      return {choice_grammar(c.choices(), ChoiceLimits{}), ""};
    case OutputConstraint::Kind::Regex: {
      CharAutomaton a;
      try {
        a = CharAutomaton::from_regex(c.source(), RegexMode::FullMatch);
      } catch (const AutomatonBudgetExceeded& e) {
        throw ConstraintError(ConstraintErrorKind::LimitExceeded, e.what()).at_offset(0).with_limit(e.limit(), e.limit_value());
      }
      if (a.is_empty()) throw ConstraintError(ConstraintErrorKind::InvalidRegex, "regex matches no string").at_offset(0);
      grammar::Grammar g;
      const int32_t body = a.to_ir(g, Encoding::Raw);
      g.rules.push_back({"root", body, -1, {}});
      g.root = 0;
      return {std::move(g), ""};
    }
  }
  throw ConstraintError(ConstraintErrorKind::InvalidGrammar, "unknown constraint kind");
}

CompiledConstraint compile_constraint(const OutputConstraint& c, const std::shared_ptr<const grammar::TokenDomain>& domain,
                                      grammar::CompileCache* cache, const grammar::CompileOptions& options) {
  std::string unsat;
  auto make = [&] {
    LoweredConstraint l = lower_constraint(c);
    unsat = l.unsat_pointer;
    return std::move(l.grammar);
  };
  try {
    if (cache) {
      auto r = cache->get(c.cache_key(), make, options);
      return {r.grammar, r.source};
    }
    return {grammar::compile(make(), domain, options), grammar::CompileCache::Source::Built};
  } catch (const grammar::GrammarError& e) {
    throw from_grammar_error(c, e, unsat);
  }
}

}  // namespace ninfer::text
