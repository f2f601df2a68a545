#include "speculative/forced_tokens.h"

#include <algorithm>

#include "tokenizer/tokenizer.h"

namespace ninfer::speculative {

namespace {

// The longest prefix of whole UTF-8 characters: a forced string can stop inside one (the grammar
// forces bytes, not characters), and the tokenizer encodes text.
size_t whole_characters(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) break;
    size_t k = 1;
    while (k < n && (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80) ++k;
    if (k < n) break;
    i += n;
  }
  return i;
}

}  // namespace

int propose_forced(const tokenizer::Tokenizer& tok, std::string_view forced, int max_tokens, std::vector<int32_t>& out) {
  forced = forced.substr(0, whole_characters(forced));
  if (forced.empty() || max_tokens <= 0) return 0;
  const std::vector<int32_t> ids = tok.encode(forced);
  const int n = std::min(max_tokens, static_cast<int>(ids.size()));
  out.insert(out.end(), ids.begin(), ids.begin() + n);
  return n;
}

}  // namespace ninfer::speculative
