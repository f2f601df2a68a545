// `ninfer chat ...`: the chat command and its subcommands (`chat render` renders a chat template).
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

// Adds the `chat` subcommand tree and returns the `chat` command, so that further options (--request) can be
// attached to it; the chosen command's exit status is written to `status`.
CLI::App* register_chat_commands(CLI::App& app, int& status);

}  // namespace ninfer::cli
