// `ninfer grammar sample`: seeded random walks through the token masks of compiled JSON Schemas.
// Each walk picks uniformly among the allowed tokens of every mask and writes the generated text
// as one JSON line, so that an independent validator (tests/ajv) can check every instance that
// ended against the schema.
#pragma once

#include <CLI/CLI.hpp>

namespace ninfer::cli {

void register_sample_command(CLI::App& grammar, int& status);

}  // namespace ninfer::cli
