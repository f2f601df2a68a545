#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8.h"

namespace ninfer::tokenizer::byte_level {
namespace {

struct Tables {
  std::array<char32_t, 256> to_cp{};
  std::array<int16_t, 512> to_byte{};  // every alphabet code point is < 512

  Tables() {
    to_byte.fill(-1);
    // Printable Latin-1 bytes keep their own code point; the others are moved to 256 + n in order.
    const auto keeps = [](int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      const char32_t cp = keeps(b) ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + next++);
      to_cp[b] = cp;
      to_byte[cp] = static_cast<int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t code_point_of(unsigned char b) { return tables().to_cp[b]; }

int byte_of(char32_t cp) { return cp < 512 ? tables().to_byte[cp] : -1; }

std::string encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) utf8::append(out, code_point_of(b));
  return out;
}

bool decode_into(std::string_view symbols, std::string& out) {
  out.clear();
  size_t pos = 0;
  while (pos < symbols.size()) {
    if (utf8::sequence_length(symbols, pos) == 0) return false;
    const int b = byte_of(utf8::decode(symbols, pos));
    if (b < 0) return false;
    out += static_cast<char>(b);
  }
  return true;
}

std::optional<std::string> decode(std::string_view symbols) {
  std::string out;
  if (!decode_into(symbols, out)) return std::nullopt;
  return out;
}

}  // namespace ninfer::tokenizer::byte_level
