// JSON Schema "format" values enforced as exact regular languages (string formats), or as
// integer ranges (OpenAPI's int32/int64). Anything else is an unsupported format.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace ninfer::text {

// ECMAScript regex (full match) for a supported string format, or nullopt.
std::optional<std::string> string_format_regex(const std::string& format);
// Format names that assert nothing we need to enforce: "binary", "password" (any string, as in
// ajv-formats), "float", "double" (any number), and names that no JSON Schema draft or
// ajv-formats defines (vendor annotations such as "topic": the specification makes unknown
// formats annotations). Standard formats we do not implement are not in this set.
bool format_is_annotation(const std::string& format);
// Format names that a JSON Schema draft, ajv-formats or OpenAPI defines (whether or not they
// assert anything); any other name is a vendor annotation.
bool format_is_defined(const std::string& format);
// Inclusive integer range for int32 / int64, or nullopt.
std::optional<std::pair<int64_t, int64_t>> integer_format_range(const std::string& format);

}  // namespace ninfer::text
