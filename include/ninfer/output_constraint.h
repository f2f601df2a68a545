// What a request's output must match (public: no third-party types). Owns its source; the
// runtime never reads files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ninfer {

enum class JsonWhitespace {
  Compact,   // "," and ":" with no whitespace anywhere (the default generation language)
  Flexible,  // JSON whitespace allowed between tokens, each run bounded by max_whitespace_run
};

enum class JsonPropertyOrder {
  Declared,  // an object's properties in the schema's declared order (the default generation language)
  // Any order: each declared key at most once, additional properties anywhere, required keys
  // before the object closes, property counts within min/maxProperties. The matcher tracks the
  // keys of every open object, so the language is exact for objects of any size.
  Flexible,
};

// What a JSON Schema may hold besides the keywords the compiler enforces (docs/json-schema.md,
// "Keywords the compiler does not enforce").
enum class SchemaStrictness {
  // Keywords that no draft defines (vendor extensions such as x-*, javaType, nullable) are
  // ignored and listed in ignored_keywords; an unknown keyword that looks like a typo of an
  // assertion keyword (maxLenght) is an InvalidJsonSchema error.
  Standard,
  // Every keyword that Standard would list is an UnsupportedSchema error.
  Strict,
  // What the specification says: every unknown keyword, typo-like ones included, is an annotation,
  // ignored and listed in ignored_keywords; the typo-like ones are also listed in suspected_typos
  // with the keyword they resemble. For consumers that judge outputs with a specification
  // validator (MaskBench), where a misspelt assertion asserts nothing.
  Lenient,
};

// An unknown keyword that looks like a typo of an assertion keyword; under SchemaStrictness::Lenient
// it is ignored (and listed in ignored_keywords too) instead of being an error.
struct SuspectedTypo {
  std::string pointer;     // JSON Pointer of the keyword
  std::string suggestion;  // the assertion keyword it resembles
  bool operator==(const SuspectedTypo&) const = default;
};

struct JsonFormatOptions {
  JsonWhitespace whitespace = JsonWhitespace::Compact;
  uint32_t max_whitespace_run = 8;  // Flexible only: longest run of whitespace bytes between tokens
  JsonPropertyOrder property_order = JsonPropertyOrder::Declared;
  SchemaStrictness schema_strictness = SchemaStrictness::Standard;  // JSON Schema only
};

class OutputConstraint {
 public:
  enum class Kind { Grammar, JsonObject, JsonSchema, Choice, Regex };

  static OutputConstraint grammar(std::string gbnf);
  static OutputConstraint json_object(JsonFormatOptions options = {});
  static OutputConstraint json_schema(std::string schema_json, JsonFormatOptions options = {});
  static OutputConstraint choice(std::vector<std::string> options);
  static OutputConstraint regex(std::string pattern);

  Kind kind() const { return kind_; }
  const std::string& source() const { return source_; }                 // GBNF, schema JSON or regex
  const std::vector<std::string>& choices() const { return choices_; }  // deduplicated, sorted
  const JsonFormatOptions& json_options() const { return json_; }
  // Identity for compile caches: kind + source + options (choice: the deduplicated set).
  std::string cache_key() const;

 private:
  Kind kind_ = Kind::Grammar;
  std::string source_;
  std::vector<std::string> choices_;
  JsonFormatOptions json_;
};

const char* constraint_kind_name(OutputConstraint::Kind kind);

}  // namespace ninfer
