// AVX-512 instance of the matmul over F16 and BF16 weights packed in column tiles (column_tiles.h):
// per group of 1 or 2 tiles of 16 weight rows, passes of up to 8 / tiles activation rows, each row
// with an even and an odd accumulator per tile (16 registers), over the columns in pairs.
//
// Pairs of tiles for prompt rows: one tile and 8 rows took 18 loads (2 column vectors, 16
// activation broadcasts) per 16 FMAs, more than the FMAs' 8 cycles at 2 loads a cycle; a pair with
// 4 rows takes 12 (f16 prefill, 2 threads, Zen 5 EPYC, alternated: 512 tokens 343-349 -> 374-383
// tok/s, 2,048 tokens 260-284 -> 299-303). Decode batches of up to 4 rows keep lone tiles and one
// pass over the weights, which stream from memory throughout (as in q8_lanes_avx512.cpp).
//
// Decode batches of 5-8 rows take pairs too, in two passes: with a lone tile they were bound by its
// loads (16 broadcasts for 16 FMAs), where the weights arrived about as fast as the FMAs took them.
// The first pass streams the pair from memory, the second reads it from cache, and each pass asks
// for one tile of the next pair (into L2, a line per column pair), so that memory stays busy in
// both. Matmuls alone over 667 MB of f16 weights on 2 threads
// (Qwen3PrefillBench.DISABLED_DecodeMatmulFromMemory, B=8): lone tiles 17.4-18.2 ms, pairs without
// the next pair's requests 19.2-19.3, with them 16.7-17.4 (B=1 11.6-14.1 throughout). The model's
// f16 B=8 decode forward ~2-5% shorter (lower in 7 of 9 alternations); bf16's within noise (its
// widening is a shift, and its lone tiles were less bound by the loads).
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

// Outputs [t0, t0 + 16 NT) of NB activation rows over all columns of NT adjacent tiles (tile t at
// tile + t x tile_values), into the lanes of rows[t]; `ahead`: the first pass over these tiles'
// weights, which asks for the lines ahead of them.
// `next`: where a decode pass asks for one of the next pair's tiles (null: it does not).
template <DType D, int NT, int NB>
NINFER_KERNEL_TARGET void column_tiles(const uint16_t* tile, int64_t tile_values, int64_t cols, const ColumnRows& x,
                                       const uint32_t* rows, bool accumulate, bool ahead, const uint16_t* next) {
  __m512 even[NT][NB], odd[NT][NB];
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) even[t][j] = odd[t][j] = _mm512_setzero_ps();
  }
  int64_t c = 0;
  for (; c + 2 <= cols; c += 2) {
    __m512 w0[NT], w1[NT];
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) {
      const uint16_t* p = tile + t * tile_values + c * kColumnTileRows;
      if (ahead) __builtin_prefetch(p + kAheadValues, 0, 3);  // a line per column pair
      w0[t] = widen<D>(p);
      w1[t] = widen<D>(p + kColumnTileRows);
    }
    if (next != nullptr) __builtin_prefetch(next + c * kColumnTileRows, 0, 2);
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) {
      const __m512 x0 = _mm512_set1_ps(x.x[j][c]), x1 = _mm512_set1_ps(x.x[j][c + 1]);
#pragma GCC unroll 2
      for (int t = 0; t < NT; ++t) {
        even[t][j] = _mm512_fmadd_ps(w0[t], x0, even[t][j]);
        odd[t][j] = _mm512_fmadd_ps(w1[t], x1, odd[t][j]);
      }
    }
  }
  if (c < cols) {
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) {
      const __m512 w0 = widen<D>(tile + t * tile_values + c * kColumnTileRows);
#pragma GCC unroll 8
      for (int j = 0; j < NB; ++j) even[t][j] = _mm512_fmadd_ps(w0, _mm512_set1_ps(x.x[j][c]), even[t][j]);
    }
  }
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
    const auto lanes = static_cast<__mmask16>(rows[t]);
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) {
      float* y = x.y[j] + 16 * t;
      __m512 v = _mm512_add_ps(even[t][j], odd[t][j]);
      if (accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, y), v);
      _mm512_mask_storeu_ps(y, lanes, v);
    }
  }
}

}  // namespace

NINFER_KERNEL_TARGET void column_tiles_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const auto* w = reinterpret_cast<const uint16_t*>(a.w);
  const int64_t tile_values = kColumnTileRows * a.cols;
  for_tile_groups<kColumnSlice, kColumnBatch, kColumnBatch / 2>(a.batch, row_begin, row_end, [&](const TileGroup& g) {
    const uint16_t* tile = w + g.t0 * a.cols;
    // A decode pair's two passes ask for the next pair's first and second tile.
    const bool decode_pair = g.tiles == 2 && g.passes == 2 && a.batch <= kColumnBatch;
    g.each_pass([&](int64_t b0, int nb, bool ahead) {
      const uint16_t* next = decode_pair ? tile + (b0 == g.s0 ? 2 : 3) * tile_values : nullptr;
      ColumnRows x;
      for (int j = 0; j < kColumnBatch; ++j) {
        const int64_t b = pass_row(b0, nb, j);
        x.x[j] = a.x + b * a.ldx;
        x.y[j] = a.y + b * a.ldy + g.t0;
      }
      with_tiles_and_rows<kColumnBatch>(g.tiles, nb, [&]<int NT, int NB>() {
        if (a.dtype == DType::BF16) {
          column_tiles<DType::BF16, NT, NB>(tile, tile_values, a.cols, x, g.rows, a.accumulate, ahead, next);
        } else {
          column_tiles<DType::F16, NT, NB>(tile, tile_values, a.cols, x, g.rows, a.accumulate, ahead, next);
        }
      });
    });
  });
}

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
