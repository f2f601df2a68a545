// `ninfer bench server`: what the HTTP server adds over the Engine API, in one process and one run:
// the same streamed completion in-process and over loopback HTTP (time to first token and time
// per token, medians over alternating repeats), and streaming throughput at several concurrencies.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_bench_server_command(CLI::App& bench, int& status);

}  // namespace ninfer::cli
