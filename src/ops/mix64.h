// SplitMix64's finaliser: a bijection on 64 bits in which every input bit flips each output bit with
// probability close to 1/2. The counter-based RNG and the prefix cache's chained keys are built on it.
#pragma once

#include <cstdint>

namespace ninfer::ops {

constexpr uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace ninfer::ops
