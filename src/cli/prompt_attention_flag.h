// The --prompt-attention flag that `generate`, `serve` and the benches share
// (EngineOptions::prompt_attention).
#pragma once

#include <CLI/CLI.hpp>

#include "ninfer/engine.h"

namespace ninfer::cli {

// --prompt-attention auto|exact|bf16
void add_prompt_attention_flag(CLI::App& cmd, PromptAttention& products);

}  // namespace ninfer::cli
