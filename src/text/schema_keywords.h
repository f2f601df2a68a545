// The JSON Schema keyword table (what each keyword of each draft is, where its value holds
// schemas) and the keyword audit: one walk over every schema location of a document that lists
// the keywords the compiler does not enforce, and refuses the ones that look like typos of an
// assertion keyword. The shape reducer classifies keywords through the same table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ninfer/output_constraint.h"
#include "text/schema_document.h"

namespace ninfer::text {

enum TypeBit : uint32_t {
  kNull = 1, kBool = 2, kInt = 4, kFrac = 8, kString = 16, kArray = 32, kObject = 64, kAllTypes = 127,
};

enum class KeywordKind : uint8_t {
  Assertion,         // enforced
  RefusedAssertion,  // asserts something we do not enforce: UnsupportedSchema where it is applied
  RefusedCore,       // core keyword we do not implement ($recursiveAnchor): UnsupportedSchema, asserts nothing
  Annotation,        // defined by a draft, asserts nothing (title, $comment, $defs, ...)
};

// Where a keyword's value holds schemas.
enum class SubSchemas : uint8_t {
  None,          // data or scalars (enum, const, required, default, ...)
  One,           // the value is a schema (not, additionalProperties, ...)
  List,          // an array of schemas (allOf, prefixItems, ...)
  Map,           // an object whose member values are schemas (properties, $defs, ...)
  OneOrList,     // items: a schema, or (draft-07) an array of schemas
  OneOrNames,    // dependencies: member values are schemas or arrays of names
};

// JSON value kinds a keyword takes (bits).
enum ValueKind : uint8_t {
  kValString = 1, kValNumber = 2, kValCount = 4 /* non-negative integer */, kValBoolean = 8, kValArray = 16,
  kValObject = 32, kValAny = 63,
};

enum DraftBit : uint8_t { kDraft07Family = 1, kDraft2020 = 2, kEveryDraft = 3 };

struct KeywordInfo {
  std::string_view name;
  KeywordKind kind;
  uint32_t types;    // TypeBits an assertion applies to (kAllTypes: every instance)
  uint8_t values;    // ValueKinds it takes
  SubSchemas subs;
  uint8_t drafts;    // DraftBits in which the compiler gives it its meaning
};

// The table entry of a keyword that some JSON Schema draft defines; nullptr for any other name.
const KeywordInfo* find_keyword(std::string_view name);

// Keywords that assert something (enforced or refused): a schema with none of them (and no
// $ref) accepts every instance, whatever else it carries.
bool is_assertion_keyword(std::string_view name);
// Keywords the compiler refuses with UnsupportedSchema where it applies them.
bool is_unsupported_keyword(std::string_view name);

// The assertion keyword that `name` (a keyword no draft defines, with `value`, in a schema whose
// `type` allows `types`) most likely misspells, or "" when it does not look like a typo. The
// rule is in docs/json-schema.md ("Typos").
std::string_view likely_typo_of(std::string_view name, const Json& value, uint32_t types);

// What the keyword audit found, in document order.
struct AuditedKeywords {
  std::vector<std::string> ignored;            // JSON Pointers of the keywords not enforced
  std::vector<SuspectedTypo> suspected_typos;  // Lenient: the ignored ones that look like typos
};

// Walks every schema location of the document once (the root, every sub-schema position of every
// keyword, $defs/definitions, and every $ref target), and returns, in document order, the JSON
// Pointers of the keywords the compiler does not enforce: keywords that no draft defines,
// keywords of another draft than the document's, an `id` that is not a string, and `format`
// names that no draft or ajv-formats defines. Throws ConstraintError: InvalidJsonSchema (with the
// keyword) for an unknown keyword that looks like a typo (likely_typo_of), except under
// SchemaStrictness::Lenient, which lists it and records it in suspected_typos; under
// SchemaStrictness::Strict, UnsupportedSchema for the first keyword it would list.
AuditedKeywords audit_keywords(const SchemaDocument& doc, SchemaStrictness strictness);

}  // namespace ninfer::text
