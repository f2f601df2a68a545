// Portable instances of the kernels: one float per "register", for CPUs without AVX2 and as the
// baseline the SIMD versions are tested against.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "models/dtype_convert.h"
#include "models/kernels/float_vec_scalar.h"
#include "models/kernels/q8_block_dot.h"
#include "models/kernels/column_tiles.h"
#include "models/kernels/q8_lanes.h"
#include "models/kernels/f16_rows.h"
#include "models/kernels/simd_kernels.h"

#define NINFER_KERNEL_TARGET
#define NINFER_VEC_OP __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::scalar {

struct V : FloatVec {
  static constexpr int kBatchTile = 4;
  static constexpr int kPanelMinBatch = 3;
  static constexpr int kTileRows = 2;
  static constexpr int kTileBatch = 4;
  using Q8 = Q8Portable;  // Q8_0 weights: int8 dot products (q8_block_dot.h)
  static constexpr int kQ8TileRows = 2;
  static constexpr int kQ8TileBatch = 4;
  NINFER_VEC_OP reg load_bf16(const uint16_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16_to_f32(h);
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return f16_to_f32(h);
  }
  NINFER_VEC_OP float half(uint16_t h) { return f16_to_f32(h); }
};

// F16 weights packed in column tiles (column_tiles.h).
constexpr auto kColumnTilesMatmulRows = &column_tiles_matmul_rows_portable;
// Q8_0 weights packed in lanes (q8_lanes.h).
constexpr auto kQ8LanesMatmulRows = &q8_lanes_matmul_rows_portable;

#include "models/kernels/simd_kernels_body.inc"

const KernelTable kTable = [] {
  KernelTable t{Isa::Scalar, &matmul_rows, &dot, &quantize_q8, &causal_attention, &silu_mul};
  t.f16_row = &f16_row_portable;
  return t;
}();

}  // namespace ninfer::models::kernels::scalar
