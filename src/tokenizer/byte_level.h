// The GPT-2 byte-level alphabet: a bijection between the 256 byte values and 256 printable code
// points, used by byte-level BPE vocabularies ("Ġ" = 0x20, "Ċ" = 0x0A, ...).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ninfer::tokenizer::byte_level {

// Code point that stands for byte `b`.
char32_t code_point_of(unsigned char b);
// Byte that code point `cp` stands for, or -1 when `cp` is not in the alphabet.
int byte_of(char32_t cp);
// Bytes -> alphabet string (UTF-8).
std::string encode(std::string_view bytes);
// Alphabet string (UTF-8) -> bytes; nullopt if some character is outside the alphabet or the
// input is not valid UTF-8.
std::optional<std::string> decode(std::string_view symbols);
// Same, into `out` (replaced); returns false (out unspecified) where decode gives nullopt.
bool decode_into(std::string_view symbols, std::string& out);

}  // namespace ninfer::tokenizer::byte_level
