// Per-slot key/value cache of a decoder: f16 (IEEE binary16 bits, as llama.cpp keeps it by default:
// half the bytes that attention reads per position at long context, where they cost as much as the
// weights), one array per layer for keys and one for values. Values are rows, [position][channel].
// Keys sit transposed in blocks of kKeyBlock positions, [position / kKeyBlock][channel][position %
// kKeyBlock]: attention then reads a block's keys of one head as [head dim][kKeyBlock] rows and
// scores a key per vector lane, with no sums across lanes. Storage grows with the slot (doubling, in
// whole key blocks, capped near max_context), so a server with many slots and a long max_context only
// pays for the positions its sequences actually reach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernels/causal_attention.h"

namespace ninfer::models {

class KvCache {
 public:
  static constexpr int kKeyBlock = static_cast<int>(kernels::kAttentionKeyTile);

  KvCache(int layers, int kv_dim, int slots, int max_context);

  int slots() const { return static_cast<int>(slots_.size()); }
  int max_context() const { return max_context_; }
  int kv_dim() const { return kv_dim_; }

  // Committed positions of a slot (no bounds check: callers validate the slot first).
  int length(int slot) const { return slots_[slot].length; }
  void set_length(int slot, int length) { slots_[slot].length = length; }

  // Index of (position, channel) in a layer's keys; block_stride() elements between key blocks.
  size_t key_index(int64_t position, int64_t channel) const {
    return static_cast<size_t>((position / kKeyBlock * kv_dim_ + channel) * kKeyBlock + position % kKeyBlock);
  }
  int64_t key_block_stride() const { return int64_t{kv_dim_} * kKeyBlock; }

  // Makes room for positions [0, positions) of a slot; positions <= max_context.
  void reserve(int slot, int positions);

  uint16_t* keys(int slot, int layer) { return slots_[slot].keys[layer].data(); }
  uint16_t* values(int slot, int layer) { return slots_[slot].values[layer].data(); }
  const uint16_t* keys(int slot, int layer) const { return slots_[slot].keys[layer].data(); }
  const uint16_t* values(int slot, int layer) const { return slots_[slot].values[layer].data(); }

  size_t bytes() const;  // currently allocated

 private:
  struct Slot {
    int length = 0;
    int capacity = 0;  // positions, a multiple of kKeyBlock
    std::vector<std::vector<uint16_t>> keys, values;  // [layer][key_index], [layer][position * kv_dim + i]
  };
  int layers_;
  int kv_dim_;
  int max_context_;
  std::vector<Slot> slots_;
};

}  // namespace ninfer::models
