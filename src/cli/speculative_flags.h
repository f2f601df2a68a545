// The speculative-decoding flags that `generate`, `serve` and the benches share (EngineOptions).
#pragma once

#include <CLI/CLI.hpp>

#include "ninfer/engine.h"

namespace ninfer::cli {

// --speculative none|grammar|ngram|draft, --draft-model, --draft-q, --draft-tokens K, --fixed-draft-tokens,
// --ngram-max/--ngram-min.
// `method_flag`: the proposer option's names.
void add_speculative_flags(CLI::App& cmd, EngineOptions& options, const std::string& method_flag = "--speculative");

}  // namespace ninfer::cli
