#include "models/kv_cache.h"

#include <algorithm>

namespace ninfer::models {

KvCache::KvCache(int layers, int kv_heads, int head_dim, int slots, int max_context)
    : layers_(layers),
      kv_dim_(kv_heads * head_dim),
      head_dim_(head_dim),
      max_context_(max_context),
      slots_(static_cast<size_t>(slots)) {
  for (Slot& s : slots_) {
    s.keys.resize(static_cast<size_t>(layers));
    s.values.resize(static_cast<size_t>(layers));
  }
}

void KvCache::reserve(int slot, int positions) {
  Slot& s = slots_[slot];
  if (positions <= s.capacity) return;
  const int grown = std::min(std::max(positions, s.capacity * 2), std::max(positions, max_context_));
  const int capacity = (grown + kBlock - 1) / kBlock * kBlock;
  const size_t elements = static_cast<size_t>(capacity) * static_cast<size_t>(kv_dim_);
  for (int l = 0; l < layers_; ++l) {
    s.keys[l].resize(elements);
    s.values[l].resize(elements);
  }
  s.capacity = capacity;
}

size_t KvCache::bytes() const {
  size_t n = 0;
  for (const Slot& s : slots_) n += 2 * static_cast<size_t>(layers_) * static_cast<size_t>(s.capacity) * kv_dim_;
  return n * sizeof(uint16_t);
}

}  // namespace ninfer::models
