#include "cli/constraint_flags.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ninfer/constraint_error.h"

namespace ninfer::cli {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void add_constraint_flags(CLI::App& app, ConstraintArgs& args, bool /*required*/) {
  auto* g = app.add_option("--grammar-file", args.grammar_file, "GBNF grammar file (entry rule: root)");
  auto* s = app.add_option("--json-schema-file", args.json_schema_file, "JSON Schema file");
  auto* o = app.add_flag("--json-object", args.json_object, "any JSON object");
  auto* r = app.add_option_function<std::string>(
      "--regex", [&args](const std::string& v) { args.regex = v, args.has_regex = true; }, "regular expression (full match)");
  auto* c = app.add_option("--choice", args.choices, "one allowed output (repeat the flag)");
  app.add_option("--whitespace", args.whitespace, "JSON whitespace: compact (default) or flexible")
      ->check(CLI::IsMember({"compact", "flexible"}));
  add_property_order_flag(app, args.property_order);
  add_schema_strictness_flag(app, args.schema_strictness);
  g->excludes(s, o, r, c);
  s->excludes(o, r, c);
  o->excludes(r, c);
  r->excludes(c);
}

void add_property_order_flag(CLI::App& app, std::string& order, const std::string& default_order) {
  app.add_option("--property-order", order,
                 "JSON object keys: declared (the schema's order) or flexible (any order, each declared key at most "
                 "once, required keys before the end); default " + default_order)
      ->check(CLI::IsMember({"declared", "flexible"}));
}

void add_schema_strictness_flag(CLI::App& app, std::string& strictness, const std::string& default_strictness) {
  app.add_option("--schema-strictness", strictness,
                 "JSON Schema keywords no draft defines: standard (ignored and listed in ignored_keywords; likely "
                 "typos are errors), strict (every one is an error) or lenient (every one ignored and listed, likely "
                 "typos also in suspected_typos); default " + default_strictness)
      ->check(CLI::IsMember({"standard", "strict", "lenient"}));
}

JsonFormatOptions json_format(const std::string& whitespace, const std::string& property_order,
                              const std::string& schema_strictness) {
  JsonFormatOptions f;
  f.schema_strictness = schema_strictness == "strict"    ? SchemaStrictness::Strict
                        : schema_strictness == "lenient" ? SchemaStrictness::Lenient
                                                         : SchemaStrictness::Standard;
  f.whitespace = whitespace == "flexible" ? JsonWhitespace::Flexible : JsonWhitespace::Compact;
  f.property_order = property_order == "flexible" ? JsonPropertyOrder::Flexible : JsonPropertyOrder::Declared;
  return f;
}

bool has_constraint(const ConstraintArgs& args) {
  return !args.grammar_file.empty() || !args.json_schema_file.empty() || args.json_object || args.has_regex ||
         !args.choices.empty();
}

OutputConstraint build_constraint(const ConstraintArgs& args) {
  if (!args.grammar_file.empty()) return OutputConstraint::grammar(read_file(args.grammar_file));
  if (!args.json_schema_file.empty())
    return OutputConstraint::json_schema(read_file(args.json_schema_file),
                                         json_format(args.whitespace, args.property_order, args.schema_strictness));
  if (args.json_object) return OutputConstraint::json_object(json_format(args.whitespace, args.property_order));
  if (args.has_regex) return OutputConstraint::regex(args.regex);
  if (!args.choices.empty()) return OutputConstraint::choice(args.choices);
  throw std::runtime_error(
      "no constraint given: use one of --grammar-file, --json-schema-file, --json-object, --regex, --choice");
}

int report_constraint_error(const std::exception& e) {
  nlohmann::json err;
  if (auto* ce = dynamic_cast<const ConstraintError*>(&e)) {
    err["kind"] = constraint_error_kind_name(ce->kind());
    err["message"] = ce->what();
    nlohmann::json loc = nlohmann::json::object();
    if (ce->line() > 0) loc["line"] = ce->line(), loc["column"] = ce->column();
    if (ce->kind() == ConstraintErrorKind::InvalidJsonSchema || ce->kind() == ConstraintErrorKind::UnsupportedSchema ||
        ce->kind() == ConstraintErrorKind::Unsatisfiable ||
        (ce->kind() == ConstraintErrorKind::LimitExceeded && ce->line() == 0 && ce->offset() < 0))
      loc["pointer"] = ce->pointer();
    if (ce->kind() == ConstraintErrorKind::LimitExceeded) err["limit"] = {{"name", ce->limit()}, {"value", ce->limit_value()}};
    if (!ce->keyword().empty()) err["keyword"] = ce->keyword();
    if (ce->offset() >= 0) loc["offset"] = ce->offset();
    err["location"] = loc.empty() ? nlohmann::json(nullptr) : loc;
  } else {
    err["kind"] = "io";
    err["message"] = e.what();
    err["location"] = nullptr;
  }
  std::cout << nlohmann::json{{"error", err}}.dump() << std::endl;
  return 2;
}

}  // namespace ninfer::cli
