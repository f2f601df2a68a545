// The official JSON-Schema-Test-Suite (read at test time from ../shared/data) against the JSON
// Schema compiler: every schema compiles or raises an expected, located error; every valid
// instance, written in the generation language (compact, canonical escapes, declared property
// order), is accepted unless an exclusion below says why it is outside that language; every
// invalid instance is refused, in its original key order and in declared order. An invalid
// instance that is accepted is never excludable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "text/json_schema_test_support.h"

namespace ninfer::text::testing {
namespace {

namespace fs = std::filesystem;

// A valid instance outside the generation language. draft: "draft2020-12", "draft7" or "*".
struct Exclusion {
  const char* draft;
  const char* file;  // relative to the draft folder
  const char* case_description;
  const char* test_description;
  const char* reason;
};

// Reasons a valid instance is outside the generation language (each exclusion names one).
constexpr const char* kIntegerAsFloat =
    "an integral number written with a fraction or exponent (1.0, 9.007199254740992e+15): integers are emitted as "
    "integer text";
constexpr const char* kLiteralText =
    "enum/const values are emitted as their own compact JSON text (the schema's key order); "
    "an equal object with its keys in another order is not generated";
constexpr const char* kBigNumber =
    "a number outside the bounded-number family (integer part of at most 15 digits, exponent at most 290; "
    "integers: plain int64 text)";
constexpr const char* kLeapSecond = "format date-time/time: second 60 (leap second) is not generated";
constexpr const char* kUriIpLiteral = "format uri: hosts are reg-names; IP-literal hosts ([...]) are not generated";
constexpr const char* kEmailDotAtom =
    "format email: the local part is a dot-atom and the domain a host name; quoted local parts and address "
    "literals are not generated";
constexpr const char* kFormatAssertion =
    "2020-12 makes format an annotation by default; NInfer always asserts the formats it supports";
constexpr const char* kVocabulary =
    "a custom metaschema without the validation vocabulary is not honoured; NInfer validates";
constexpr const char* kALabel =
    "format hostname: labels with \"--\" at positions 3-4 (A-labels) are refused outright; Punycode is not validated";
constexpr const char* kRefSiblings =
    "draft-07 ignores the siblings of $ref; NInfer applies them in every draft (stricter)";

constexpr const char* kRequiredOrder =
    "names only `required` (here: dependentRequired) mentions are emitted in that list's order, the dependency "
    "names before the name that requires them";

const Exclusion kExclusions[] = {
    {"draft2020-12", "dependentRequired.json", "dependencies with escaped characters", "CRLF", kRequiredOrder},
    {"*", "optional/format/hostname.json", "validation of A-label (punycode) host names", "*", kALabel},
    {"*", "const.json", "const with object", "same object with different property order is valid", kLiteralText},
    {"*", "type.json", "integer type matches integers", "a float with zero fractional part is an integer",
     kIntegerAsFloat},
    {"*", "optional/bignum.json", "integer", "a bignum is an integer", kBigNumber},
    {"*", "optional/bignum.json", "integer", "a negative bignum is an integer", kBigNumber},
    {"*", "optional/bignum.json", "maximum integer comparison", "comparison works for high numbers", kBigNumber},
    {"*", "optional/format/date-time.json", "validation of date-time strings",
     "a valid date-time with a leap second, UTC", kLeapSecond},
    {"*", "optional/format/date-time.json", "validation of date-time strings",
     "a valid date-time with a leap second, with minus offset", kLeapSecond},
    {"*", "optional/format/time.json", "validation of time strings", "a valid time string with leap second, Zulu",
     kLeapSecond},
    {"*", "optional/format/time.json", "validation of time strings", "valid leap second, zero time-offset",
     kLeapSecond},
    {"*", "optional/format/time.json", "validation of time strings", "valid leap second, positive time-offset",
     kLeapSecond},
    {"*", "optional/format/time.json", "validation of time strings", "valid leap second, large positive time-offset",
     kLeapSecond},
    {"*", "optional/format/time.json", "validation of time strings", "valid leap second, negative time-offset",
     kLeapSecond},
    {"*", "optional/format/time.json", "validation of time strings", "valid leap second, large negative time-offset",
     kLeapSecond},
    {"*", "optional/format/uri.json", "validation of URIs", "a valid URL", kUriIpLiteral},
    {"draft2020-12", "optional/format/email.json", "validation of e-mail addresses",
     "a quoted string with a space in the local part is valid", kEmailDotAtom},
    {"draft2020-12", "optional/format/email.json", "validation of e-mail addresses",
     "a quoted string with a double dot in the local part is valid", kEmailDotAtom},
    {"draft2020-12", "optional/format/email.json", "validation of e-mail addresses",
     "a quoted string with a @ in the local part is valid", kEmailDotAtom},
    {"draft2020-12", "optional/format/email.json", "validation of e-mail addresses",
     "an IPv4-address-literal after the @ is valid", kEmailDotAtom},
    {"draft2020-12", "optional/format/email.json", "validation of e-mail addresses",
     "an IPv6-address-literal after the @ is valid", kEmailDotAtom},
    {"draft2020-12", "format.json", "email format", "invalid email string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "ipv4 format", "invalid ipv4 string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "ipv6 format", "invalid ipv6 string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "hostname format", "invalid hostname string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "date format", "invalid date string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "date-time format", "invalid date-time string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "time format", "invalid time string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "uri format", "invalid uri string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "uuid format", "invalid uuid string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "format.json", "duration format", "invalid duration string is only an annotation by default",
     kFormatAssertion},
    {"draft2020-12", "vocabulary.json", "schema that uses custom metaschema with with no validation vocabulary",
     "no validation: invalid number, but it still validates", kVocabulary},
    {"draft7", "ref.json", "ref overrides any sibling keywords", "ref valid, maxItems ignored", kRefSiblings},
};

// A schema the compiler refuses with a typed error. case_description "*" = every case of the file
// that raises an error; keywords is a '|'-separated list of acceptable keywords ("" = any kind
// without keyword).
struct ExpectedError {
  const char* draft;
  const char* file;
  const char* case_description;
  ConstraintErrorKind kind;
  const char* keywords;
  const char* reason;
};

// Reasons a schema is refused (each expected error names one).
constexpr ConstraintErrorKind kUnsupported = ConstraintErrorKind::UnsupportedSchema;
constexpr const char* kKeyword = "keyword outside the supported set (docs/json-schema.md)";
constexpr const char* kRemoteRef = "remote or anchor $ref, or a nested $id changing the base of a $ref";
constexpr const char* kFractionalMultiple = "multipleOf with a fractional divisor";
constexpr const char* kNot = "not of a keyword whose complement is not expressible (unevaluatedProperties)";
constexpr const char* kOneOfNegation =
    "oneOf alternatives that overlap, one of them negated into non-integer numbers with bounds (not generated)";
constexpr const char* kPropertyNames = "propertyNames with something other than a pattern";
constexpr const char* kUnicodeProperty = "regex with a Unicode property escape (\\p{...})";
constexpr const char* kFormat = "format outside the supported set";
constexpr const char* kMinPropsAdditional =
    "minProperties reachable only through additional properties (their names are not kept distinct)";

const ExpectedError kExpectedErrors[] = {
    {"*", "minProperties.json", "minProperties validation", kUnsupported, "minProperties", kMinPropsAdditional},
    {"*", "minProperties.json", "minProperties validation with a decimal", kUnsupported, "minProperties",
     kMinPropsAdditional},
    {"draft2020-12", "additionalProperties.json", "additionalProperties with propertyNames", kUnsupported,
     "propertyNames", kPropertyNames},
    {"draft2020-12", "anchor.json", "*", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "dependentSchemas.json", "dependencies with escaped characters", kUnsupported, "minProperties",
     kMinPropsAdditional},
    {"draft7", "dependencies.json", "dependencies with escaped characters", kUnsupported, "minProperties",
     kMinPropsAdditional},
    {"draft2020-12", "not.json", "collect annotations inside a 'not', even if collection is disabled", kUnsupported,
     "not", kNot},
    {"*", "oneOf.json", "oneOf", kUnsupported, "not|oneOf", kOneOfNegation},
    {"*", "contains.json", "*", kUnsupported, "contains", kKeyword},
    {"draft7", "definitions.json", "validate definition against metaschema", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "defs.json", "validate definition against metaschema", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "dynamicRef.json", "*", kUnsupported, "$dynamicRef|$ref|$id", kRemoteRef},
    {"*", "format.json", "idn-email format", kUnsupported, "format", kFormat},
    {"*", "format.json", "idn-hostname format", kUnsupported, "format", kFormat},
    {"*", "format.json", "iri format", kUnsupported, "format", kFormat},
    {"*", "format.json", "iri-reference format", kUnsupported, "format", kFormat},
    {"*", "format.json", "json-pointer format", kUnsupported, "format", kFormat},
    {"*", "format.json", "regex format", kUnsupported, "format", kFormat},
    {"*", "format.json", "relative-json-pointer format", kUnsupported, "format", kFormat},
    {"*", "format.json", "uri-reference format", kUnsupported, "format", kFormat},
    {"*", "format.json", "uri-template format", kUnsupported, "format", kFormat},
    {"draft2020-12", "maxContains.json", "*", kUnsupported, "contains|maxContains|minContains", kKeyword},
    {"draft2020-12", "minContains.json", "*", kUnsupported, "contains|maxContains|minContains", kKeyword},
    {"*", "multipleOf.json", "by number", kUnsupported, "multipleOf", kFractionalMultiple},
    {"*", "multipleOf.json", "by small number", kUnsupported, "multipleOf", kFractionalMultiple},
    {"*", "multipleOf.json", "float division = inf", kUnsupported, "multipleOf", kFractionalMultiple},
    {"*", "multipleOf.json", "small multiple of large integer", kUnsupported, "multipleOf", kFractionalMultiple},
    {"*", "optional/ecmascript-regex.json", "pattern with non-ASCII digits", kUnsupported, "pattern", kUnicodeProperty},
    {"*", "optional/ecmascript-regex.json", "patternProperties with non-ASCII digits", kUnsupported,
     "patternProperties", kUnicodeProperty},
    {"*", "optional/ecmascript-regex.json", "patterns always use unicode semantics with pattern", kUnsupported,
     "pattern", kUnicodeProperty},
    {"*", "optional/ecmascript-regex.json", "patterns always use unicode semantics with patternProperties",
     kUnsupported, "patternProperties", kUnicodeProperty},
    {"*", "optional/float-overflow.json", "all integers are multiples of 0.5, if overflow is handled", kUnsupported,
     "multipleOf", kFractionalMultiple},
    {"*", "optional/format/ecmascript-regex.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/idn-email.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/idn-hostname.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/iri-reference.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/iri.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/json-pointer.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/regex.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/relative-json-pointer.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/uri-reference.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/format/uri-template.json", "*", kUnsupported, "format", kFormat},
    {"*", "optional/unknownKeyword.json", "$id inside an unknown keyword is not a real identifier", kUnsupported, "$ref",
     kRemoteRef},
    {"draft2020-12", "pattern.json", "pattern with Unicode property escape requires unicode mode", kUnsupported,
     "pattern", kUnicodeProperty},
    {"draft2020-12", "patternProperties.json", "patternProperties with Unicode property escape", kUnsupported,
     "patternProperties", kUnicodeProperty},
    {"*", "propertyNames.json", "propertyNames validation", kUnsupported, "propertyNames", kPropertyNames},
    {"*", "propertyNames.json", "propertyNames with const", kUnsupported, "propertyNames", kPropertyNames},
    {"*", "propertyNames.json", "propertyNames with enum", kUnsupported, "propertyNames", kPropertyNames},
    {"*", "ref.json", "$id must be resolved against nearest parent, not just immediate parent", kUnsupported, "$ref",
     kRemoteRef},
    {"draft7", "ref.json", "$ref prevents a sibling $id from changing the base uri", kUnsupported, "$id", kRemoteRef},
    {"draft7", "ref.json", "Location-independent identifier", kUnsupported, "$ref", kRemoteRef},
    {"draft7", "ref.json", "Location-independent identifier with base URI change in subschema", kUnsupported, "$ref",
     kRemoteRef},
    {"*", "ref.json", "Recursive references between schemas", kUnsupported, "$ref", kRemoteRef},
    {"draft7", "ref.json", "Reference an anchor with a non-relative URI", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "URN base URI with URN and anchor ref", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "ref.json", "URN ref with nested pointer ref", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "ref.json", "order of evaluation: $id and $anchor and $ref", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "ref.json", "order of evaluation: $id and $ref", kUnsupported, "$ref", kRemoteRef},
    {"draft2020-12", "ref.json", "order of evaluation: $id and $ref on nested schema", kUnsupported, "$ref",
     kRemoteRef},
    {"draft2020-12", "ref.json", "ref creates new scope when adjacent to keywords", kUnsupported,
     "unevaluatedProperties", kKeyword},
    {"*", "ref.json", "ref to else", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "ref to if", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "ref to then", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "ref with absolute-path-reference", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "refs with relative uris and defs", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "relative refs with absolute uris and defs", kUnsupported, "$ref", kRemoteRef},
    {"*", "ref.json", "remote ref, containing refs itself", kUnsupported, "$ref", kRemoteRef},
    {"*", "refRemote.json", "*", kUnsupported, "$ref|$id", kRemoteRef},
    {"draft2020-12", "unevaluatedItems.json", "*", kUnsupported, "unevaluatedItems|contains|if|not|$ref", kKeyword},
    {"draft2020-12", "unevaluatedProperties.json", "*", kUnsupported,
     "unevaluatedProperties|dependentSchemas|if|not|propertyNames|$ref", kKeyword},
    {"*", "uniqueItems.json", "*", kUnsupported, "uniqueItems", kKeyword},
};

// Files of each draft folder that are run (keywords we support, keywords we refuse, and the
// optional files about formats, regexes and numbers).
std::vector<std::string> suite_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().filename().string());
  if (fs::is_directory(dir / "optional" / "format"))
    for (const auto& e : fs::directory_iterator(dir / "optional" / "format"))
      if (e.is_regular_file() && e.path().extension() == ".json")
        files.push_back("optional/format/" + e.path().filename().string());
  for (const char* f : {"bignum.json", "ecmascript-regex.json", "non-bmp-regex.json", "float-overflow.json",
                        "unknownKeyword.json", "refOfUnknownKeyword.json"})
    if (fs::exists(dir / "optional" / f)) files.push_back(std::string("optional/") + f);
  std::sort(files.begin(), files.end());
  return files;
}

