// The inner loops of the forward pass, compiled once per instruction set (scalar, AVX2+FMA+F16C,
// AVX-512) from one body (simd_kernels_body.inc), AMX adding its tile unit to AVX-512's for Q8_0 and
// BF16 weights (simd_kernels_amx.cpp), and picked at run time for the CPU we run on, so one binary
// runs on any x86-64 and uses what the machine has.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/kernels/causal_attention.h"
#include "models/tensor.h"

namespace ninfer::models::kernels {

enum class Isa : uint8_t { Scalar, Avx2, Avx512, Amx };

const char* isa_name(Isa isa);
bool isa_supported(Isa isa);  // by this CPU
Isa best_isa();               // the widest supported one (NINFER_ISA=scalar|avx2|avx512 caps it)

// Activation rows for the tile unit (KernelTable::q8_tiles): groups of 16 rows, each block of a group
// as 8 lines of 64 bytes, line l holding the 4 values 4l..4l+3 of each of the 16 rows in turn (rows
// past the batch are zero), and the block scales as 16 floats per group and block.
constexpr int kQ8TileBlockBytes = 512;
// And for bf16 weights (KernelTable::pack_bf16_parts): activations as three bf16 parts whose sum is
// exactly x (hi = x rounded to bf16, mid = x - hi rounded, lo = x - hi - mid rounded); per group and
// block of 32 columns, the three parts in turn, each as 16 lines of 64 bytes, line l holding columns
// 2l and 2l + 1 of each of the 16 rows in turn.
constexpr int kPairTileBlockValues = 512;  // one part of one block
constexpr int kBf16Parts = 3;

// y[b*ldy + r] (+)= sum_c W[r, c] * x[b*ldx + c] for rows r in [row_begin, row_end) and b < batch.
// W is read in its stored dtype; x and y are fp32. Q8_0 weights (cols % 32 == 0) read x quantised
// by quantize_q8 instead (q8_block_dot.h says what they compute).
struct MatmulArgs {
  DType dtype = DType::F32;
  const uint8_t* w = nullptr;
  size_t w_row_bytes = 0;
  int64_t cols = 0;
  const float* x = nullptr;
  int64_t ldx = 0;
  int64_t batch = 0;
  float* y = nullptr;
  int64_t ldy = 0;
  bool accumulate = false;  // y += W x instead of y = W x (residual connections)
  // Q8_0 weights packed for the tile unit (TensorView::q8_tiles, KernelTable::q8_weight_tiles): 16 rows
  // per tile, each tile's blocks in column order, each block its 16 rows' blocks in turn.
  bool w_tiles = false;
  // Q8_0 weights packed for the vector kernels (TensorView::q8_lanes; q8_lanes.h): the kernel that
  // reads them needs xc too.
  bool w_lanes = false;
  // F16 or BF16 weights packed in column tiles (TensorView::column_tiles; column_tiles.h), of w_rows
  // rows in all (where the odd last tile lies).
  bool w_columns = false;
  int64_t w_rows = 0;
  const int32_t* xc = nullptr;  // Q8_0 with w_lanes: -128 x the sum of each block of xq, xc + b * cols / 32
  const int8_t* xq = nullptr;  // Q8_0 only: row b of x quantised at xq + b * cols,
  const float* xd = nullptr;   // and its block scales at xd + b * cols / 32
  const int8_t* xq_tiles = nullptr;  // Q8_0 with KernelTable::q8_tiles: the same, in groups of 16 rows
  const float* xd_tiles = nullptr;   // (kQ8TileBlockBytes says how)
  // Q8_0 with KernelTable::pack_q8_offsets: xq's blocks offset for the AVX-512 pair tiles, block blk of
  // row b at xu + (blk * batch + b) * 64 and its scale twice at xd2[2 * (blk * batch + b)].
  const uint8_t* xu = nullptr;
  const float* xd2 = nullptr;
  // F32/F16/BF16 panels (batches of KernelTable::kPanelMinBatch rows or more) with
  // KernelTable::pack_panel_rows: x's rows packed once for every task of the matmul.
  const float* xp = nullptr;
  const uint16_t* xb_tiles = nullptr;  // BF16 with KernelTable::pack_bf16_parts (and F16 of prompt
                                       // rows with KernelTable::prompt_f16_tiles): x's bf16 parts in
                                       // groups of 16 rows (kPairTileBlockValues says how)
  // The rows are prompt positions. A kernel may compute them its own way (KernelTable::attention says
  // why and what holds), as AMX does for F16 weights.
  bool prompt = false;
};

struct KernelTable {
  Isa isa;
  void (*matmul_rows)(const MatmulArgs& args, int64_t row_begin, int64_t row_end);
  float (*dot)(const float* a, const float* b, int64_t n);
  // n activations (n % 32 == 0) as n / 32 int8 blocks, q[n] and their scales d[n / 32].
  void (*quantize_q8)(const float* x, int64_t n, int8_t* q, float* d);
  // Causal attention of a block of consecutive positions for one GQA group (causal_attention.h).
  void (*causal_attention)(const CausalAttentionArgs& args);
  // The MLP's gate: g[i] = silu(g[i]) * u[i] for i < n (~2 ulp; an element's bits do not depend on
  // where it sits in g).
  void (*silu_mul)(float* g, const float* u, int64_t n);
  // Where Q8_0 panels read MatmulArgs::xu / xd2 (AVX-512 without the tile unit): packs rows [b0, b1) of
  // a batch quantised by quantize_q8 (q, d) into them, so that a matmul's tasks share one copy.
  void (*pack_q8_offsets)(const int8_t* q, const float* d, int64_t batch, int64_t cols, int64_t b0, int64_t b1,
                          uint8_t* xu, float* xd2) = nullptr;
  // Where F32/F16/BF16 panels read MatmulArgs::xp (AVX-512): packs slices [s0, s1) of a batch of
  // `batch` rows of x (panel_slices(batch) in all) into `out` (batch * cols floats, 64-byte aligned),
  // so that a matmul's tasks share one copy. Null: each task reads x as it is.
  void (*pack_panel_rows)(const float* x, int64_t ldx, int64_t batch, int64_t cols, int64_t s0, int64_t s1,
                          float* out) = nullptr;
  static constexpr int64_t kPanelMinBatch = 3;  // batches that the panels take, on every ISA
  static constexpr int64_t kPanelBatch = 16;    // rows per slice of a larger batch
  static int64_t panel_slices(int64_t batch) { return (batch + kPanelBatch - 1) / kPanelBatch; }
  static constexpr int64_t kQ8OffsetBlockBytes = 64;  // what pack_q8_offsets writes per block and row
  static constexpr int64_t kQ8OffsetScalePad = 16;    // floats read past xd2's last scale pair
  bool q8_tiles = false;  // Q8_0 matmuls read xq_tiles / xd_tiles instead of xq / xd
  bool q8_weight_tiles = false;  // Q8_0 matmuls read weights packed for the tile unit (MatmulArgs::w_tiles)
  // How the loader packs matrices where it may (a copy of the weights): Q8_0 for the tile unit (AMX),
  // or in lanes for AVX-512's int8 dot products (q8_lanes.h); F16 and BF16 in column tiles for AVX-512's FMAs
  // (column_tiles.h). Every table reads lanes and column tiles; only AMX reads its tiles.
  WeightPacking packing = {};
  // BF16 matmuls read xb_tiles too (and x for columns past the last whole 32), which this packs:
  // `rows` <= 16 rows of x from row 0 (stride ldx), into one group.
  void (*pack_bf16_parts)(const float* x, int64_t ldx, int64_t rows, int64_t cols, uint16_t* out) = nullptr;
  // Attention of prompt positions, where it differs (AMX: on the tile unit, which pays only when many
  // queries share each key tile); null: causal_attention. Generated positions (decode rows, drafts
  // under verification) always take causal_attention. Each kernel is bit-identical however its
  // queries are batched, so a prompt gives the same bits however it is chunked and a generated token
  // the same bits however it is batched; a prompt position and a generated one agree to rounding.
  void (*prompt_attention)(const CausalAttentionArgs& args) = nullptr;
  auto attention(bool prompt) const { return prompt && prompt_attention ? prompt_attention : causal_attention; }
  // F16 matmuls of prompt rows read xb_tiles too (AMX: on the tile unit, with each weight split into
  // two exact bf16 parts, which pays only when many rows share the split). Only with pack_bf16_parts.
  bool prompt_f16_tiles = false;
  // Whether a matmul of these weights computes prompt and generated rows with different kernels.
  bool matmul_by_kind(DType dtype) const { return dtype == DType::F16 && prompt_f16_tiles; }
  // Query vectors (positions x GQA group) per attention call: what one K/V tile is read for.
  int attention_queries = 64;
  int prompt_attention_queries = 64;  // AMX: each tile's bf16 split serves 256
  // Stores fp32 as the KV cache's f16: out[i * stride] = f32_to_f16(x[i]) for i < n (f16_rows.h).
  void (*f16_row)(const float* x, int64_t n, uint16_t* out, int64_t stride) = nullptr;
};

const KernelTable& kernel_table(Isa isa);  // throws std::invalid_argument if !isa_supported(isa)
const KernelTable& best_kernels();

// Attention of prompt positions with bf16 products (causal_attention_bf16.cpp): coarser than every
// table's own kernels (each query, key, value and weight rounded to bf16 once, sums in fp32), and
// about twice as fast where the products set the pace, as they do in long prompts. A model opts in
// (Qwen3ModelOptions::prompt_attention). Null where `isa` has no such kernel or the CPU lacks AVX512_BF16:
// AVX-512 has one; AMX keeps its own prompt kernel, exact to a quarter of the cache's rounding and
// as fast.
void (*bf16_prompt_attention(Isa isa))(const CausalAttentionArgs& args);
// The same with int8 scores: each query (times scale * log2 e) and each key rounded to int8 with one
// scale (its largest |value| / 127), their products summed exactly by VPDPBUSD (64 an instruction);
// values and weights bf16 as above. Coarser again (a score moves by up to 2^-8 of its query's and
// key's largest products, not of their own), and faster where the scores set the pace. Present
// wherever bf16_prompt_attention is (the AVX-512 table requires VNNI).
void (*int8_score_prompt_attention(Isa isa))(const CausalAttentionArgs& args);

// A row stride (in floats) of at least n for fp32 rows that are read together: rounded up to 16
// floats, plus 16 more when it would be a multiple of 1 KiB, so that rows read side by side do not
// all map to the same L1 cache sets.
inline int64_t padded_stride(int64_t n) {
  const int64_t s = (n + 15) / 16 * 16;
  return s % 256 == 0 ? s + 16 : s;
}

// The first 64-byte boundary at or after p (a buffer allocated 16 floats longer than it needs), so that
// no vector load from it straddles two lines.
inline float* line_aligned(float* p) { return p + (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64 / sizeof(float); }

// Converts `n` stored values (one row, or a prefix of one; Q8_0 needs n % 32 == 0) to fp32.
void convert_row(DType dtype, const void* src, int64_t n, float* dst);

// Per-ISA entry points (simd_kernels_<isa>.cpp).
namespace scalar {
extern const KernelTable kTable;
}
namespace avx2 {
extern const KernelTable kTable;
}
namespace avx512 {
extern const KernelTable kTable;
}
namespace amx {
extern const KernelTable kTable;
}

}  // namespace ninfer::models::kernels
