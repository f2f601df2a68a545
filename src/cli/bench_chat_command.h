// `ninfer bench chat-prepare`: what a chat request with tools costs before its first token (render
// + tool-grammar compile, cold and warm), and the mask time per position on the tool grammars.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_bench_chat_command(CLI::App& bench, int& status);

}  // namespace ninfer::cli
