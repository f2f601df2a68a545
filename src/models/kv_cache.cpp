#include "models/kv_cache.h"

#include <stdexcept>
#include <string>

namespace ninfer::models {

KvCache::KvCache(int layers, int kv_heads, int head_dim, int slots, int max_context)
    : layers_(layers),
      kv_dim_(kv_heads * head_dim),
      head_dim_(head_dim),
      max_context_(max_context),
      layer_elements_(static_cast<size_t>(whole_blocks(max_context)) * static_cast<size_t>(kv_dim_)),
      slots_(static_cast<size_t>(slots)) {}

void KvCache::reserve(int slot, int positions) {
  Slot& s = slots_[slot];
  if (positions <= s.capacity) return;
  if (positions > max_context_)
    throw std::length_error("KV cache: " + std::to_string(positions) + " positions past max_context " +
                            std::to_string(max_context_));
  if (!s.storage.data()) s.storage = ReservedMemory(2 * static_cast<size_t>(layers_) * layer_elements_ * sizeof(uint16_t));
  s.capacity = whole_blocks(positions);
}

size_t KvCache::bytes() const {
  size_t n = 0;
  for (const Slot& s : slots_) n += 2 * static_cast<size_t>(layers_) * static_cast<size_t>(s.capacity) * kv_dim_;
  return n * sizeof(uint16_t);
}

}  // namespace ninfer::models
