// Per-slot key/value cache of a decoder: f16 (IEEE binary16 bits, as llama.cpp keeps it by default:
// half the bytes that attention reads per position at long context, where they cost as much as the
// weights), in blocks of kBlock positions that hold every layer's keys and values, and within a
// layer's part of a block one run per KV head, so one head's keys and values of a block are each
// one contiguous run (16 KiB at Qwen3's 128 dims) that the hardware prefetchers stream:
//   keys   [position / kBlock][layer][head][head dim][position % kBlock]: transposed, so attention
//          scores a key per vector lane, with no sums across lanes;
//   values [position / kBlock][layer][head][position % kBlock][head dim]: rows, for P.V.
// Each slot reserves address space for max_context positions when first used, and memory is
// committed as positions are written (ReservedMemory): a server with many slots and a long
// max_context only pays for the positions its sequences actually reach, and a slot never moves as it
// grows, so no step ever waits for a copy of a slot's cache. Blocks hold every layer so that the
// positions a slot reaches are one contiguous range of memory, which reserve() commits a block ahead
// of the writes, a step's worth at a time (see there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernels/causal_attention.h"
#include "models/reserved_memory.h"

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
    return static_cast<size_t>(position / kBlock * block_stride() + channel * kBlock + position % kBlock);
  }
  size_t value_index(int64_t position, int64_t channel) const {
    const int64_t head = channel / head_dim_;
    return static_cast<size_t>(position / kBlock * block_stride() + (head * kBlock + position % kBlock) * head_dim_ +
                               channel % head_dim_);
  }
  int64_t block_stride() const { return int64_t{2} * layers_ * part_elements(); }

  // Makes room for positions [0, positions) of a slot; positions <= max_context (std::length_error
  // past it). Never moves what the slot holds.
  void reserve(int slot, int positions);

  // A layer's keys and values of a slot; null before the slot's first reserve().
  uint16_t* keys(int slot, int layer) { return layer_base(slot, layer, 0); }
  uint16_t* values(int slot, int layer) { return layer_base(slot, layer, 1); }
  const uint16_t* keys(int slot, int layer) const { return layer_base(slot, layer, 0); }
  const uint16_t* values(int slot, int layer) const { return layer_base(slot, layer, 1); }

  // The positions made room for, in all slots (each commits up to a block and a huge page more).
  size_t bytes() const;

 private:
  struct Slot {
    int length = 0;
    int capacity = 0;        // positions, a multiple of kBlock
    size_t populated = 0;    // bytes of storage committed, ahead of capacity (reserve())
    ReservedMemory storage;  // [block][layer][keys, values][part_elements()]
  };
  static int whole_blocks(int positions) { return (positions + kBlock - 1) / kBlock * kBlock; }
  int64_t part_elements() const { return int64_t{kv_dim_} * kBlock; }  // a layer's keys (or values) of a block
  uint16_t* layer_base(int slot, int layer, int part) const {
    auto* base = static_cast<uint16_t*>(slots_[slot].storage.data());
    return base ? base + (int64_t{2} * layer + part) * part_elements() : nullptr;
  }
  int layers_;
  int kv_dim_;
  int head_dim_;
  int max_context_;
  std::vector<Slot> slots_;
};

}  // namespace ninfer::models
