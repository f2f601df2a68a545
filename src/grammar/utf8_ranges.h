// Splits a range of Unicode scalar values into sequences of byte ranges (one sequence per
// rectangle of the UTF-8 encoding), so character classes become byte-level automata.
#pragma once

#include <cstdint>
#include <vector>

namespace ninfer::grammar {

struct ByteRange {
  uint8_t lo = 0;
  uint8_t hi = 0;
};

// Each inner vector is a sequence of 1..4 byte ranges; the union of the sequences' languages is
// exactly the UTF-8 encodings of [lo, hi] (surrogates must not be inside the range).
void utf8_sequences(uint32_t lo, uint32_t hi, std::vector<std::vector<ByteRange>>& out);

}  // namespace ninfer::grammar
