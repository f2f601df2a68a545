#include "models/kv_cache.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ninfer::models {

KvCache::KvCache(int layers, int kv_heads, int head_dim, int slots, int max_context)
    : layers_(layers),
      kv_dim_(kv_heads * head_dim),
      head_dim_(head_dim),
      max_context_(max_context),
      slots_(static_cast<size_t>(slots)) {}

void KvCache::reserve(int slot, int positions) {
  Slot& s = slots_[slot];
  if (positions > max_context_)
    throw std::length_error("KV cache: " + std::to_string(positions) + " positions past max_context " +
                            std::to_string(max_context_));
  const size_t block_bytes = static_cast<size_t>(block_stride()) * sizeof(uint16_t);
  const size_t blocks = static_cast<size_t>(whole_blocks(max_context_) / kBlock);
  if (!s.storage.data()) s.storage = ReservedMemory(blocks * block_bytes, /*huge_pages=*/true);
  s.capacity = std::max(s.capacity, whole_blocks(positions));
  // Memory is committed ahead of the writes, a step's positions at a time. A block's first write
  // touches every layer's part of it, and committing the 7 MiB (Qwen3-0.6B) in that step made every
  // 64th step of 4 decoding rows +25 ms on the Zen 5 VM of 2026-12-05. A block ahead, each step
  // commits what its positions will need later, which comes in huge pages (one every 18 positions
  // of a row there, ~3 ms each when the host backs it for the first time): the slots' commits are
  // offset by eighths of a huge page, so that rows which advance together commit in different steps.
  // Huge pages, not 4 KiB ones: that VM stalled a step every ~0.5 s for as long as its rows' KV in
  // 4 KiB pages took to walk again (+20 ms at 4 rows of 1,200 positions), and committing a 4 KiB
  // page costs as much per byte.
  constexpr size_t kStagger = (size_t{2} << 20) / 8;
  const size_t stagger = static_cast<size_t>(slot) * 5 % 8 * kStagger;
  const size_t ahead = std::min(static_cast<size_t>(positions) * block_bytes / kBlock + block_bytes + stagger, blocks * block_bytes);
  if (ahead > s.populated) {
    s.storage.populate(s.populated, ahead);
    s.populated = ahead;
  }
}

size_t KvCache::bytes() const {
  size_t n = 0;
  for (const Slot& s : slots_) n += 2 * static_cast<size_t>(layers_) * static_cast<size_t>(s.capacity) * kv_dim_;
  return n * sizeof(uint16_t);
}

}  // namespace ninfer::models
