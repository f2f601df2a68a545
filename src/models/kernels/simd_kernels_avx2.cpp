// AVX2+FMA+F16C instances of the kernels: 8 floats per register, 16 registers, so tiles of one weight
// row against up to 4 batch rows (batches of 1-2), and of 3 weight rows x 4 batch rows (12
// accumulators, 3 widened weights, 1 activation: all 16 registers) for larger batches.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/float_vec_avx2.h"
#include "models/kernels/q8_block_dot.h"
#include "models/kernels/column_tiles.h"
#include "models/kernels/q8_lanes.h"
#include "models/kernels/f16_rows.h"
#include "models/kernels/simd_kernels.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx2,fma,f16c")))
#define NINFER_VEC_OP NINFER_KERNEL_TARGET __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::avx2 {

struct V : FloatVec {
  static constexpr int kBatchTile = 4;
  static constexpr int kPanelMinBatch = 3;
  static constexpr int kTileRows = 3;
  static constexpr int kTileBatch = 4;
  using Q8 = Q8Avx2;  // Q8_0 weights: int8 dot products (q8_block_dot.h)
  static constexpr int kQ8TileRows = 2;
  static constexpr int kQ8TileBatch = 4;
  NINFER_VEC_OP reg load_bf16(const uint16_t* p) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  NINFER_VEC_OP float half(uint16_t h) { return _cvtsh_ss(h); }
};

// F16 weights packed in column tiles (column_tiles.h).
constexpr auto kColumnTilesMatmulRows = &column_tiles_matmul_rows_portable;
// Q8_0 weights packed in lanes (q8_lanes.h).
constexpr auto kQ8LanesMatmulRows = &q8_lanes_matmul_rows_portable;

#include "models/kernels/simd_kernels_body.inc"

const KernelTable kTable = [] {
  KernelTable t{Isa::Avx2, &matmul_rows, &dot, &quantize_q8, &causal_attention, &silu_mul};
  t.f16_row = &f16_row;
  return t;
}();

}  // namespace ninfer::models::kernels::avx2
