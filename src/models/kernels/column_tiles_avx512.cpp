// AVX-512 instance of the matmul over F16 and BF16 weights packed in column tiles (column_tiles.h):
// per pair of tiles of 16 weight rows (one stream, each column a 64-byte line; the odd last tile
// alone), at every batch, passes of up to 8 activation rows, each row with one accumulator per tile
// (16 registers), over the columns in order. A column costs 2 loads and conversions (one per tile)
// and up to 8 activation broadcasts for up to 16 FMAs.
//
// Pairs as one stream since 2026-12-06 (night). Before, a pair's tiles were two streams 32 KiB apart
// (at 1,024 columns), which read slower than one, so batches of up to 4 rows took lone tiles; a lone
// tile at B=1 is one FMA chain, one FMA per ~4 cycles for 32 bytes of f16: ~68 GB/s on 2 threads even
// from cache, under the ~80 GB/s that this machine's memory reaches in its fast phases. A pair in
// one line a column feeds two independent chains from one stream. Zen 5 EPYC, 2 threads, old layout
// against new, runs alternated: matmul alone from cache (`NINFER_BENCH_DTYPE=f16
// NINFER_BENCH_MEGABYTES=6 NINFER_BENCH_BATCH=1,2,8 ... DecodeMatmulFromMemory`) B=1 67.8 -> 129.0
// GB/s, B=2 67.6 -> 128.8; from memory (667 MB) B=1 10.6-12.4 -> 8.4-8.8 ms, B=8 11.4-13.2 ->
// 10.8-11.0; the model's f16 decode (`bench decode --batch 1,2,4,8,16 --tokens 96`, 3 alternations)
// B=1 18.2-22.5 -> 15.0-15.2 ms a step (98.5-110.6% of the floor; old 82.1% at ~81 GB/s), B=2
// 19.1-20.4 -> 15.6-15.8, B=4 21.4-24.0 -> 16.4-16.7, B=8 23.0-24.1 -> 22.6-22.9, B=16 44.6-45.1 ->
// 44.2-45.1; f16 prefill, forward only, 512 / 2,048 tokens 496-498 / 416-419 -> 504-506 / 422 tok/s.
// (A first attempt at one-stream pairs, 2026-12-05, had kept two streams a thread at B=1 and been
// slower: docs/models.md, "Not kept: a pair of f16 tiles as one stream".)
//
// One chain per output since 2026-12-05 (evening). Before, each output had an even- and an
// odd-column chain, so a pass held 8 / tiles rows: prompts took pairs of tiles 4 rows a pass, B=5-8
// decode a pair in two passes (the second from cache, asking for the next pair), B=1-4 lone tiles.
// Each column's conversion then served 4 FMAs instead of 8, and B=5-8 read every pair twice. Matmul
// alone on the Zen 5 EPYC (Qwen3PrefillBench.DISABLED_DecodeMatmulFromMemory, f16 3,072 x 1,024,
// alternated): within the caches, one thread, B=8 0.265-0.266 -> 0.246-0.251 ms, B=4 0.176-0.191 ->
// 0.160-0.161, B=1 0.121-0.126 -> 0.124-0.125; from memory (667 MB, 2 threads, the read of the copies
// at 15.0-18.7 ms) B=1 16.7-18.3 -> 14.8-15.2 ms, B=8 21.0-22.3 -> 20.6-21.4. f16 prefill forward,
// 2 threads, 512 tokens: 370-374 -> 375-398 tok/s.
//
// The first pass over a group asks for its weights ahead into L1: a pair's one stream 6 KiB ahead
// (12 KiB for passes of 4 rows or more), the odd last tile 6 KiB (kAheadValues says why), a line per
// column pair and tile, non-temporal for a decode step (request_line). Asking for them 8-16 KiB
// ahead into L2 as well made B=8 from memory no faster (22.0-22.3 ms without, 21.7-24.3 with; in
// the two-stream layout). Near a group's end the lines ahead are those of the group that follows it
// in memory, the task's next. (In the two-stream layout that took care: before 2026-12-05 the first
// tile's requests ran on into its neighbour, already being read, and the next pair's second tile
// started cold. Matmul alone from memory, f16, 2 threads, ~80 alternated runs
// each, time over the read of the same copies beside it (medians): 3,072 x 1,024, B=8 1.455 ->
// 1.391, B=1 1.127 -> 1.068; 6,144 x 512, B=8 1.713 -> 1.503, B=1 1.260 -> 1.113. The model's f16
// decode, 5 alternations: B=1 forward 26.9-29.9 -> 24.6-28.2 ms, B=8 39.4-47.3 -> 36.6-44.1.)
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

