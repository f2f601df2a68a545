// JSON Schema (2020-12 by default, the draft-07 subset when declared) → grammar IR for the JSON
// generation language: compact separators (or bounded flexible whitespace) and declared
// property order. Every keyword it accepts is enforced; the rest is a located error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar_ir.h"
#include "ninfer/output_constraint.h"
#include "text/schema_keywords.h"

namespace ninfer::text {

// Bounds on what one schema may cost to compile (docs/json-schema.md, "Limits"). Past one, the
// compile stops with ConstraintError LimitExceeded naming it ("schema.<field>") and its value.
struct SchemaLimits {
  uint32_t max_merges = 16384;   // intersections performed while reducing allOf/anyOf/$ref
  uint32_t max_depth = 256;      // nesting of anyOf/oneOf distribution while reducing
  uint32_t max_string_length = 8192;
  size_t max_bytes = 8u << 20;          // schema text (MaskBench's largest: 0.5 MB)
  uint32_t max_document_depth = 256;    // JSON nesting of the schema text (MaskBench's deepest: 63)
  uint32_t max_nesting = 128;           // sub-schemas lowered inside each other (properties, items, $ref, ...)
};

struct LoweredSchema {
  grammar::Grammar grammar;
  // Where the first unsatisfiable sub-schema was met: if the grammar turns out to derive nothing
  // (the compiler reports EmptyLanguage), the schema is Unsatisfiable at this pointer.
  std::string unsat_pointer;
  // JSON Pointers of the keywords the grammar does not enforce (audit_keywords, schema_keywords.h).
  std::vector<std::string> ignored_keywords;
  // SchemaStrictness::Lenient: the ignored keywords that look like typos, with their suggestion.
  std::vector<SuspectedTypo> suspected_typos;
};

// Throws ConstraintError (InvalidJsonSchema, UnsupportedSchema) with a JSON Pointer.
LoweredSchema json_schema_grammar(std::string_view schema_text, const JsonFormatOptions& format,
                                  const SchemaLimits& limits = {});

// What json_schema_grammar's keyword audit finds (ignored_keywords, suspected_typos) without
// lowering (a parse and one walk), for results that come from a compile cache. Throws what the
// audit throws.
AuditedKeywords json_schema_keyword_audit(std::string_view schema_text, const JsonFormatOptions& format);

// Any JSON object.
LoweredSchema json_object_grammar(const JsonFormatOptions& format);

}  // namespace ninfer::text