bool draft_matches(const char* pattern, const std::string& draft) {
  return std::string(pattern) == "*" || draft == pattern;
}

struct Summary {
  int files = 0, schemas = 0, compiled = 0, unsupported = 0, invalid_schema = 0, unsatisfiable = 0;
  int valid_accepted = 0, invalid_refused = 0, excluded = 0, not_run = 0, failures = 0;
};

class SuiteRunner {
 public:
  SuiteRunner(std::string draft, fs::path dir) : draft_(std::move(draft)), dir_(std::move(dir)) {}

  Summary run() {
    for (const auto& file : suite_files(dir_)) run_file(file);
    // Every table entry that applies to this draft must have been needed (no stale entries).
    for (size_t i = 0; i < std::size(kExclusions); ++i)
      if (draft_matches(kExclusions[i].draft, draft_) && !used_exclusions_.count(i))
        ADD_FAILURE() << draft_ << ": exclusion never used: " << kExclusions[i].file << " / "
                      << kExclusions[i].case_description << " / " << kExclusions[i].test_description;
    for (size_t i = 0; i < std::size(kExpectedErrors); ++i)
      if (draft_matches(kExpectedErrors[i].draft, draft_) && !used_errors_.count(i))
        ADD_FAILURE() << draft_ << ": expected error never raised: " << kExpectedErrors[i].file << " / "
                      << kExpectedErrors[i].case_description;
    return sum_;
  }
  const std::string& report() const { return report_; }

