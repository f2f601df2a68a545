#include "models/kernels/column_tiles.h"

#include <cmath>

#include "models/dtype_convert.h"

namespace ninfer::models::kernels {

void column_tiles_matmul_rows_portable(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const auto* w = reinterpret_cast<const uint16_t*>(a.w);
  for (int64_t r = row_begin; r < row_end; ++r) {
    const uint16_t* row = w + column_tile_offset(a.w_rows, a.cols, r, 0);  // its column 0
    const int64_t stride = column_tile_width(a.w_rows, r);
    for (int64_t b = 0; b < a.batch; ++b) {
      const float* x = a.x + b * a.ldx;
      float s = 0.0f;
      for (int64_t c = 0; c < a.cols; ++c) {
        const uint16_t h = row[c * stride];
        s = std::fma(a.dtype == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h), x[c], s);
      }
      float* y = a.y + b * a.ldy + r;
      *y = a.accumulate ? *y + s : s;
    }
  }
}

}  // namespace ninfer::models::kernels
