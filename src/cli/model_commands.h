// `ninfer make-model` (random-weight Qwen3 checkpoints) and `ninfer model-info` (what a path holds).
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_model_commands(CLI::App& app, int& status);

}  // namespace ninfer::cli
