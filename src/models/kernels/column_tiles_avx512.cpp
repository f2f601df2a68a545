// AVX-512 instance of the matmul over F16 and BF16 weights packed in column tiles (column_tiles.h):
// per tile of 16 weight rows, passes of up to 8 activation rows, each with an even and an odd
// accumulator (16 registers), over the tile's columns in pairs.
#include <algorithm>
#include <cstdint>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (see simd_kernels_avx512.cpp)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "models/kernels/column_tiles.h"
#include "models/kernels/row_tile_passes.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx512f,avx512vl,avx2,fma,f16c")))

namespace ninfer::models::kernels::avx512 {

namespace {

constexpr int kColumnBatch = 8;       // activation rows per pass: 16 accumulators
constexpr int64_t kColumnSlice = 64;  // activation rows per slice of a prompt (as q8_lanes_avx512.cpp)
// How far ahead of its columns a tile's first pass asks for the weights (into L1).
// 2,048 values (4 KiB): B=8 f16 decode on the Zen 5 EPYC, 2 threads, 151-174 tok/s with 1,024, 162-197
// with 2,048, 162-184 with 4,096, 95-111 without (B=1 within noise of each).
constexpr int64_t kAheadValues = 2048;

struct ColumnRows {
  const float* x[kColumnBatch];
  float* y[kColumnBatch];
};

// A column's 16 stored values, widened.
template <DType D>
NINFER_KERNEL_TARGET inline __m512 widen(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if constexpr (D == DType::BF16) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  } else {
    return _mm512_cvtph_ps(h);
  }
}

// Outputs [t0, t0 + 16) of NB activation rows over all columns of one tile, into the lanes of `rows`;
// `ahead`: the first pass over the tile's weights, which asks for the lines ahead of it.
template <DType D, int NB>
NINFER_KERNEL_TARGET void column_tile(const uint16_t* tile, int64_t cols, const ColumnRows& x, __mmask16 rows,
                                      bool accumulate, bool ahead) {
  __m512 even[NB], odd[NB];
#pragma GCC unroll 8
  for (int j = 0; j < NB; ++j) even[j] = odd[j] = _mm512_setzero_ps();
  int64_t c = 0;
  for (; c + 2 <= cols; c += 2) {
    const uint16_t* p = tile + c * kColumnTileRows;
    if (ahead) __builtin_prefetch(p + kAheadValues, 0, 3);  // a line per column pair
    const __m512 w0 = widen<D>(p);
    const __m512 w1 = widen<D>(p + kColumnTileRows);
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) {
      even[j] = _mm512_fmadd_ps(w0, _mm512_set1_ps(x.x[j][c]), even[j]);
      odd[j] = _mm512_fmadd_ps(w1, _mm512_set1_ps(x.x[j][c + 1]), odd[j]);
    }
  }
  if (c < cols) {
    const __m512 w0 = widen<D>(tile + c * kColumnTileRows);
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) even[j] = _mm512_fmadd_ps(w0, _mm512_set1_ps(x.x[j][c]), even[j]);
  }
#pragma GCC unroll 8
  for (int j = 0; j < NB; ++j) {
    __m512 v = _mm512_add_ps(even[j], odd[j]);
    if (accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(rows, x.y[j]), v);
    _mm512_mask_storeu_ps(x.y[j], rows, v);
  }
}

}  // namespace

NINFER_KERNEL_TARGET void column_tiles_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const auto* w = reinterpret_cast<const uint16_t*>(a.w);
  for_tile_passes<kColumnSlice, kColumnBatch>(a.batch, row_begin, row_end, [&](const TilePass& t) {
    ColumnRows x;
    for (int j = 0; j < kColumnBatch; ++j) {
      const int64_t b = t.b0 + std::min(j, t.nb - 1);
      x.x[j] = a.x + b * a.ldx;
      x.y[j] = a.y + b * a.ldy + t.t0;
    }
    with_rows<kColumnBatch>(t.nb, [&]<int NB>() {
      const uint16_t* tile = w + t.t0 * a.cols;
      const auto rows = static_cast<__mmask16>(t.rows);
      if (a.dtype == DType::BF16) {
        column_tile<DType::BF16, NB>(tile, a.cols, x, rows, a.accumulate, t.first);
      } else {
        column_tile<DType::F16, NB>(tile, a.cols, x, rows, a.accumulate, t.first);
      }
    });
  });
}

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
