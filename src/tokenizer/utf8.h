// Small UTF-8 helpers for the tokenizer (validation, lossy repair, code point iteration).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ninfer::tokenizer::utf8 {

// Length of the well-formed UTF-8 sequence starting at s[pos] (1..4), or 0 if it is not one
// (overlong forms, surrogates, code points above U+10FFFF and truncated sequences are rejected).
inline size_t sequence_length(std::string_view s, size_t pos) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t c = b(pos);
  const size_t left = s.size() - pos;
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return (left >= 2 && (b(pos + 1) & 0xC0) == 0x80) ? 2 : 0;
  if (c < 0xF0) {
    if (left < 3) return 0;
    const uint8_t c1 = b(pos + 1);
    if ((c1 & 0xC0) != 0x80 || (b(pos + 2) & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
    if (c == 0xED && c1 >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c < 0xF5) {
    if (left < 4) return 0;
    const uint8_t c1 = b(pos + 1);
    if ((c1 & 0xC0) != 0x80 || (b(pos + 2) & 0xC0) != 0x80 || (b(pos + 3) & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
    if (c == 0xF4 && c1 >= 0x90) return 0;  // > U+10FFFF
    return 4;
  }
  return 0;
}

inline bool is_valid(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII fast path, 8 bytes at a time.
    while (i + 8 <= s.size()) {
      uint64_t w = 0;
      for (int k = 0; k < 8; ++k) w |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + k])) << (8 * k);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= s.size()) break;
    const size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

inline bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<uint8_t>(c) >= 0x80) return false;
  return true;
}

inline void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Lossy repair: every byte that does not start a well-formed sequence becomes U+FFFD.
inline std::string repair(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = sequence_length(s, i);
    if (n == 0) {
      append(out, 0xFFFD);
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Decodes the (well-formed) sequence at s[pos] and advances pos. Precondition: valid UTF-8.
inline char32_t decode(std::string_view s, size_t& pos) {
  const auto b = [&](size_t i) { return static_cast<char32_t>(static_cast<uint8_t>(s[i])); };
  const char32_t c = b(pos);
  if (c < 0x80) {
    pos += 1;
    return c;
  }
  if (c < 0xE0) {
    const char32_t r = ((c & 0x1F) << 6) | (b(pos + 1) & 0x3F);
    pos += 2;
    return r;
  }
  if (c < 0xF0) {
    const char32_t r = ((c & 0x0F) << 12) | ((b(pos + 1) & 0x3F) << 6) | (b(pos + 2) & 0x3F);
    pos += 3;
    return r;
  }
  const char32_t r = ((c & 0x07) << 18) | ((b(pos + 1) & 0x3F) << 12) | ((b(pos + 2) & 0x3F) << 6) |
                     (b(pos + 3) & 0x3F);
  pos += 4;
  return r;
}

// Unicode White_Space (the set Rust's char::is_whitespace and Oniguruma's \s use).
inline bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

}  // namespace ninfer::tokenizer::utf8
