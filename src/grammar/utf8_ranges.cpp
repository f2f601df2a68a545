#include "grammar/utf8_ranges.h"

#include <string>

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {
namespace {

int encoded_length(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }
uint32_t max_for_length(int n) { return n == 1 ? 0x7F : n == 2 ? 0x7FF : n == 3 ? 0xFFFF : 0x10FFFF; }

void split_same_length(uint32_t lo, uint32_t hi, std::vector<std::vector<ByteRange>>& out) {
  int n = encoded_length(lo);
  // Split until every continuation position spans its full 0x80..0xBF range except where lo and hi share a prefix.
  for (int i = 1; i < n; ++i) {
    uint32_t m = (1u << (6 * i)) - 1;
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) {
        split_same_length(lo, lo | m, out);
        split_same_length((lo | m) + 1, hi, out);
        return;
      }
      if ((hi & m) != m) {
        split_same_length(lo, (hi & ~m) - 1, out);
        split_same_length(hi & ~m, hi, out);
        return;
      }
    }
  }
  std::string a, b;
  append_utf8(a, lo);
  append_utf8(b, hi);
  std::vector<ByteRange> seq;
  for (size_t i = 0; i < a.size(); ++i)
    seq.push_back({static_cast<uint8_t>(a[i]), static_cast<uint8_t>(b[i])});
  out.push_back(std::move(seq));
}

}  // namespace

void utf8_sequences(uint32_t lo, uint32_t hi, std::vector<std::vector<ByteRange>>& out) {
  while (lo <= hi) {
    int n = encoded_length(lo);
    uint32_t end = std::min(hi, max_for_length(n));
    split_same_length(lo, end, out);
    if (end == hi) break;
    lo = end + 1;
  }
}

}  // namespace ninfer::grammar
