#include "models/kernels/q8_lanes.h"

#include <cmath>

#include "models/dtype_convert.h"

namespace ninfer::models::kernels {

void q8_lane_corrections(const int8_t* q, int64_t cols, int64_t b0, int64_t b1, int32_t* xc) {
  const int64_t blocks = cols / kQ8BlockValues;
  for (int64_t b = b0; b < b1; ++b) {
    for (int64_t k = 0; k < blocks; ++k) {
      const int8_t* v = q + b * cols + k * kQ8BlockValues;
      int32_t s = 0;
      for (int i = 0; i < kQ8BlockValues; ++i) s += v[i];
      xc[b * blocks + k] = -128 * s;
    }
  }
}

void q8_lanes_matmul_rows_portable(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const int64_t blocks = a.cols / kQ8BlockValues;
  const size_t tile_bytes = static_cast<size_t>(kQ8LaneRows) * a.w_row_bytes;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const uint8_t* tile = a.w + static_cast<size_t>(r / kQ8LaneRows) * tile_bytes;
    const int64_t m = r % kQ8LaneRows;
    for (int64_t b = 0; b < a.batch; ++b) {
      const int8_t* x = a.xq + b * a.cols;
      const float* xd = a.xd + b * blocks;
      float acc = 0.0f;
      for (int64_t k = 0; k < blocks; ++k) {
        const uint8_t* blk = tile + k * kQ8LaneBlockBytes;
        uint16_t h;
        std::memcpy(&h, blk + 2 * m, 2);
        int32_t s = 0;
        for (int i = 0; i < kQ8BlockValues; ++i) {
          const auto w = static_cast<int8_t>(blk[q8_lane_value_offset(m, i)] ^ 0x80);
          s += int32_t{w} * int32_t{x[k * kQ8BlockValues + i]};
        }
        const float d = f16_to_f32(h) * xd[k];
        acc = std::fma(d, static_cast<float>(s), acc);
      }
      float* y = a.y + b * a.ldy + r;
      *y = a.accumulate ? *y + acc : acc;
    }
  }
}

}  // namespace ninfer::models::kernels
