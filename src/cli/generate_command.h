// `ninfer generate`: one constrained (or free) raw-text continuation on a model.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_generate_command(CLI::App& app, int& status);

}  // namespace ninfer::cli