constexpr int kColumnAccumulators = 16;  // per pass: tiles x activation rows
constexpr int kColumnBatch = kColumnAccumulators;  // rows a lone tile's pass may take
constexpr int64_t kColumnSlice = 64;  // activation rows per slice of a prompt (as q8_lanes_avx512.cpp)
// How far ahead of its columns a tile's first pass asks for the weights (into L1), per tile (a pair's
// one stream asks twice as far): 1,536 values (3 KiB) for a pair's passes of 1-3 rows, which go at
// the stream's pace, twice as far for passes of 4 rows or more, which go at their products', and for
// the odd last tile (kAheadValuesProducts). Measured in the two-stream layout, in which a pair's
// tiles each asked this far in their own stream; in one stream, the model's f16 decode at B=1 and
// B=8, runs alternated (`bench decode --batch 1,8 --tokens 96`, 3 of each, the reads moving between
// ~50 and ~80 GB/s from run to run), took 15.1-23.3 ms a B=1 step and 24.2-27.8 a B=8 one as it is,
// 15.4-16.0 and 23.8-24.8 at twice the distance, 16.1-23.6 and 24.6-26.2 at half: too close for
// runs of their own to tell. The first:
// B=8 f16 decode on the Zen 5 EPYC, 2 threads, runs of their own: 151-174 tok/s with 1,024, 162-197
// with 2,048, 162-184 with 4,096, 95-111 without (B=1 within noise of each; all in pairs, before
// 2026-12-06 afternoon). The
// model's forward passes alternated one by one in one process against 2,048 (200 of each, `bench
// decode --batch 1,8 --tokens 128`, 4-6 runs), in time over 2,048's: B=8 0.977-0.990 with 1,536,
// 0.966-0.984 with 1,280, 0.984 with 1,024, 1.015 with 768, 1.008-1.011 with 3,072 and 4,096; B=1
// 0.976-1.000 with 1,536, 1.002-1.024 with 1,280, 1.059 with 768. Into L2 instead (hint 2): B=1 1.081,
// B=8 1.046.
constexpr int64_t kAheadValues = 1536;
// A pass of 4 or more rows runs its products about as long as its lines take to arrive, near the
// memory's rate where it is fast, so its lines wait longer in the queues and need asking for sooner.
// The model's forward passes alternated one by one against 1,536 (200 of each, f16, 2 threads, `bench
// decode --tokens 128`, 2026-12-06 afternoon), in time over 1,536's: where reads ran at ~80 GB/s, B=8
// 0.939-0.948 with 3,072 (~25 ms a step), 0.971-0.979 with 2,048, 0.956-0.971 with 4,096,
// 0.958-0.963 with 6,144, 1.043-1.053 with 1,280; B=16 0.896-0.930 and B=4 0.967-1.008 with 3,072.
// Where they ran at ~40 GB/s (B=8 ~31 ms a step, B=1 ~32), 3,072 cost B=8 ~1%: 1,536 and 2,048 took
// 0.984-0.992 and 0.983-0.992 of its time. For every pass, 3,072 made B=1 1.000-1.062, B=2
// 1.039-1.045 and B=3 1.001-1.044. A 512-token f16 prefill (passes of 8 rows), alternated: 1.000-1.004.
constexpr int64_t kAheadValuesProducts = 2 * kAheadValues;
constexpr int kProductPacedRows = 4;
// A lone tile (the odd last tile; until 2026-12-06, night, every tile of a batch of up to 4 rows)
// asks 6 KiB ahead at every batch: its one stream then has as many lines in flight as a pair's at 3
// KiB a tile. Alternated as above, lone tiles with 6 KiB against
// 3 KiB, in time over 3 KiB's: at reads of ~48 GB/s B=1 0.990-0.999, B=2 0.973-0.984, B=3
// 0.916-0.936; at ~80 GB/s B=1 0.970-0.974, B=2 0.919-0.932, B=3 0.860-0.872; B=4 with 3 KiB took
// 1.093-1.114 of 6 KiB's time.

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

