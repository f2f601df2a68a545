#include "ninfer/output_constraint.h"

#include <algorithm>

#include "ninfer/constraint_error.h"

namespace ninfer {

OutputConstraint OutputConstraint::grammar(std::string gbnf) {
  OutputConstraint c;
  c.kind_ = Kind::Grammar;
  c.source_ = std::move(gbnf);
  return c;
}

OutputConstraint OutputConstraint::json_object(JsonFormatOptions options) {
  OutputConstraint c;
  c.kind_ = Kind::JsonObject;
  c.json_ = options;
  return c;
}

OutputConstraint OutputConstraint::json_schema(std::string schema_json, JsonFormatOptions options) {
  OutputConstraint c;
  c.kind_ = Kind::JsonSchema;
  c.source_ = std::move(schema_json);
  c.json_ = options;
  return c;
}

OutputConstraint OutputConstraint::choice(std::vector<std::string> options) {
  if (options.empty()) throw ConstraintError(ConstraintErrorKind::InvalidChoice, "choice needs at least one option");
  std::sort(options.begin(), options.end());
  options.erase(std::unique(options.begin(), options.end()), options.end());
  OutputConstraint c;
  c.kind_ = Kind::Choice;
  c.choices_ = std::move(options);
  return c;
}

OutputConstraint OutputConstraint::regex(std::string pattern) {
  OutputConstraint c;
  c.kind_ = Kind::Regex;
  c.source_ = std::move(pattern);
  return c;
}

std::string OutputConstraint::cache_key() const {
  // Length-prefixed fields keep keys unambiguous whatever the sources contain.
  auto field = [](const std::string& s) { return std::to_string(s.size()) + ":" + s; };
  std::string key = std::string(constraint_kind_name(kind_)) + "|";
  if (kind_ == Kind::JsonObject || kind_ == Kind::JsonSchema) {
    key += (json_.whitespace == JsonWhitespace::Compact ? "compact|" : "flexible" + std::to_string(json_.max_whitespace_run) + "|");
    if (json_.property_order == JsonPropertyOrder::Flexible) key += "flexorder|";
    if (kind_ == Kind::JsonSchema && json_.schema_strictness == SchemaStrictness::Strict) key += "strict|";
    if (kind_ == Kind::JsonSchema && json_.schema_strictness == SchemaStrictness::Lenient) key += "lenient|";
  }
  if (kind_ == Kind::Choice) {
    for (const auto& o : choices_) key += field(o);
  } else {
    key += field(source_);
  }
  return key;
}

const char* constraint_kind_name(OutputConstraint::Kind kind) {
  switch (kind) {
    case OutputConstraint::Kind::Grammar: return "grammar";
    case OutputConstraint::Kind::JsonObject: return "json_object";
    case OutputConstraint::Kind::JsonSchema: return "json_schema";
    case OutputConstraint::Kind::Choice: return "choice";
    case OutputConstraint::Kind::Regex: return "regex";
  }
  return "unknown";
}

}  // namespace ninfer
