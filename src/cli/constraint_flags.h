// The constraint flags shared by `ninfer grammar ...` (and later `ninfer generate`):
// --grammar-file, --json-schema-file, --json-object, --regex, repeated --choice (exclusive),
// plus --whitespace and --property-order for the JSON ones, and --schema-strictness for schemas.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ninfer/output_constraint.h"

namespace ninfer::cli {

struct ConstraintArgs {
  std::string grammar_file;
  std::string json_schema_file;
  bool json_object = false;
  std::string regex;
  bool has_regex = false;
  std::vector<std::string> choices;
  std::string whitespace = "compact";
  std::string property_order = "declared";
  std::string schema_strictness = "standard";
};

void add_constraint_flags(CLI::App& app, ConstraintArgs& args, bool required = true);  // presence is checked by build_constraint
JsonFormatOptions json_format(const std::string& whitespace, const std::string& property_order = "declared",
                              const std::string& schema_strictness = "standard");
// Adds --property-order (declared | flexible) bound to `order`.
void add_property_order_flag(CLI::App& app, std::string& order, const std::string& default_order = "declared");
// Adds --schema-strictness (standard | strict | lenient) bound to `strictness`.
void add_schema_strictness_flag(CLI::App& app, std::string& strictness, const std::string& default_strictness = "standard");
// Whether any constraint flag was given.
bool has_constraint(const ConstraintArgs& args);
// Reads the sources and builds the constraint; throws ConstraintError or std::runtime_error (I/O).
OutputConstraint build_constraint(const ConstraintArgs& args);

// Prints {"error": {...}} for a failed constraint and returns exit status 2.
int report_constraint_error(const std::exception& e);

std::string read_file(const std::string& path);

}  // namespace ninfer::cli
