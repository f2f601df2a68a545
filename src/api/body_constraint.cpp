#include "api/body_constraint.h"

#include <vector>

namespace ninfer::api {
namespace {

bool valid_schema_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  return true;
}

}  // namespace

std::optional<BodyConstraint> map_openai_response_format(const Field& rf) {
  rf.object();
  const std::string& type = rf.required_member("type").one_of({"text", "json_object", "json_schema"});
  if (type == "text") {
    rf.only_members({"type"});
    return std::nullopt;
  }
  if (type == "json_object") {
    rf.only_members({"type"});
    return BodyConstraint{OutputConstraint::json_object(), rf.path()};
  }
  rf.only_members({"type", "json_schema"});
  const Field js = rf.required_member("json_schema");
  js.object();
  js.only_members({"name", "description", "schema", "strict"});
  return map_openai_json_schema(js);
}

BodyConstraint map_openai_json_schema(const Field& js) {
  const Field name = js.required_member("name");
  if (!valid_schema_name(name.string()))
    name.fail("Invalid '" + name.path() + "': the name must be 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'.");
  if (auto d = js.optional_member("description")) d->string();
  JsonFormatOptions format;
  // strict: a keyword the compiler cannot enforce is an error instead of an ignored annotation.
  if (auto strict = js.optional_member("strict"); strict && strict->boolean())
    format.schema_strictness = SchemaStrictness::Strict;
  const Field schema = js.member("schema");
  // Without a schema the output is any JSON value (the empty schema).
  const std::string text = schema.is_null() ? std::string("{}") : schema.object().dump();
  return BodyConstraint{OutputConstraint::json_schema(text, format), schema.path()};
}

std::optional<BodyConstraint> map_structured_outputs(const Field& so) {
  so.object();
  so.only_members({"json", "regex", "choice", "grammar", "json_object"});
  std::optional<BodyConstraint> out;
  for (const auto& [key, value] : so.json().items()) {
    const Field f = so.member(key);
    if (f.is_null() || (key == "json_object" && !f.boolean())) continue;
    if (out)
      f.fail("Invalid '" + f.path() + "': 'structured_outputs' takes exactly one of json, regex, choice, grammar and "
             "json_object, and '" + out->param + "' is already given.",
             "conflicting_parameters");
    if (key == "json") {
      if (f.json().is_object()) out = BodyConstraint{OutputConstraint::json_schema(f.json().dump()), f.path()};
      else if (f.json().is_string()) out = BodyConstraint{OutputConstraint::json_schema(f.string()), f.path()};
      else f.fail_type("an object or a string (a JSON Schema)");
    } else if (key == "regex") {
      out = BodyConstraint{OutputConstraint::regex(f.string()), f.path()};
    } else if (key == "grammar") {
      out = BodyConstraint{OutputConstraint::grammar(f.string()), f.path()};
    } else if (key == "choice") {
      std::vector<std::string> choices;
      for (size_t i = 0; i < f.array().size(); ++i) choices.push_back(f.element(i).string());
      if (choices.empty())
        f.fail("Invalid '" + f.path() + "': empty array. Expected at least one choice.", "empty_array");
      out = BodyConstraint{OutputConstraint::choice(std::move(choices)), f.path()};
    } else {
      out = BodyConstraint{OutputConstraint::json_object(), f.path()};
    }
  }
  return out;
}

}  // namespace ninfer::api