// Column c of a group of NT tiles (a pair's columns are 32 values, the first tile's 16 then the
// second's) into the NB rows' chains: each tile's column widened once, each row's activation
// broadcast once for all tiles.
template <DType D, int NT, int NB>
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) void column_step(const uint16_t* group, int64_t c,
                                                                           const ColumnRows& x, __m512 (&acc)[NT][NB]) {
  __m512 w[NT];
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) w[t] = widen<D>(group + (c * NT + t) * kColumnTileRows);
#pragma GCC unroll 16
  for (int j = 0; j < NB; ++j) {
    const __m512 xj = _mm512_set1_ps(x.x[j][c]);
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) acc[t][j] = _mm512_fmadd_ps(w[t], xj, acc[t][j]);
  }
}

// Outputs [t0, t0 + 16 NT) of NB activation rows over all columns of a group of NT tiles (a pair of
// tiles, or the odd last tile: column_tile_offset), into the lanes of rows[t]; `ahead`: the first
// pass over the group's weights, which asks for the lines ahead of them (a line per column pair and
// tile); `once`: no later slice reads them (request_line).
template <DType D, int NT, int NB>
NINFER_KERNEL_TARGET void column_tiles(const uint16_t* group, int64_t cols, const ColumnRows& x, const uint32_t* rows,
                                       bool accumulate, bool ahead, bool once) {
  __m512 acc[NT][NB];
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
#pragma GCC unroll 16
    for (int j = 0; j < NB; ++j) acc[t][j] = _mm512_setzero_ps();
  }
  // (The group's one stream asks as far ahead as its tiles would each on their own.)
  constexpr int64_t kAhead = NT * (NT == 1 || NB >= kProductPacedRows ? kAheadValuesProducts : kAheadValues);
  int64_t c = 0;
  for (; c + 2 <= cols; c += 2) {
    if (ahead) {
      // (Past the group's end: the group that follows it in memory, the task's next.)
      const uint16_t* at = group + c * NT * kColumnTileRows + kAhead;
#pragma GCC unroll 2
      for (int t = 0; t < NT; ++t) request_line(at + t * 2 * kColumnTileRows, once);
    }
    column_step<D, NT, NB>(group, c, x, acc);
    column_step<D, NT, NB>(group, c + 1, x, acc);
  }
  if (c < cols) column_step<D, NT, NB>(group, c, x, acc);
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
    const auto lanes = static_cast<__mmask16>(rows[t]);
#pragma GCC unroll 16
    for (int j = 0; j < NB; ++j) {
      float* y = x.y[j] + 16 * t;
      __m512 v = acc[t][j];
      if (accumulate) v = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, y), v);
      _mm512_mask_storeu_ps(y, lanes, v);
    }
  }
}

}  // namespace

NINFER_KERNEL_TARGET void column_tiles_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  const auto* w = reinterpret_cast<const uint16_t*>(a.w);
  for_fixed_pairs<kColumnSlice, kColumnAccumulators>(a.batch, a.w_rows, row_begin, row_end, [&](const TileGroup& g) {
    const uint16_t* group = w + g.t0 * a.cols;
    g.each_pass([&](int64_t b0, int nb, bool ahead) {
      ColumnRows x;
      for (int j = 0; j < kColumnBatch; ++j) {
        const int64_t b = pass_row(b0, nb, j);
        x.x[j] = a.x + b * a.ldx;
        x.y[j] = a.y + b * a.ldy + g.t0;
      }
      with_tiles_and_rows<kColumnAccumulators>(g.tiles, nb, [&]<int NT, int NB>() {
        if (a.dtype == DType::BF16) {
          column_tiles<DType::BF16, NT, NB>(group, a.cols, x, g.rows, a.accumulate, ahead, g.one_slice);
        } else {
          column_tiles<DType::F16, NT, NB>(group, a.cols, x, g.rows, a.accumulate, ahead, g.one_slice);
        }
      });
    });
  });
}

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
