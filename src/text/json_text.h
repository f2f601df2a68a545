// JSON serialisation in the styles the tools need: compact (`,` `:`) and Python json.dumps
// (`, ` `: `, ensure_ascii). Internal header: it takes nlohmann::json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ninfer::text {

struct JsonStyle {
  bool spaces = false;        // ", " and ": " like json.dumps; otherwise "," and ":"
  bool ensure_ascii = false;  // escape every non-ASCII character as \uXXXX (surrogate pairs past the BMP)
};

std::string dump_json(const nlohmann::ordered_json& value, const JsonStyle& style);

}  // namespace ninfer::text