 private:
  std::string draft_;
  fs::path dir_;
  Summary sum_;
  std::set<size_t> used_exclusions_, used_errors_;
  std::string report_;

  const Exclusion* find_exclusion(const std::string& file, const std::string& cdesc, const std::string& tdesc) {
    for (size_t i = 0; i < std::size(kExclusions); ++i) {
      const Exclusion& x = kExclusions[i];
      if (draft_matches(x.draft, draft_) && file == x.file && cdesc == x.case_description &&
          (tdesc == x.test_description || std::string(x.test_description) == "*")) {
        used_exclusions_.insert(i);
        return &x;
      }
    }
    return nullptr;
  }
  const ExpectedError* find_error(const std::string& file, const std::string& cdesc, const ConstraintError& e) {
    for (size_t i = 0; i < std::size(kExpectedErrors); ++i) {
      const ExpectedError& x = kExpectedErrors[i];
      if (!draft_matches(x.draft, draft_) || file != x.file) continue;
      if (std::string(x.case_description) != "*" && cdesc != x.case_description) continue;
      if (x.kind != e.kind()) continue;
      std::string kws = std::string("|") + x.keywords + "|";
      if (x.keywords[0] && kws.find("|" + e.keyword() + "|") == std::string::npos) continue;
      used_errors_.insert(i);
      return &x;
    }
    return nullptr;
  }
  const ExpectedError* listed_error(const std::string& file, const std::string& cdesc) {
    for (const ExpectedError& x : kExpectedErrors)
      if (draft_matches(x.draft, draft_) && file == x.file && cdesc == x.case_description) return &x;
    return nullptr;
  }

