// `ninfer bench spec`: speculative against plain decoding in one process and one engine (plain rounds
// ask for no drafts), constrained and unconstrained, printed as JSON: tokens/s, ms per token, the
// accepted length per verification step, drafts the mask rejected, the mask time left exposed, and
// at temperature 0 whether both gave the same tokens.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_bench_spec_command(CLI::App& bench, int& status);

}  // namespace ninfer::cli
