#include "text/schema_keywords.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ninfer/constraint_error.h"
#include "text/json_formats.h"
#include "text/schema_errors.h"

namespace ninfer::text {
namespace {

constexpr KeywordKind kAssert = KeywordKind::Assertion;
constexpr KeywordKind kRefused = KeywordKind::RefusedAssertion;
constexpr KeywordKind kNote = KeywordKind::Annotation;
constexpr uint32_t kNumber = kInt | kFrac;
constexpr uint8_t kSchemaValue = kValObject | kValBoolean;

// Every keyword of draft-04 to 2020-12 (the validation, applicator, core, meta-data, content and
// format vocabularies). `drafts` is where the compiler gives a keyword its meaning: prefixItems is
// 2020-12 only, additionalItems draft-07 (and 2019-09) only; the dependencies family is enforced
// in every draft (see docs/json-schema.md).
constexpr KeywordInfo kKeywords[] = {
    // Assertions that apply to every type.
    {"$ref", kAssert, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"type", kAssert, kAllTypes, kValString | kValArray, SubSchemas::None, kEveryDraft},
    {"enum", kAssert, kAllTypes, kValArray, SubSchemas::None, kEveryDraft},
    {"const", kAssert, kAllTypes, kValAny, SubSchemas::None, kEveryDraft},
    {"allOf", kAssert, kAllTypes, kValArray, SubSchemas::List, kEveryDraft},
    {"anyOf", kAssert, kAllTypes, kValArray, SubSchemas::List, kEveryDraft},
    {"oneOf", kAssert, kAllTypes, kValArray, SubSchemas::List, kEveryDraft},
    {"not", kAssert, kAllTypes, kSchemaValue, SubSchemas::One, kEveryDraft},
    {"if", kAssert, kAllTypes, kSchemaValue, SubSchemas::One, kEveryDraft},
    {"then", kAssert, kAllTypes, kSchemaValue, SubSchemas::One, kEveryDraft},
    {"else", kAssert, kAllTypes, kSchemaValue, SubSchemas::One, kEveryDraft},
    // Strings (format also names integer ranges: int32, int64).
    {"minLength", kAssert, kString, kValCount, SubSchemas::None, kEveryDraft},
    {"maxLength", kAssert, kString, kValCount, SubSchemas::None, kEveryDraft},
    {"pattern", kAssert, kString, kValString, SubSchemas::None, kEveryDraft},
    {"format", kAssert, kString | kNumber, kValString, SubSchemas::None, kEveryDraft},
    // Numbers (draft-04 exclusive bounds are booleans).
    {"minimum", kAssert, kNumber, kValNumber, SubSchemas::None, kEveryDraft},
    {"maximum", kAssert, kNumber, kValNumber, SubSchemas::None, kEveryDraft},
    {"exclusiveMinimum", kAssert, kNumber, kValNumber | kValBoolean, SubSchemas::None, kEveryDraft},
    {"exclusiveMaximum", kAssert, kNumber, kValNumber | kValBoolean, SubSchemas::None, kEveryDraft},
    {"multipleOf", kAssert, kNumber, kValNumber, SubSchemas::None, kEveryDraft},
    // Arrays.
    {"items", kAssert, kArray, kSchemaValue | kValArray, SubSchemas::OneOrList, kEveryDraft},
    {"prefixItems", kAssert, kArray, kValArray, SubSchemas::List, kDraft2020},
    {"additionalItems", kAssert, kArray, kSchemaValue, SubSchemas::One, kDraft07Family},
    {"minItems", kAssert, kArray, kValCount, SubSchemas::None, kEveryDraft},
    {"maxItems", kAssert, kArray, kValCount, SubSchemas::None, kEveryDraft},
    {"uniqueItems", kAssert, kArray, kValBoolean, SubSchemas::None, kEveryDraft},  // true is refused where applied
    {"contains", kRefused, kArray, kSchemaValue, SubSchemas::One, kEveryDraft},
    {"minContains", kRefused, kArray, kValCount, SubSchemas::None, kEveryDraft},
    {"maxContains", kRefused, kArray, kValCount, SubSchemas::None, kEveryDraft},
    {"unevaluatedItems", kRefused, kArray, kSchemaValue, SubSchemas::One, kEveryDraft},
    // Objects.
    {"properties", kAssert, kObject, kValObject, SubSchemas::Map, kEveryDraft},
    {"patternProperties", kAssert, kObject, kValObject, SubSchemas::Map, kEveryDraft},
    {"additionalProperties", kAssert, kObject, kSchemaValue, SubSchemas::One, kEveryDraft},
    {"required", kAssert, kObject, kValArray, SubSchemas::None, kEveryDraft},
    {"minProperties", kAssert, kObject, kValCount, SubSchemas::None, kEveryDraft},
    {"maxProperties", kAssert, kObject, kValCount, SubSchemas::None, kEveryDraft},
    {"propertyNames", kAssert, kObject, kSchemaValue, SubSchemas::One, kEveryDraft},
    {"dependencies", kAssert, kObject, kValObject, SubSchemas::OneOrNames, kEveryDraft},
    {"dependentRequired", kAssert, kObject, kValObject, SubSchemas::None, kEveryDraft},
    {"dependentSchemas", kAssert, kObject, kValObject, SubSchemas::Map, kEveryDraft},
    {"unevaluatedProperties", kRefused, kObject, kSchemaValue, SubSchemas::One, kEveryDraft},
    // Dynamic references.
    {"$dynamicRef", kRefused, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$recursiveRef", kRefused, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$recursiveAnchor", KeywordKind::RefusedCore, kAllTypes, kValBoolean, SubSchemas::None, kEveryDraft},
    // Core and annotations: they assert nothing. A non-string `id` is a vendor annotation (the audit
    // lists it); contentSchema is never applied, so it is not walked.
    {"$schema", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$id", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"id", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$anchor", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$dynamicAnchor", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$vocabulary", kNote, kAllTypes, kValObject, SubSchemas::None, kEveryDraft},
    {"$comment", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"$defs", kNote, kAllTypes, kValObject, SubSchemas::Map, kEveryDraft},
    {"definitions", kNote, kAllTypes, kValObject, SubSchemas::Map, kEveryDraft},
    {"title", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"description", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"default", kNote, kAllTypes, kValAny, SubSchemas::None, kEveryDraft},
    {"examples", kNote, kAllTypes, kValArray, SubSchemas::None, kEveryDraft},
    {"deprecated", kNote, kAllTypes, kValBoolean, SubSchemas::None, kEveryDraft},
    {"readOnly", kNote, kAllTypes, kValBoolean, SubSchemas::None, kEveryDraft},
    {"writeOnly", kNote, kAllTypes, kValBoolean, SubSchemas::None, kEveryDraft},
    {"contentMediaType", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"contentEncoding", kNote, kAllTypes, kValString, SubSchemas::None, kEveryDraft},
    {"contentSchema", kNote, kAllTypes, kSchemaValue, SubSchemas::None, kEveryDraft},
};

const std::unordered_map<std::string_view, const KeywordInfo*>& keyword_index() {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string_view, const KeywordInfo*>();
    for (const auto& k : kKeywords) m->emplace(k.name, &k);
    return m;
  }();
  return *index;
}

// The spelling-independent form of a keyword: lower case, without the `_` and `-` that join words
// (max_length, pattern-properties), and singular (additionalProperty, item).
std::string normalized(std::string_view k) {
  std::string out;
  for (size_t i = 0; i < k.size(); ++i) {
    const char c = k[i];
    if (i > 0 && (c == '_' || c == '-')) continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  if (out.size() > 4 && out.compare(out.size() - 3, 3, "ies") == 0) out.replace(out.size() - 3, 3, "y");
  else if (out.size() > 3 && out.back() == 's') out.pop_back();
  return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// adjacent characters.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

bool value_fits(uint8_t kinds, const Json& v) {
  if (v.is_string()) return kinds & kValString;
  if (v.is_boolean()) return kinds & kValBoolean;
  if (v.is_array()) return kinds & kValArray;
  if (v.is_object()) return kinds & kValObject;
  if (v.is_number()) {
    if (kinds & kValNumber) return true;
    if (!(kinds & kValCount)) return false;
    if (v.is_number_unsigned()) return true;
    if (v.is_number_integer()) return v.get<int64_t>() >= 0;
    const double d = v.get<double>();
    return d >= 0 && d == static_cast<double>(static_cast<uint64_t>(d));
  }
  return kinds == kValAny;  // null
}

uint32_t types_of(const Json& schema) {
  auto bit = [](const Json& t) -> uint32_t {
    if (!t.is_string()) return 0;
    const std::string& s = t.get_ref<const std::string&>();
    if (s == "null") return kNull;
    if (s == "boolean") return kBool;
    if (s == "integer") return kInt;
    if (s == "number") return kNumber;
    if (s == "string") return kString;
    if (s == "array") return kArray;
    if (s == "object") return kObject;
    return 0;
  };
  auto it = schema.find("type");
  uint32_t types = 0;
  if (it != schema.end()) {
    if (it->is_array())
      for (const auto& t : *it) types |= bit(t);
    else
      types = bit(*it);
  }
  return types == 0 ? kAllTypes : types;  // no (valid) type: every keyword applies
}

std::string child(const std::string& pointer, const std::string& key) {
  return pointer + "/" + SchemaDocument::escape_token(key);
}

class KeywordAudit {
 public:
  KeywordAudit(const SchemaDocument& doc, SchemaStrictness strictness)
      : doc_(doc),
        strictness_(strictness),
        draft_(doc.draft() == SchemaDraft::Draft07 ? kDraft07Family : kDraft2020) {}

  AuditedKeywords run() {
    enter({&doc_.root(), ""});
    drain();
    // $ref targets outside the schema positions (inside an unknown keyword, say) are schemas too.
    while (!ref_targets_.empty()) {
      std::vector<SchemaNode> targets;
      targets.swap(ref_targets_);
      for (auto& t : targets) {
        enter(std::move(t));
        drain();
      }
    }
    return std::move(found_);
  }

 private:
  // A schema whose keywords are being read, and the sub-schemas of its current keyword: the walk
  // finishes a keyword's sub-schemas before the next keyword, so the list is in document order.
  // An explicit stack: nesting depth costs heap, never the call stack.
  struct Frame {
    SchemaNode schema;
    uint32_t types;
    Json::const_iterator next_key;
    std::vector<SchemaNode> subs;
    size_t next_sub = 0;
  };

  const SchemaDocument& doc_;
  const SchemaStrictness strictness_;
  const uint8_t draft_;
  std::vector<Frame> stack_;
  std::vector<SchemaNode> ref_targets_;
  std::unordered_set<const Json*> seen_;
  AuditedKeywords found_;

  void enter(SchemaNode n) {
    if (!n.node->is_object() || !seen_.insert(n.node).second) return;  // booleans; invalid ones the compiler reports
    const uint32_t types = types_of(*n.node);
    const auto first = n.node->begin();
    stack_.push_back({std::move(n), types, first, {}, 0});
  }

  void drain() {
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.next_sub < f.subs.size()) {
        SchemaNode sub = f.subs[f.next_sub++];
        enter(std::move(sub));  // may reallocate the stack: `f` is not used after this
        continue;
      }
      if (f.next_key == f.schema.node->end()) {
        stack_.pop_back();
        continue;
      }
      const auto it = f.next_key++;
      f.subs.clear();
      f.next_sub = 0;
      read_keyword(f.schema, f.types, it.key(), it.value(), f.subs);
    }
  }

  void ignore(const std::string& keyword, const std::string& pointer, const std::string& why) {
    if (strictness_ == SchemaStrictness::Strict) throw_unsupported(keyword, pointer, why + " (schema strictness: strict)");
    found_.ignored.push_back(pointer);
  }

  void read_keyword(const SchemaNode& n, uint32_t types, const std::string& key, const Json& v,
                    std::vector<SchemaNode>& subs) {
    const std::string ptr = child(n.pointer, key);
    const KeywordInfo* info = find_keyword(key);
    if (!info) {
      const std::string_view typo = likely_typo_of(key, v, types);
      if (!typo.empty() && strictness_ != SchemaStrictness::Lenient)
        throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema,
                              "unknown keyword '" + key + "' (did you mean '" + std::string(typo) + "'?) at '" + ptr + "'")
            .at_pointer(ptr)
            .with_keyword(key);
      if (!typo.empty()) found_.suspected_typos.push_back({ptr, std::string(typo)});
      ignore(key, ptr, "no JSON Schema draft defines it");
      return;
    }
    if (!(info->drafts & draft_)) {
      ignore(key, ptr, std::string("not a keyword of ") + (draft_ == kDraft2020 ? "draft 2020-12" : "the draft-07 family"));
      return;
    }
    if (key == "id" && !v.is_string()) {
      ignore(key, ptr, "an id that is not an identifier");
      return;
    }
    if (key == "format" && v.is_string() && !format_is_defined(v.get_ref<const std::string&>())) {
      ignore(key, ptr, "format '" + v.get<std::string>() + "' is not a format of any draft or of ajv-formats");
      return;
    }
    if (key == "$ref" && v.is_string()) {
      try {
        ref_targets_.push_back(doc_.resolve_ref(v.get<std::string>(), n.pointer));
      } catch (const ConstraintError&) {
        // Remote, anchor or dangling: the compiler reports it where it follows the reference.
      }
    }
    add_subschemas(info->subs, v, ptr, subs);
  }

