// Causal self-attention of the forward pass, tiled with an online softmax (FlashAttention's scheme on
// the CPU): one call takes a block of consecutive query positions of one sequence, for the query heads
// that share one KV head (GQA), and streams that sequence's cached keys and values past all of them a
// tile at a time, so each K/V tile is read from memory once per block and used by every query in it,
// and no score matrix larger than one tile per query exists.
//
// A query's result depends on its position and its inputs only, bit for bit: key tiles sit at
// absolute positions [0, T), [T, 2T), ..., every query reduces over its own tiles in that order with
// the same operations, and keys past its position weigh exactly zero. So a prompt gives the same
// attention output prefilled whole, in chunks of any size, token by token, or beside other rows. (On
// AMX, prompt positions take a kernel of their own, with that same property: KernelTable::attention.)
#pragma once

#include <algorithm>
#include <cstdint>

namespace ninfer::models::kernels {

// Keys per tile (T above). A multiple of every vector width.
inline constexpr int64_t kAttentionKeyTile = 64;

struct CausalAttentionArgs {
  const float* q = nullptr;  // query head h of row r: q + r*q_stride + h*dim
  int64_t q_stride = 0;
  // The KV cache holds f16 (IEEE binary16 bits) in blocks of T positions. Keys sit transposed: the
  // key of position j has head dim c at k[(j / T) * k_block_stride + c * T + j % T] (k points at this
  // KV head's dim 0 in block 0), so a tile's keys are [dim][T] rows, one key per vector lane. Values
  // are rows: position j at v + (j / T) * v_block_stride + (j % T) * v_stride. Each tile is widened
  // to f32 once, for every query of the block. Blocks are whole: positions past the last one read may
  // hold anything.
  const uint16_t* k = nullptr;
  int64_t k_block_stride = 0;  // elements
  const uint16_t* v = nullptr;
  int64_t v_block_stride = 0;  // elements
  int64_t v_stride = 0;
  float* out = nullptr;  // out + r*out_stride + h*dim
  int64_t out_stride = 0;
  int64_t pos0 = 0;   // position of row 0: row r is at pos0 + r and sees keys [0, pos0 + r]
  int64_t rows = 0;   // >= 1
  int64_t heads = 0;  // query heads sharing the KV head, >= 1
  int64_t dim = 0;    // head dimension, >= 1
  float scale = 0.0f;        // scores are scale * q.k (1/sqrt(dim) for Qwen3)
  float* scratch = nullptr;  // causal_attention_scratch_floats(rows, heads, dim) floats, this call's own
  // Optional: where the caller's next call on this thread starts (its first tile's keys and values,
  // laid out as k and v, and how many positions of it that call reads), so that this call can ask for
  // those lines during its last tile. A kernel may ignore it.
  const uint16_t* next_k = nullptr;
  const uint16_t* next_v = nullptr;
  int64_t next_count = 0;
};

// Row stride of a V tile widened out of the cache: whole 64-byte lines, off multiples of 256
// bytes, so the rows of a tile spread over the L1 sets instead of landing in a few.
inline int64_t attention_tile_stride(int64_t dim) {
  const int64_t s = (dim + 15) / 16 * 16;
  return s % 64 == 0 ? s + 16 : s;
}

// Scratch of one call: per query its output accumulator (dim), its scores (T) and three scalars, plus
// one K tile and one V tile widened to f32, the K tile on a 64-byte boundary. The AMX instance keeps
// the tile's keys and values as bf16 parts in the same room, and adds 16 padding rows of scores, the
// bf16 parts of the queries and of their weights (two each, with the padding rows), two 16 x 32
// tiles of sums, and room to align them. The bf16 instance takes two tiles a step: per query its
// accumulator and the three scalars, then two tiles' keys and values, the queries and 2T weights as
// bf16 (what `bf16` counts; within the others for every head dim of 32 and more).
inline int64_t causal_attention_scratch_floats(int64_t rows, int64_t heads, int64_t dim) {
  const int64_t T = kAttentionKeyTile, nq = rows * heads;
  const int64_t vector = nq * (dim + T + 3) + 16 + T * (dim + attention_tile_stride(dim));
  const int64_t tiles = 16 * T + (2 * (nq + 16) * (dim + T) + 1) / 2 + 32 * 32 + 64;
  const int64_t bf16 = nq * (dim + 3) + 16 + 2 * T * dim + (nq * (dim + 2 * T) + 1) / 2;
  return std::max(vector + tiles, bf16);
}

// Per-ISA instances (causal_attention_<isa>.cpp), reached through KernelTable::causal_attention.
namespace scalar {
void causal_attention(const CausalAttentionArgs& args);
}
namespace avx2 {
void causal_attention(const CausalAttentionArgs& args);
}
namespace avx512 {
void causal_attention(const CausalAttentionArgs& args);
}
namespace avx512_bf16 {
// Prompt rows with bf16 products (causal_attention_bf16.cpp): reached through
// bf16_prompt_attention (simd_kernels.h), where the CPU has AVX512_BF16 and the model accepts it.
void causal_attention(const CausalAttentionArgs& args);
// The same with int8 scores (queries and keys rounded to int8, one scale each): reached through
// int8_score_prompt_attention (simd_kernels.h).
void causal_attention_int8_scores(const CausalAttentionArgs& args);
}
namespace amx {
// Prompt rows (KernelTable::prompt_attention); needs the tile unit's permission (simd_kernels.cpp).
void causal_attention(const CausalAttentionArgs& args);
}

}  // namespace ninfer::models::kernels
