// AVX-512 VNNI instance of the matmul over Q8_0 weights packed in lanes (q8_lanes.h): per group of 1
// or 2 tiles of 16 weight rows and block, each of the 8 groups of values loads once per tile and
// serves up to 8 / tiles activation rows, and each row's 4 activations for it reach every lane once
// and serve every tile; each (tile, row) is a chain of 8 vpdpbusd from its correction xc, the chains
// interleaved; then per (tile, row) one conversion, one scale product and one fused multiply-add into
// its 16 outputs.
//
// On Zen 5 the vector loads (broadcasts included) issue at 2 per cycle, and vpdpbusd, vmulps and
// vfmadd share 2 pipes. One tile and 8 rows per block, each group's activations broadcast from
// memory, took 89 loads for 64 vpdpbusd and 16 products (~50 cycles, load-bound; the pipes allow 40).
// Two things take loads off:
// - Prompt rows take pairs of tiles, 4 rows per pass: 58 loads for the same work (~44 cycles).
// - Each row's activations reach the lanes by shuffles of its block halves (see lane_tiles).
// A decode batch (up to 8 rows) takes lone tiles: one pass over the weights, whose loads from memory
// then overlap the arithmetic throughout; a second pass over a pair (from cache) left memory idle for
// half the step (B=8: 18.8 -> 21.8 ms), and at 4 rows pairs were slower (the matmul alone from memory,
// 14.9-15.2 against 14.2-14.3 ms), where a lone tile spreads its requests ahead over its products
// (kSpreadAhead) and a pair asks in bursts. One row streams its lone tiles with no requests ahead.
// Batches of 1-2 rows took pairs until 2026-12-06 (q8_lanes_matmul_rows says why no more).
#include <algorithm>
#include <cstdint>

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

// (tile, activation row) pairs per pass: 8 int32 and 8 fp32 accumulators beside the groups' loads.
constexpr int kLaneAccumulators = 8;
// Activation rows per slice of a prompt: their blocks (64 x 3,072 bytes at most for Qwen3 0.6b's down
// projection) stay in L2 while the task's tiles pass over them, and the tiles' in L1 or L2 while
// the slice's rows pass over each.
constexpr int64_t kLaneSlice = 64;

struct LaneRows {
  const int8_t* q[kLaneAccumulators];
  const float* d[kLaneAccumulators];
  const int32_t* c[kLaneAccumulators];
  float* y[kLaneAccumulators];
};

// Dword i (0 .. 3) of each 128-bit lane of v, in every one of its lanes.
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) __m512i group_of(__m512i v, int i) {
  switch (i) {
    case 0: return _mm512_shuffle_epi32(v, _MM_PERM_AAAA);
    case 1: return _mm512_shuffle_epi32(v, _MM_PERM_BBBB);
    case 2: return _mm512_shuffle_epi32(v, _MM_PERM_CCCC);
    default: return _mm512_shuffle_epi32(v, _MM_PERM_DDDD);
  }
}

// How far ahead of its block a group's first pass asks for the weights (into L1): 12 blocks, 6.4 KiB
// per tile. The hardware prefetchers alone left B=8 q8_0 decode on the Zen 5 EPYC (2 threads)
// waiting on the weight loads: 230 against 355-377 tok/s with 8-12 blocks ahead (B=1 75 against 78-85).
constexpr int64_t kAheadBlocks = 12;
constexpr int64_t kAheadBytes = kAheadBlocks * kQ8LaneBlockBytes;
// A block's lines ahead are asked for one per group of values (spread over its products) where a
// lone tile serves 4 rows or more, and in one burst before them otherwise. A decode step of 8 rows
// computes about as long as its block takes to arrive, and the burst of 9 prefetches stalled on the
// miss buffers, the products waiting behind it: matmuls alone over 668 MB of weights, 2 threads
// (Qwen3PrefillBench.DISABLED_DecodeMatmulFromMemory), B=8 17.6-17.8 -> 15.6-15.7 ms (B=1 14.1-14.8
// either way); B=8 q8_0 decode, alternated 3 times, 304-312 -> 353-362 tok/s. Spread, B=1 took
// 10-15% longer (its block is one product a group), and prompt rows (pairs of tiles, weights from
// cache but on the first pass) keep the burst.
template <int NT, int NB>
constexpr bool kSpreadAhead = NT == 1 && NB >= 4;
// Outputs [t0, t0 + 16 NT) of the rows of x (NB of them) over all blocks of NT adjacent tiles (tile t
// at tile + t x tile_bytes), into the lanes of rows[t]; `ahead`: the first pass over these tiles'
// weights, which asks for the lines ahead of them; `once`: no later slice reads them (request_line).
template <int NT, int NB>
NINFER_KERNEL_TARGET void lane_tiles(const uint8_t* tile, size_t tile_bytes, int64_t blocks, const LaneRows& x,
                                     const uint32_t* rows, bool accumulate, bool ahead, bool once) {
  __m512 out[NT][NB];
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) out[t][j] = _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < blocks; ++k) {
    const uint8_t* blk[NT];
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) blk[t] = tile + t * tile_bytes + k * kQ8LaneBlockBytes;
    if (ahead && !kSpreadAhead<NT, NB>) {
      // A block's 544 bytes touch 9 lines. Near its end a tile's lines ahead are those of the tile
      // the next group takes in its place (the task's next rows).
      const uint8_t* lines = blk[0] + kAheadBytes + (k + kAheadBlocks < blocks ? 0 : (NT - 1) * tile_bytes);
#pragma GCC unroll 2
      for (int t = 0; t < NT; ++t, lines += tile_bytes) {
#pragma GCC unroll 9
        for (int l = 0; l < 9; ++l) request_line(lines + 64 * l, once);
      }
    }
    // Group by group across the chains: one chain's 8 dependent vpdpbusd back to back leave the units
    // waiting on each one's latency (q8_0 prefill, 512 tokens, 2 threads: 736-753 -> 783-786 tok/s).
    __m512i s[NT][NB];
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) {
      const __m512i c = _mm512_set1_epi32(x.c[j][k]);
#pragma GCC unroll 2
      for (int t = 0; t < NT; ++t) s[t][j] = c;
    }
    // Each row's 4 activations of a group reach every lane by a shuffle of its block half, loaded
    // once, rather than by a broadcast from memory per group: loads issue at 2 per cycle, shuffles
    // on pipes of their own (B=8 over cached weights, one thread: 16.0 -> 14.8 ns per tile and block).
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      __m512i half[NB];
#pragma GCC unroll 8
      for (int j = 0; j < NB; ++j) {
        half[j] = _mm512_broadcast_i32x4(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(x.q[j] + k * kQ8BlockValues + 16 * h)));
      }
