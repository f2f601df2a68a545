// `ninfer bench decode`: unconstrained and constrained decode speed measured in one process, printed
// as JSON (ms per token, tokens/s, inter-token latency percentiles, constraint CPU per token).
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_bench_commands(CLI::App& app, int& status);

}  // namespace ninfer::cli
