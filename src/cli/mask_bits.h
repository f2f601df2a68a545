// Token masks as the random walks of the CLI read them: counting the allowed ids and picking one.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace ninfer::cli {

inline uint64_t count_set_bits(const std::vector<uint32_t>& words) {
  uint64_t n = 0;
  for (uint32_t w : words) n += static_cast<uint64_t>(std::popcount(w));
  return n;
}

// The id of the k-th set bit (k < count_set_bits(words)), or -1.
inline int32_t kth_set_bit(const std::vector<uint32_t>& words, uint64_t k) {
  for (size_t w = 0; w < words.size(); ++w) {
    uint32_t bits = words[w];
    const auto n = static_cast<uint64_t>(std::popcount(bits));
    if (k >= n) {
      k -= n;
      continue;
    }
    for (; k > 0; --k) bits &= bits - 1;  // drop the k lowest set bits
    return static_cast<int32_t>(w * 32 + static_cast<size_t>(std::countr_zero(bits)));
  }
  return -1;
}

}  // namespace ninfer::cli