  void note(const std::string& line) { report_ += draft_ + " | " + line + "\n"; }

  void run_file(const std::string& file) {
    std::ifstream in(dir_ / file);
    ASSERT_TRUE(in) << file;
    OJson cases = OJson::parse(in);
    ++sum_.files;
    for (const auto& c : cases) run_case(file, c);
  }

  void run_case(const std::string& file, const OJson& c) {
    ++sum_.schemas;
    const std::string cdesc = c.at("description").get<std::string>();
    OJson schema = c.at("schema");
    if (draft_ == "draft7" && schema.is_object() && !schema.contains("$schema")) {
      OJson with = OJson::object();
      with["$schema"] = "http://json-schema.org/draft-07/schema#";
      for (const auto& [k, v] : schema.items()) with[k] = v;
      schema = std::move(with);
    }
    const std::string where = file + " / " + cdesc;
    std::shared_ptr<const grammar::CompiledGrammar> g;
    bool unsat = false;
    try {
      g = compile_schema(schema.dump());
    } catch (const ConstraintError& e) {
      if (e.kind() == ConstraintErrorKind::Unsatisfiable) {
        unsat = true;
        ++sum_.unsatisfiable;
        note("UNSAT " + where + " | " + e.pointer());
      } else {
        const ExpectedError* x = find_error(file, cdesc, e);
        note(std::string(constraint_error_kind_name(e.kind())) + " " + where + " | " + e.keyword() + " | " +
             e.pointer() + " | " + e.what());
        if (!x) {
          ++sum_.failures;
          ADD_FAILURE() << draft_ << " " << where << ": unexpected " << constraint_error_kind_name(e.kind())
                        << " (keyword '" << e.keyword() << "', pointer '" << e.pointer() << "'): " << e.what();
        }
        if (e.kind() == ConstraintErrorKind::UnsupportedSchema)
          ++sum_.unsupported;
        else
          ++sum_.invalid_schema;
        sum_.not_run += static_cast<int>(c.at("tests").size());
        return;
      }
    } catch (const std::exception& e) {
      ++sum_.failures;
      ADD_FAILURE() << draft_ << " " << where << ": an exception other than ConstraintError: " << e.what();
      return;
    }
    if (!unsat) {
      ++sum_.compiled;
      if (const ExpectedError* x = listed_error(file, cdesc))
        ADD_FAILURE() << draft_ << " " << where << ": compiles, but the table expects an error (" << x->reason
                      << "); remove the entry";
    }
    // The same schema in the flexible whitespace language, for instances written with ", " and ": ".
    std::shared_ptr<const grammar::CompiledGrammar> flex;
    if (g) {
      try {
        flex = compile_schema(schema.dump(), flexible());
      } catch (const ConstraintError& e) {
        ADD_FAILURE() << draft_ << " " << where << ": compiles compact but not flexible: " << e.what();
      }
    }
    for (const auto& t : c.at("tests")) {
      const std::string tdesc = t.at("description").get<std::string>();
      const OJson& data = t.at("data");
      const bool valid = t.at("valid").get<bool>();
      const OJson reordered = DeclaredOrder(schema).apply(data);
      const std::string original = generation_text(data);
      const std::string declared = generation_text(reordered);
      const bool acc_original = g && accepts(g, original);
      const bool acc_declared = g && (declared == original ? acc_original : accepts(g, declared));
      if (flex) {
        // Flexible whitespace changes nothing but the separators: same verdict as compact.
        const std::string spaced = dump_json(reordered, JsonStyle{true, false});
        if (accepts(flex, spaced) != acc_declared) {
          ++sum_.failures;
          ADD_FAILURE() << draft_ << " " << where << " / " << tdesc << ": flexible verdict on " << spaced
                        << " differs from compact verdict on " << declared;
        }
      }
      const Exclusion* x = find_exclusion(file, cdesc, tdesc);
      if (valid) {
        const bool ok = acc_declared || acc_original;
        if (x) {
          ++sum_.excluded;
          note("EXCLUDED " + where + " / " + tdesc + " | " + declared);
          if (ok)
            ADD_FAILURE() << draft_ << " " << where << " / " << tdesc << ": excluded (" << x->reason
                          << ") but accepted: remove the exclusion";
        } else if (ok) {
          ++sum_.valid_accepted;
        } else {
          ++sum_.failures;
          note("VALID-REFUSED " + where + " / " + tdesc + " | " + declared);
          ADD_FAILURE() << draft_ << " " << where << " / " << tdesc << ": valid instance refused: " << declared;
        }
      } else {
        // A whole-case exclusion ("*") covers the case's valid instances only; its invalid ones are checked.
        if (x && std::string(x->test_description) != "*")
          ADD_FAILURE() << draft_ << " " << where << " / " << tdesc << ": invalid instances cannot be excluded";
        if (acc_original || acc_declared) {
          ++sum_.failures;
          note("INVALID-ACCEPTED " + where + " / " + tdesc + " | " + (acc_declared ? declared : original));
          ADD_FAILURE() << draft_ << " " << where << " / " << tdesc
                        << ": BUG: invalid instance accepted: " << (acc_declared ? declared : original);
        } else {
          ++sum_.invalid_refused;
        }
      }
    }
  }
};

