// Per-slot key/value cache of a decoder: f16 (IEEE binary16 bits, as llama.cpp keeps it by default:
// half the bytes that attention reads per position at long context, where they cost as much as the
// weights), one array per layer for keys and one for values, both in blocks of kBlock positions and,
// within a block, by KV head, so one head's keys and values of a block are each one contiguous run
// (16 KiB at Qwen3's 128 dims) that the hardware prefetchers stream:
//   keys   [position / kBlock][head][head dim][position % kBlock]: transposed, so attention scores
//          a key per vector lane, with no sums across lanes;
//   values [position / kBlock][head][position % kBlock][head dim]: rows, for P.V.
// Storage grows with the slot (doubling, in whole blocks, capped near max_context), so a server with
// many slots and a long max_context only pays for the positions its sequences actually reach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernels/causal_attention.h"

namespace ninfer::models {

class KvCache {
 public:
  static constexpr int kBlock = static_cast<int>(kernels::kAttentionKeyTile);

  KvCache(int layers, int kv_heads, int head_dim, int slots, int max_context);

  int slots() const { return static_cast<int>(slots_.size()); }
  int max_context() const { return max_context_; }
  int kv_dim() const { return kv_dim_; }  // kv_heads * head_dim channels per position
  int head_dim() const { return head_dim_; }

  // Committed positions of a slot (no bounds check: callers validate the slot first).
  int length(int slot) const { return slots_[slot].length; }
  void set_length(int slot, int length) { slots_[slot].length = length; }

  // Where (position, channel) sits in a layer's keys and values; block_stride() elements between
  // blocks. A head's values of one position are head_dim contiguous elements.
  size_t key_index(int64_t position, int64_t channel) const {
    return static_cast<size_t>((position / kBlock * kv_dim_ + channel) * kBlock + position % kBlock);
  }
  size_t value_index(int64_t position, int64_t channel) const {
    const int64_t head = channel / head_dim_;
    return static_cast<size_t>(position / kBlock * kv_dim_ * kBlock + (head * kBlock + position % kBlock) * head_dim_ +
                               channel % head_dim_);
  }
  int64_t block_stride() const { return int64_t{kv_dim_} * kBlock; }

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
    int capacity = 0;  // positions, a multiple of kBlock
    std::vector<std::vector<uint16_t>> keys, values;  // [layer][key_index], [layer][value_index]
  };
  int layers_;
  int kv_dim_;
  int head_dim_;
  int max_context_;
  std::vector<Slot> slots_;
};

}  // namespace ninfer::models