#pragma GCC unroll 4
      for (int g = 4 * h; g < 4 * h + 4; ++g) {
        if (kSpreadAhead<NT, NB> && ahead) {
          const uint8_t* lines = blk[0] + kAheadBytes;
          request_line(lines + 64 * g, once);
          if (g == 0) request_line(lines + 64 * 8, once);  // the 9th line
        }
        __m512i w[NT];
#pragma GCC unroll 2
        for (int t = 0; t < NT; ++t) w[t] = _mm512_loadu_si512(blk[t] + kQ8LaneScaleBytes + g * kQ8LaneGroupBytes);
#pragma GCC unroll 8
        for (int j = 0; j < NB; ++j) {
          const __m512i a = group_of(half[j], g % 4);
#pragma GCC unroll 2
          for (int t = 0; t < NT; ++t) s[t][j] = _mm512_dpbusd_epi32(s[t][j], w[t], a);
        }
      }
    }
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) {
      const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk[t])));
#pragma GCC unroll 8
      for (int j = 0; j < NB; ++j) {
        out[t][j] = _mm512_fmadd_ps(_mm512_mul_ps(dw, _mm512_set1_ps(x.d[j][k])), _mm512_cvtepi32_ps(s[t][j]),
                                    out[t][j]);
      }
    }
  }
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
    const auto lanes = static_cast<__mmask16>(rows[t]);
#pragma GCC unroll 8
    for (int j = 0; j < NB; ++j) {
      float* y = x.y[j] + 16 * t;
      __m512 v = out[t][j];
      if (accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, y), v);
      _mm512_mask_storeu_ps(y, lanes, v);
    }
  }
}

}  // namespace

// One activation row takes lone tiles and leaves the weights to the hardware prefetchers: one
// sequential stream per thread, as the read loop's. Until 2026-12-06 only weight rows of up to 1,024
// columns did (Qwen3 0.6b's hidden width), and wider ones took pairs asking ahead, as did two rows:
// matmuls alone from memory (Qwen3PrefillBench.DISABLED_DecodeMatmulFromMemory, 2 threads, ~45 GB/s),
// lone tiles without requests against pairs asking ahead, in time over the read beside each run: 1,024
// columns 1.031 / 1.067 (1,024 rows), 0.985 / 1.038 (3,072 rows), 0.994 / 1.049 (6,144 rows); 2,048
// columns 1.113 / 1.038 and 3,072 columns 1.112 / 1.002 (1,024 rows), 1.043 / 0.994 (3,072 rows). In
// the model, the narrow rule against pairs: B=1 forward 13.93 -> 13.30 ms in 33 alternations. On
// 2026-12-06 (afternoon), the model's q8_0 forward passes alternated one by one (200 of each, 2
// threads, `bench decode --tokens 128`), lone tiles for every width at B=1 and for B=2 against the
// rule before, in time over the rule's: B=1 0.959-0.973 in 11 of 12 runs, 1.045 in the fastest phase
// (9.6 ms a step, reads of ~80 GB/s); B=2 0.869-0.891 in every run (lone tiles asking ahead); B=4,
// unchanged, 0.994-1.011.
NINFER_KERNEL_TARGET void q8_lanes_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const bool ask_ahead = a.batch > 1;  // one row: no requests (above)
  const int64_t blocks = a.cols / kQ8BlockValues;
  const size_t tile_bytes = static_cast<size_t>(kQ8LaneRows) * a.w_row_bytes;
  for_tile_groups<kLaneSlice, kLaneAccumulators, kLaneAccumulators>(a.batch, row_begin, row_end,
                                                                   [&](const TileGroup& g) {
    const uint8_t* tile = a.w + static_cast<size_t>(g.t0 / kQ8LaneRows) * tile_bytes;
    g.each_pass([&](int64_t b0, int nb, bool ahead) {
      LaneRows x;
      for (int j = 0; j < kLaneAccumulators; ++j) {
        const int64_t b = pass_row(b0, nb, j);
        x.q[j] = a.xq + b * a.cols;
        x.d[j] = a.xd + b * blocks;
        x.c[j] = a.xc + b * blocks;
        x.y[j] = a.y + b * a.ldy + g.t0;
      }
      with_tiles_and_rows<kLaneAccumulators>(g.tiles, nb, [&]<int NT, int NB>() {
        lane_tiles<NT, NB>(tile, tile_bytes, blocks, x, g.rows, a.accumulate, ahead && ask_ahead, g.one_slice);
      });
    });
  });
}

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