  static void add_subschemas(SubSchemas subs, const Json& v, const std::string& ptr, std::vector<SchemaNode>& out) {
    switch (subs) {
      case SubSchemas::None: return;
      case SubSchemas::One: out.push_back({&v, ptr}); return;
      case SubSchemas::OneOrList:
        if (!v.is_array()) {
          out.push_back({&v, ptr});
          return;
        }
        [[fallthrough]];
      case SubSchemas::List:
        if (v.is_array())
          for (size_t i = 0; i < v.size(); ++i) out.push_back({&v[i], ptr + "/" + std::to_string(i)});
        return;
      case SubSchemas::Map:
      case SubSchemas::OneOrNames:  // arrays of names are skipped as non-objects
        if (v.is_object())
          for (const auto& [name, sub] : v.items()) out.push_back({&sub, child(ptr, name)});
        return;
    }
  }
};

}  // namespace

const KeywordInfo* find_keyword(std::string_view name) {
  const auto& index = keyword_index();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

bool is_assertion_keyword(std::string_view name) {
  const KeywordInfo* k = find_keyword(name);
  return k && (k->kind == KeywordKind::Assertion || k->kind == KeywordKind::RefusedAssertion);
}

bool is_unsupported_keyword(std::string_view name) {
  const KeywordInfo* k = find_keyword(name);
  return k && (k->kind == KeywordKind::RefusedAssertion || k->kind == KeywordKind::RefusedCore);
}

std::string_view likely_typo_of(std::string_view name, const Json& value, uint32_t types) {
  if (name.empty()) return {};
  const char first = name[0];
  const bool letter = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z');
  // Names that start with another character are marked on purpose: `_format` (a keyword switched
  // off), `@type` (JSON-LD); `x-` / `x_` is the vendor-extension prefix.
  if (!letter && first != '$') return {};
  if (name.size() > 2 && (first == 'x' || first == 'X') && (name[1] == '-' || name[1] == '_')) return {};
  const std::string n = normalized(name);
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (const auto& k : kKeywords) {
    if (k.kind != KeywordKind::Assertion && k.kind != KeywordKind::RefusedAssertion) continue;
    if (!(k.types & types) || !value_fits(k.values, value)) continue;
    const std::string c = normalized(k.name);
    if (c[0] != n[0]) continue;  // typos keep the first letter (inclusiveMinimum is not exclusiveMinimum)
    // A longer name that contains the keyword whole is a compound (requiredIf, formatMaximum).
    if (n.size() >= c.size() + 2 && (n.compare(0, c.size(), c) == 0 || n.compare(n.size() - c.size(), c.size(), c) == 0))
      continue;
    const size_t allowed = c.size() <= 3 ? 0 : c.size() <= 7 ? 1 : 2;
    const size_t d = edit_distance(n, c);
    if (d <= allowed && d < best_distance) best = k.name, best_distance = d;
  }
  return best;
}

AuditedKeywords audit_keywords(const SchemaDocument& doc, SchemaStrictness strictness) {
  return KeywordAudit(doc, strictness).run();
}

}  // namespace ninfer::text
