// The constraint flags shared by `ninfer grammar ...` (and later `ninfer generate`).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "grammar/grammar_ir.h"

namespace ninfer::cli {

struct ConstraintArgs {
  std::string grammar_file;
};

void add_constraint_flags(CLI::App& app, ConstraintArgs& args);
// Reads the sources and builds the grammar IR; throws GrammarError or std::runtime_error (I/O).
grammar::Grammar build_constraint(const ConstraintArgs& args);

// Prints {"error": {...}} for a failed constraint and returns exit status 2.
int report_constraint_error(const std::exception& e);

std::string read_file(const std::string& path);

}  // namespace ninfer::cli
