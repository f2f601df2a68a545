// UTF-8 code point helpers: Python counts, indexes and slices strings by code point, so the interpreter does too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/utf8.h"

namespace ninfer::jinja {

// Decodes UTF-8; an invalid byte decodes as itself (U+0080..U+00FF range is never produced from valid input).
std::u32string utf8_decode(std::string_view s);
inline void utf8_append(std::string& out, char32_t cp) { tokenizer::utf8::append(out, cp); }
std::string utf8_encode(std::u32string_view s);
size_t utf8_length(std::string_view s);
// True when the string holds only ASCII bytes (then byte offsets are code point offsets).
using tokenizer::utf8::is_ascii;

}  // namespace ninfer::jinja
