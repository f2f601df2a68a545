// `ninfer grammar maskbench DIR`: the MaskBench protocol (compile each schema, walk every test
// instance token by token through the masks), each schema isolated in its own process.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_maskbench_command(CLI::App& grammar, int& status);

}  // namespace ninfer::cli
