// UTF-8 code point helpers: Python counts, indexes and slices strings by code point, so the interpreter does too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ninfer::jinja {

// Decodes UTF-8; an invalid byte decodes as itself (U+0080..U+00FF range is never produced from valid input).
std::u32string utf8_decode(std::string_view s);
void utf8_append(std::string& out, char32_t cp);
std::string utf8_encode(std::u32string_view s);
size_t utf8_length(std::string_view s);
// True when the string holds only ASCII bytes (then byte offsets are code point offsets).
bool is_ascii(std::string_view s);

}  // namespace ninfer::jinja
