// OutputConstraint → grammar IR → CompiledGrammar, with every failure as a typed ConstraintError.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grammar/compile_cache.h"
#include "grammar/compiled_grammar.h"
#include "ninfer/output_constraint.h"
#include "text/schema_keywords.h"

namespace ninfer::text {

// Bounds on a choice constraint (LimitExceeded past them). The options become one automaton
// whose size is about their total bytes.
struct ChoiceLimits {
  size_t max_options = 1u << 20;
  size_t max_total_bytes = 16u << 20;
};

struct LoweredConstraint {
  grammar::Grammar grammar;
  std::string unsat_pointer;  // JSON Schema: where an empty language comes from
  std::vector<std::string> ignored_keywords;  // JSON Schema: pointers of keywords not enforced
  std::vector<SuspectedTypo> suspected_typos;  // JSON Schema, Lenient: ignored keywords that look like typos
};

// Throws ConstraintError.
LoweredConstraint lower_constraint(const OutputConstraint& constraint);

struct CompiledConstraint {
  std::shared_ptr<const grammar::CompiledGrammar> grammar;
  grammar::CompileCache::Source source = grammar::CompileCache::Source::Built;
  // JSON Schema: pointers of the keywords the grammar does not enforce (cache hits too).
  std::vector<std::string> ignored_keywords;
  // JSON Schema under SchemaStrictness::Lenient: the ignored keywords that look like typos.
  std::vector<SuspectedTypo> suspected_typos;
};

// Lowers and compiles (through `cache` when given). GrammarErrors become ConstraintErrors:
// InvalidGrammar (with line:column) for GBNF, Unsatisfiable for an empty JSON Schema language,
// LimitExceeded (naming the limit) for nesting and size limits.
CompiledConstraint compile_constraint(const OutputConstraint& constraint,
                                      const std::shared_ptr<const grammar::TokenDomain>& domain,
                                      grammar::CompileCache* cache = nullptr, const grammar::CompileOptions& options = {});

// The keyword audit (ignored keywords, suspected typos) of a JSON Schema constraint `c` that is part
// of the compiled grammar `g` (a chat output language holding it as its body), remembered per
// grammar like compile_constraint's, so requests served from the cache do not parse the schema
// again. Empty for the other kinds.
AuditedKeywords keyword_audit_for(const OutputConstraint& c, const std::shared_ptr<const grammar::CompiledGrammar>& g);

}  // namespace ninfer::text
