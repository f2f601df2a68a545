// AVX-512 (F, VL, VNNI) instances of the kernels: 16 floats per register, 32 registers, so tiles of one weight row
// against up to 8 batch rows (batches of 1-2), and of 3 weight rows x 8 batch rows (24 accumulators,
// 3 widened weights, 1 activation) for larger batches; Q8_0's larger batches in tiles of 2 weight-row
// pairs x 8 batch rows (Q8Vnni::Pair, 16 accumulators).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

// GCC 12's AVX-512 intrinsics start from `__m512 __Y = __Y;` (_mm512_undefined_*), which it then
// reports as uninitialized inside target-attribute functions (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // a GCC-only warning
#endif
#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/float_vec_avx512.h"
#include "models/kernels/q8_block_dot.h"
#include "models/kernels/column_tiles.h"
#include "models/kernels/q8_lanes.h"
#include "models/kernels/f16_rows.h"
#include "models/kernels/simd_kernels.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx512f,avx512vl,avx512vnni,avx2,fma,f16c")))
#define NINFER_VEC_OP NINFER_KERNEL_TARGET __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::avx512 {

struct V : FloatVec {
  static constexpr int kBatchTile = 8;
  static constexpr int kPanelMinBatch = 3;
  static constexpr int kTileRows = 3;
  static constexpr int kTileBatch = 8;
  using Q8 = Q8Vnni;  // Q8_0 weights: int8 dot products (q8_block_dot.h)
  static constexpr int kQ8TileRows = 4;  // (the one-row-per-register tiles, unused: Q8::Pair's are)
  static constexpr int kQ8TileBatch = 4;
  NINFER_VEC_OP reg load_bf16(const uint16_t* p) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  NINFER_VEC_OP float half(uint16_t h) { return _cvtsh_ss(h); }
};

// F16 weights packed in column tiles (column_tiles.h).
constexpr auto kColumnTilesMatmulRows = &column_tiles_matmul_rows;
// Q8_0 weights packed in lanes (q8_lanes.h).
constexpr auto kQ8LanesMatmulRows = &q8_lanes_matmul_rows;

#include "models/kernels/simd_kernels_body.inc"

const KernelTable kTable = [] {
  KernelTable t{Isa::Avx512, &matmul_rows, &dot, &quantize_q8, &causal_attention, &silu_mul, &pack_q8_offsets};
  t.packing = WeightPacking(Q8Packing::Lanes, /*columns=*/true);
  t.pack_panel_rows = &pack_panel_rows;
  t.f16_row = &f16_row;
  // A prompt block of 128 positions (256 queries on the 0.6b shape) pays each key tile's widening and
  // the next tile's requests once for all of them: the kernel alone, one thread, 128 positions
  // against 32 (alternated in one process), 8-11% less time at 512-8,192 context; a q8_0 prefill of
  // 8,192 tokens on 2 threads 219, 237 -> 238, 256 tok/s.
  t.prompt_attention_queries = 256;
  return t;
}();

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
