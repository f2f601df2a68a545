#include "cli/constraint_flags.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grammar/gbnf_parser.h"

namespace ninfer::cli {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void add_constraint_flags(CLI::App& app, ConstraintArgs& args) {
  app.add_option("--grammar-file", args.grammar_file, "GBNF grammar file (entry rule: root)")->required();
}

grammar::Grammar build_constraint(const ConstraintArgs& args) { return grammar::parse_gbnf(read_file(args.grammar_file)); }

int report_constraint_error(const std::exception& e) {
  nlohmann::json err;
  if (auto* ge = dynamic_cast<const grammar::GrammarError*>(&e)) {
    err["kind"] = grammar::grammar_error_kind_name(ge->kind());
    err["message"] = ge->what();
    if (ge->location().line > 0)
      err["location"] = {{"line", ge->location().line}, {"column", ge->location().column}, {"offset", ge->location().offset}};
    else
      err["location"] = nullptr;
  } else {
    err["kind"] = "io";
    err["message"] = e.what();
    err["location"] = nullptr;
  }
  std::cout << nlohmann::json{{"error", err}}.dump() << std::endl;
  return 2;
}

}  // namespace ninfer::cli
