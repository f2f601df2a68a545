#include "text/constraint_compiler.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "grammar/gbnf_parser.h"
#include "ninfer/constraint_error.h"
#include "text/char_automaton.h"
#include "text/json_schema_compiler.h"
#include "text/json_string_automaton.h"
#include "text/literal_set.h"

namespace ninfer::text {
namespace {

// What a choice constraint is, for explanations: its first options (bounded, the list is untrusted).
std::string options_label(const std::vector<std::string>& options) {
  std::string out = "one of " + std::to_string(options.size()) + " options:";
  for (size_t i = 0; i < options.size() && out.size() < 200; ++i) out += " " + grammar::quote_bytes(options[i]);
  return out.size() < 200 ? out : out.substr(0, 200) + "...";
}

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

// The keyword audits (ignored keywords, suspected typos) of the schema grammars built through a
// compile cache, for its hits: the alternative, parsing the schema again, costs about 0.1 ms per KB of schema (ordered JSON
// objects), 80 ms for MaskBench's largest. Keyed by grammar identity, so it is exact while the
// grammar lives; entries of grammars that have died are swept as the table grows.
class IgnoredKeywordsMemo {
 public:
  void put(const std::shared_ptr<const grammar::CompiledGrammar>& g, const AuditedKeywords& audit) {
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= sweep_at_) {
      std::erase_if(entries_, [](const auto& e) { return e.second.grammar.expired(); });
      sweep_at_ = std::max<size_t>(64, 2 * entries_.size());
    }
    entries_[g.get()] = {g, audit};
  }
  std::optional<AuditedKeywords> get(const std::shared_ptr<const grammar::CompiledGrammar>& g) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(g.get());
    if (it == entries_.end() || it->second.grammar.lock() != g) return std::nullopt;  // a new grammar at a dead one's address
    return it->second.audit;
  }

 private:
  struct Entry {
    std::weak_ptr<const grammar::CompiledGrammar> grammar;
    AuditedKeywords audit;
  };
  std::mutex mu_;
  std::unordered_map<const grammar::CompiledGrammar*, Entry> entries_;
  size_t sweep_at_ = 64;
};

IgnoredKeywordsMemo& ignored_memo() {
  static IgnoredKeywordsMemo* memo = new IgnoredKeywordsMemo();  // never destroyed: used until exit
  return *memo;
}

}  // namespace

LoweredConstraint lower_constraint(const OutputConstraint& c) {
  switch (c.kind()) {
    case OutputConstraint::Kind::Grammar:
      try {
        return {grammar::parse_gbnf(c.source()), "", {}, {}};
      } catch (const grammar::GrammarError& e) {
        throw from_grammar_error(c, e, "");
      }
    case OutputConstraint::Kind::JsonObject: {
      auto l = json_object_grammar(c.json_options());
      return {std::move(l.grammar), l.unsat_pointer, {}, {}};
    }
    case OutputConstraint::Kind::JsonSchema: {
      auto l = json_schema_grammar(c.source(), c.json_options());
      return {std::move(l.grammar), l.unsat_pointer, std::move(l.ignored_keywords), std::move(l.suspected_typos)};
    }
    case OutputConstraint::Kind::Choice: {
      LoweredConstraint l{choice_grammar(c.choices(), ChoiceLimits{}), "", {}, {}};
      l.grammar.label(l.grammar.root, options_label(c.choices()));  // explanations
      return l;
    }
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
      g.label(0, "regex " + c.source().substr(0, 200));
      return {std::move(g), "", {}, {}};
    }
  }
  throw ConstraintError(ConstraintErrorKind::InvalidGrammar, "unknown constraint kind");
}

CompiledConstraint compile_constraint(const OutputConstraint& c, const std::shared_ptr<const grammar::TokenDomain>& domain,
                                      grammar::CompileCache* cache, const grammar::CompileOptions& options) {
  std::string unsat;
  AuditedKeywords audit;
  bool lowered = false;
  auto make = [&] {
    LoweredConstraint l = lower_constraint(c);
    unsat = l.unsat_pointer;
    audit = {std::move(l.ignored_keywords), std::move(l.suspected_typos)};
    lowered = true;
    return std::move(l.grammar);
  };
  try {
    if (cache) {
      auto r = cache->get(c.cache_key(), make, options);
      if (c.kind() == OutputConstraint::Kind::JsonSchema) {
        if (lowered) {
          ignored_memo().put(r.grammar, audit);
        } else if (auto known = ignored_memo().get(r.grammar)) {
          audit = std::move(*known);
        } else {
          // A waiter served before the builder recorded the list: read the schema again.
          audit = json_schema_keyword_audit(c.source(), c.json_options());
        }
      }
      return {r.grammar, r.source, std::move(audit.ignored), std::move(audit.suspected_typos)};
    }
    auto g = grammar::compile(make(), domain, options);
    return {std::move(g), grammar::CompileCache::Source::Built, std::move(audit.ignored), std::move(audit.suspected_typos)};
  } catch (const grammar::GrammarError& e) {
    throw from_grammar_error(c, e, unsat);
  }
}

AuditedKeywords keyword_audit_for(const OutputConstraint& c, const std::shared_ptr<const grammar::CompiledGrammar>& g) {
  if (c.kind() != OutputConstraint::Kind::JsonSchema) return {};
  if (auto known = ignored_memo().get(g)) return *known;
  AuditedKeywords audit = json_schema_keyword_audit(c.source(), c.json_options());
  ignored_memo().put(g, audit);
  return audit;
}

}  // namespace ninfer::text
