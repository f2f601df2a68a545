// `ninfer bench prefill`: prompt processing speed, printed as JSON. The model's forward pass over an
// N-token prompt alone (tokens/s and GFLOP/s), the time to first token of an N-token request through
// the Engine, and the exact prefix cache: a repeated N-token system prompt's second request against
// its first, with the outputs compared at temperature 0.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_bench_prefill_command(CLI::App& bench, int& status);

}  // namespace ninfer::cli
