// `ninfer serve`: the HTTP server (src/server) with its options.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_serve_command(CLI::App& app, int& status);

}  // namespace ninfer::cli
