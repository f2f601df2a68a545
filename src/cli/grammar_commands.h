// `ninfer grammar check` and `ninfer grammar bench`.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

// Adds the `grammar` subcommand tree; the chosen command's exit status is written to `status`.
void register_grammar_commands(CLI::App& app, int& status);

}  // namespace ninfer::cli
