// AVX-512 VNNI instance of the matmul over Q8_0 weights packed in lanes (q8_lanes.h): per tile of 16
// weight rows and block, each of the 8 groups loads once and serves up to 8 activation rows, each row
// a chain of 8 vpdpbusd (a group of 4 activations broadcast from memory each) from its correction xc,
// the rows' chains interleaved; then per row one conversion, one scale product and one fused
// multiply-add into its 16 outputs.
#include <algorithm>
#include <cstdint>
#include <cstring>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (see simd_kernels_avx512.cpp)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/q8_lanes.h"
#include "models/kernels/row_tile_passes.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx512f,avx512vl,avx512vnni,avx2,fma,f16c")))

namespace ninfer::models::kernels::avx512 {

namespace {

// Activation rows per pass over a tile's blocks: 8 int32 and 8 fp32 accumulators beside the 8 groups.
constexpr int kLaneBatch = 8;
// Activation rows per slice of a prompt: their blocks (64 x 3,072 bytes at most for Qwen3 0.6b's down
// projection) stay in L2 while the task's tiles pass over them, and the tiles' in L1 or L2 while
// the slice's rows pass over each.
constexpr int64_t kLaneSlice = 64;

struct LaneRows {
  const int8_t* q[kLaneBatch];
  const float* d[kLaneBatch];
  const int32_t* c[kLaneBatch];
  float* y[kLaneBatch];
};

// How far ahead of its block a tile's first pass asks for the weights (into L1): 12 blocks, 6.4 KiB.
// The hardware prefetchers alone left B=8 q8_0 decode on the Zen 5 EPYC (2 threads) waiting on the
// weight loads: 230 against 355-377 tok/s with 8-12 blocks ahead (B=1 75 against 78-85).
constexpr int64_t kAheadBytes = 12 * kQ8LaneBlockBytes;
// Outputs [t0, t0 + 16) of the rows of x (NB of them) over all blocks of one tile, into the lanes of
// `rows`; `ahead`: the first pass over this tile's weights, which asks for the lines ahead of it.
template <int NB>
NINFER_KERNEL_TARGET void lane_tile(const uint8_t* tile, int64_t blocks, const LaneRows& x, __mmask16 rows,
                                    bool accumulate, bool ahead) {
  __m512 out[NB];
#pragma GCC unroll 8
  for (int j = 0; j < NB; ++j) out[j] = _mm512_setzero_ps();
  for (int64_t k = 0; k < blocks; ++k) {
    const uint8_t* blk = tile + k * kQ8LaneBlockBytes;
    if (ahead) {
      // A block's 544 bytes touch 9 lines; past the tile, the next one's (the task's next rows).
#pragma GCC unroll 9
      for (int l = 0; l < 9; ++l) __builtin_prefetch(blk + kAheadBytes + 64 * l, 0, 3);
    }
    // Group by group across the rows: one row's 8 dependent vpdpbusd back to back leave the units
    // waiting on each one's latency (q8_0 prefill, 512 tokens, 2 threads: 736-753 -> 783-786 tok/s).
    __m512i s[NB];
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) s[j] = _mm512_set1_epi32(x.c[j][k]);
#pragma GCC unroll 8
    for (int g = 0; g < 8; ++g) {
      const __m512i w = _mm512_loadu_si512(blk + kQ8LaneScaleBytes + g * kQ8LaneGroupBytes);
#pragma GCC unroll 8
      for (int j = 0; j < NB; ++j) {
        int32_t four;
        std::memcpy(&four, x.q[j] + k * kQ8BlockValues + 4 * g, 4);
        s[j] = _mm512_dpbusd_epi32(s[j], w, _mm512_set1_epi32(four));
      }
    }
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j)
      out[j] = _mm512_fmadd_ps(_mm512_mul_ps(dw, _mm512_set1_ps(x.d[j][k])), _mm512_cvtepi32_ps(s[j]), out[j]);
  }
#pragma GCC unroll 8
  for (int j = 0; j < NB; ++j) {
    __m512 v = out[j];
    if (accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(rows, x.y[j]), v);
    _mm512_mask_storeu_ps(x.y[j], rows, v);
  }
}

}  // namespace

NINFER_KERNEL_TARGET void q8_lanes_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const int64_t blocks = a.cols / kQ8BlockValues;
  const size_t tile_bytes = static_cast<size_t>(kQ8LaneRows) * a.w_row_bytes;
  for_tile_passes<kLaneSlice, kLaneBatch>(a.batch, row_begin, row_end, [&](const TilePass& t) {
    LaneRows x;
    for (int j = 0; j < kLaneBatch; ++j) {
      const int64_t b = t.b0 + std::min(j, t.nb - 1);
      x.q[j] = a.xq + b * a.cols;
      x.d[j] = a.xd + b * blocks;
      x.c[j] = a.xc + b * blocks;
      x.y[j] = a.y + b * a.ldy + t.t0;
    }
    const uint8_t* tile = a.w + static_cast<size_t>(t.t0 / kQ8LaneRows) * tile_bytes;
    with_rows<kLaneBatch>(t.nb, [&]<int NB>() {
      lane_tile<NB>(tile, blocks, x, static_cast<__mmask16>(t.rows), a.accumulate, t.first);
    });
  });
}

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