fs::path suite_root() { return fs::path(NINFER_SHARED_DATA_DIR) / "json-schema-test-suite" / "tests"; }

void run_draft(const std::string& draft) {
  const fs::path dir = suite_root() / draft;
  if (!fs::is_directory(dir)) GTEST_SKIP() << "JSON-Schema-Test-Suite not found at " << dir;
  SuiteRunner runner(draft, dir);
  const Summary s = runner.run();
  std::printf(
      "[suite %s] files %d, schemas %d: compiled %d, unsupported %d, invalid schema %d, unsatisfiable %d; "
      "valid accepted %d, invalid refused %d, excluded %d, not run %d, failures %d\n",
      draft.c_str(), s.files, s.schemas, s.compiled, s.unsupported, s.invalid_schema, s.unsatisfiable, s.valid_accepted,
      s.invalid_refused, s.excluded, s.not_run, s.failures);
  if (const char* path = std::getenv("NINFER_SUITE_REPORT")) {
    std::ofstream out(std::string(path) + "." + draft + ".txt");
    out << runner.report();
  }
}

TEST(JsonSchemaSuite, Draft2020_12) { run_draft("draft2020-12"); }
TEST(JsonSchemaSuite, Draft7) { run_draft("draft7"); }

}  // namespace
}  // namespace ninfer::text::testing
