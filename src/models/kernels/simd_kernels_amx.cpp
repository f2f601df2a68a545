// AMX (Sapphire Rapids and later): the AVX-512 kernels, with Q8_0 and BF16 matrix products on the
// tile unit (BF16: see its section below).
//
// One TDPBSSD multiplies 16 weight rows by 16 activation rows over one Q8_0 block (32 int8 values)
// into 16 x 16 exact int32 block sums: 8,192 products, where a 256-bit VNNI instruction makes 32.
// The vector unit then scales and accumulates the sums in fp32. What it computes (q8_block_dot.h,
// "on the tile unit") differs from the other instruction sets in the accumulation only: one fp32
// chain per output over whole-block sums, where they keep 8 chains over quarter blocks. Every batch
// size runs the same tiles, so batching never changes a result here either.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (see simd_kernels_avx512.cpp)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/amx_tile_config.h"
#include "models/kernels/simd_kernels.h"

#define NINFER_AMX_TARGET \
  __attribute__((target("amx-tile,amx-int8,amx-bf16,avx512f,avx512vl,avx512bw,avx512bf16,avx2,fma,f16c")))

namespace ninfer::models::kernels::amx {

namespace {

// tmm0, tmm1: block sums, 16 weight rows x 16 activation rows of int32 (one per activation group)
// tmm2: 16 weight rows x one block (32 int8)
// tmm4, tmm5: one block of 16 activation rows, in the tile unit's 4-byte-interleaved layout
TileConfig tile_config() {
  TileConfig c;
  for (int t : {0, 1}) {
    c.rows[t] = 16;
    c.colsb[t] = 64;
  }
  for (int t : {2}) {
    c.rows[t] = 16;
    c.colsb[t] = kQ8BlockValues;
  }
  for (int t : {4, 5}) {
    c.rows[t] = kQ8BlockValues / 4;
    c.colsb[t] = 64;
  }
  return c;
}

constexpr int kTileRows = 16;  // weight rows per tile, and activation rows per group

// 0, step, 2 step, ..., 15 step: the offsets of a gather or scatter over the 16 rows of a tile.
NINFER_AMX_TARGET inline __attribute__((always_inline)) __m512i lane_offsets(int step) {
  return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                            _mm512_set1_epi32(step));
}

// Writes the sums of weight rows [first, t0 + 16) for activation group g (out: [weight row][row of
// the group]) into y, or adds them to it.
inline void store_tile(const MatmulArgs& a, const float* out, int64_t g, int64_t t0, int64_t first) {
  const int64_t rows = std::min<int64_t>(kTileRows, a.batch - g * kTileRows);
  for (int64_t n = 0; n < rows; ++n) {
    float* y = a.y + (g * kTileRows + n) * a.ldy;
    for (int64_t r = first; r < t0 + kTileRows; ++r) {
      const float v = out[16 * (r - t0) + n];
      y[r] = a.accumulate ? y[r] + v : v;
    }
  }
}

// The 16-row tiles covering rows [row_begin, row_end) (row_end >= 16) start at r0 = row_begin,
// row_begin + 16, ...; a short last tile ends at row_end and starts among rows already written (the
// matrix has them), writing from r0.
inline int64_t tile_start(int64_t r0, int64_t row_end) { return r0 + kTileRows <= row_end ? r0 : row_end - kTileRows; }

// The first weight row of the tile after the one at r0, or null.
inline const uint8_t* next_tile(const MatmulArgs& a, int64_t r0, int64_t row_end) {
  const int64_t r1 = r0 + kTileRows;
  return r1 < row_end ? a.w + static_cast<size_t>(tile_start(r1, row_end)) * a.w_row_bytes : nullptr;
}

// Weight tiles per pass over the activation groups: each group's activations are then read once per
// 4 tiles instead of once per tile. A 512-row prompt chunk's bf16 parts (3 x 2 bytes per value: 3 MiB
// for 1,024 columns) do not fit in L2, and tile by tile they came from L3 for every tile.
constexpr int64_t kTilesPerPass = 4;

// The tiles [r, ...) of one pass over rows [r0, min(r0 + 64, row_end)): first rows written and tile
// starts (tile_start).
struct TilePass {
  int64_t count = 0;
  int64_t first[kTilesPerPass] = {};
  int64_t start[kTilesPerPass] = {};
  TilePass(int64_t r0, int64_t row_end) {
    for (int64_t r = r0; r < row_end && count < kTilesPerPass; r += kTileRows, ++count) {
      first[count] = r;
      start[count] = tile_start(r, row_end);
    }
  }
};

// For batches of at most N activation rows (decode, and decode rows beside a short prompt chunk; N =
// 1, 4, 8 or 16): the same tiles but N columns of sums and activations, so that a block's sums are
// stored as 16 x N int32 (64 N bytes instead of 1 KiB for N < 16) and read back as N vectors (see
// columns_tiles); tiles 3, 6 and 7 repeat tile 2.
TileConfig columns_config(int n) {
  TileConfig c = tile_config();
  for (int t : {0, 1, 4, 5}) c.colsb[t] = static_cast<uint16_t>(4 * n);
  for (int t : {3, 6, 7}) {  // weights, as tile 2 (tiles 6 and 7: the second set of pair_sums)
    c.rows[t] = c.rows[2];
    c.colsb[t] = c.colsb[2];
  }
  return c;
}

// Batches up to 16 rows take columns_tiles<N, T> under columns_config(N): the N of a batch, or 0 for
// groups_tile (prompt chunks). At 9-16 rows, columns_tiles<16, 2> (weight tiles in pairs) instead of
// groups_tile made a decode step of 9 rows 47.1-47.6 -> 45.9-46.1 ms and of 16 rows 55.6-56.7 ->
// 53.7-54.2 ms (q8_0, 2 threads); with one tile at a time it gained less (45.9-47.0, 55.1-57.1).
constexpr int columns_for(int64_t batch) {
  return batch == 1 ? 1 : batch <= 4 ? 4 : batch <= 8 ? 8 : batch <= 16 ? 16 : 0;
}

// Adds one block's sums (c: 16 x 16 int32, [weight row][activation row]) to the accumulators, each
// scaled by d_w * d_x as the other instruction sets scale theirs.
NINFER_AMX_TARGET inline __attribute__((always_inline)) void accumulate_block(const int32_t* c, const float* dw,
                                                                            const float* dx, __m512* acc) {
  const __m512 dxv = _mm512_loadu_ps(dx);
#pragma GCC unroll 16
  for (int m = 0; m < kTileRows; ++m) {
    const __m512 sums = _mm512_cvtepi32_ps(_mm512_load_si512(c + 16 * m));
    acc[m] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(dw[m]), dxv), sums, acc[m]);
  }
}

// Where a weight tile's Q8_0 blocks lie: row m's block k at m * row + k * block bytes from the tile's
// first (row-major: row = the row's bytes, block = one block; MatmulArgs::w_tiles: row = one block,
// block = 16 of them).
struct TileStrides {
  long row;
  long block;
};
inline TileStrides tile_strides(const MatmulArgs& a) {
  if (a.w_tiles) return {kQ8BlockBytes, kTileRows * kQ8BlockBytes};
  return {static_cast<long>(a.w_row_bytes), kQ8BlockBytes};
}

// Asks for block k of the weight tile at `next` (16 rows at strides s), or nothing when it is null.
NINFER_AMX_TARGET inline __attribute__((always_inline)) void ask_block(const uint8_t* next, TileStrides s,
                                                                     int64_t k) {
  if (next == nullptr) return;
#pragma GCC unroll 16
  for (int m = 0; m < kTileRows; ++m) __builtin_prefetch(next + m * s.row + k * s.block, 0, 2);
}

// Block k's sums of the weight tile at wv (the rows' values, at strides s) against one group's
// activations xq into c (c_stride bytes per weight row), first asking for the next tile's block k
// (see below). Tiles 0, 2 and 4 (P = 0), or 1, 3 and 5 (P = 1, under columns_config): tiles are not
// renamed, so alternating the two sets lets block k + 1 load while block k multiplies.
template <int P = 0>
NINFER_AMX_TARGET inline __attribute__((always_inline)) void block_sums(const uint8_t* wv, TileStrides s,
                                                                      const int8_t* xq, int64_t k,
                                                                      const uint8_t* next, int32_t* c,
                                                                      long c_stride = 64) {
  ask_block(next, s, k);
  if constexpr (P == 0) {  // (the tile numbers must be literals)
    _tile_loadd(2, wv + k * s.block, s.row);
    _tile_loadd(4, xq + k * kQ8TileBlockBytes, 64);
    _tile_zero(0);
    _tile_dpbssd(0, 2, 4);
    _tile_stored(0, c, c_stride);
  } else {
    _tile_loadd(3, wv + k * s.block, s.row);
    _tile_loadd(5, xq + k * kQ8TileBlockBytes, 64);
    _tile_zero(1);
    _tile_dpbssd(1, 3, 5);
    _tile_stored(1, c, c_stride);
  }
}

// Activation groups [g, g + NG) against weight rows [t0, t0 + 16): each block's weights are loaded
// into a tile once for the NG groups. The tile unit multiplies block k while the vector unit scales
// block k - 1 (the sums are double-buffered). Returns the sums scaled and accumulated, out[i][m][n].
// With `next` (the next tile's first weight row), asks for its block k while it works on block k: the
// lines arrive a whole tile ahead of use, in the order of use (prefetching the next tile front to
// back instead left its last rows, which its first block needs, arriving late: B=1 decode read 18
// of the 29 GB/s the machine has).
template <int NG>
NINFER_AMX_TARGET void groups_tile(const MatmulArgs& a, const uint8_t* w0, const float* dw, int64_t g,
                                   float (*out)[kTileRows * 16], const uint8_t* next) {
  const int64_t blocks = a.cols / kQ8BlockValues;
  const TileStrides strides = tile_strides(a);
  const int8_t* xq[NG];
  const float* xd[NG];
  for (int i = 0; i < NG; ++i) {
    xq[i] = a.xq_tiles + (g + i) * blocks * kQ8TileBlockBytes;
    xd[i] = a.xd_tiles + (g + i) * blocks * kTileRows;
  }
  alignas(64) int32_t c[2][NG][kTileRows * 16];
  __m512 acc[NG][kTileRows];  // (loops over it unrolled, as in columns_tiles)
#pragma GCC unroll 2
  for (int i = 0; i < NG; ++i)
#pragma GCC unroll 16
    for (int m = 0; m < kTileRows; ++m) acc[i][m] = _mm512_setzero_ps();
  const uint8_t* wv = w0 + 2;  // the values of the block, after its scale
  for (int64_t k = 0; k <= blocks; ++k) {
    if (k < blocks) {
      block_sums(wv, strides, xq[0], k, next, c[k % 2][0]);
      if constexpr (NG == 2) {  // the same weight tile against the second group
        _tile_loadd(5, xq[1] + k * kQ8TileBlockBytes, 64);
        _tile_zero(1);
        _tile_dpbssd(1, 2, 5);
        _tile_stored(1, c[k % 2][1], 64);
      }
    }
    if (k > 0) {
#pragma GCC unroll 2
      for (int i = 0; i < NG; ++i) {
        accumulate_block(c[(k - 1) % 2][i], dw + (k - 1) * kTileRows, xd[i] + (k - 1) * kTileRows, acc[i]);
      }
    }
  }
#pragma GCC unroll 2
  for (int i = 0; i < NG; ++i)
#pragma GCC unroll 16
    for (int m = 0; m < kTileRows; ++m) _mm512_store_ps(out[i] + 16 * m, acc[i][m]);
}

// Block k's sums of two weight tiles (wa, wb) against the same activations, under columns_config:
// the activation tile is loaded once for both, and the second tile's load and product overlap the
// first's. The sums go to tiles 0 and 1, the weights to tiles 2 and 3 (P = 0) or 6 and 7 (P = 1), the
// activations to tile 4 or 5, so that block k + 1 loads while block k multiplies.
template <int P>
NINFER_AMX_TARGET inline __attribute__((always_inline)) void pair_sums(const uint8_t* wa, const uint8_t* wb,
                                                                     TileStrides s, const int8_t* xq, int64_t k,
                                                                     int32_t* ca, int32_t* cb, long c_stride) {
  // Written out per parity: GCC's tile intrinsics paste the tile number into assembly text, so it
  // must be a literal (a template parameter does not assemble).
  if constexpr (P == 0) {
    _tile_loadd(2, wa + k * s.block, s.row);
    _tile_loadd(4, xq + k * kQ8TileBlockBytes, 64);
    _tile_loadd(3, wb + k * s.block, s.row);
    _tile_zero(0);
    _tile_dpbssd(0, 2, 4);
    _tile_zero(1);
    _tile_dpbssd(1, 3, 4);
  } else {
    _tile_loadd(6, wa + k * s.block, s.row);
    _tile_loadd(5, xq + k * kQ8TileBlockBytes, 64);
    _tile_loadd(7, wb + k * s.block, s.row);
    _tile_zero(0);
    _tile_dpbssd(0, 6, 5);
    _tile_zero(1);
    _tile_dpbssd(1, 7, 5);
  }
  _tile_stored(0, ca, c_stride);
  _tile_stored(1, cb, c_stride);
}

// Batches of at most N rows (decode) under columns_config(N), T weight tiles at once (w[t]: the
// tile's first row; T = 2: pair_sums, whose shared activation tile and overlapping loads made B=8
// q8_0 decode on 2 threads 146-154 -> 161-168 tok/s): as groups_tile<1>, but a block's sums are
// 16 x N, read back as N vectors of 16 / N weight rows x N activation rows each, scaled by the weight
// scales gathered straight from the blocks (16 rows at a time) times the activations'. Scaling all
// 16 columns of a full tile, with its scales converted one by one, cost B=8 decode 1.8x B=1's step.
// Same operations per output whatever T, so the same bits. next[t] (or null): a tile asked for block
// by block, as groups_tile asks for its next one.
template <int N, int T>
NINFER_AMX_TARGET void columns_tiles(const MatmulArgs& a, const uint8_t* const (&w)[T], float* const (&out)[T],
                                     const uint8_t* const (&next)[T]) {
  static_assert(N == 1 || N == 4 || N == 8 || N == 16);
  static_assert(T == 1 || T == 2);
  constexpr int R = kTileRows / N;  // weight rows per vector of sums
  const int64_t blocks = a.cols / kQ8BlockValues;
  const TileStrides strides = tile_strides(a);
  const __m512i rows = lane_offsets(static_cast<int>(strides.row));
  // kPick[j]: lane l of vector j holds weight row R j + l / N, activation row l % N.
  alignas(64) static constexpr auto kPick = [] {
    std::array<std::array<int32_t, 16>, N> p{};
    for (int j = 0; j < N; ++j)
      for (int l = 0; l < 16; ++l) p[j][l] = R * j + l / N;
    return p;
  }();
  alignas(64) int32_t c[2][T][kTileRows * N];  // [block parity][tile]
  // Every loop over acc is unrolled: one indexed by a variable kept acc on the stack, and each block's
  // scaling loaded and stored every accumulator.
  __m512 acc[T][N];
#pragma GCC unroll 2
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j) acc[t][j] = _mm512_setzero_ps();
  for (int64_t k = 0; k <= blocks; ++k) {
    if (k < blocks) {
#pragma GCC unroll 2
      for (int t = 0; t < T; ++t) ask_block(next[t], strides, k);
      if constexpr (T == 1) {
        if (k % 2 == 0) {
          block_sums<0>(w[0] + 2, strides, a.xq_tiles, k, nullptr, c[0][0], 4 * N);
        } else {
          block_sums<1>(w[0] + 2, strides, a.xq_tiles, k, nullptr, c[1][0], 4 * N);
        }
      } else if (k % 2 == 0) {
        pair_sums<0>(w[0] + 2, w[1] + 2, strides, a.xq_tiles, k, c[0][0], c[0][1], 4 * N);
      } else {
        pair_sums<1>(w[0] + 2, w[1] + 2, strides, a.xq_tiles, k, c[1][0], c[1][1], 4 * N);
      }
    }
    if (k > 0) {
      const float* dx = a.xd_tiles + (k - 1) * kTileRows;
      __m512 dxv;
      if constexpr (N == 1) dxv = _mm512_set1_ps(dx[0]);
      if constexpr (N == 4) dxv = _mm512_broadcast_f32x4(_mm_loadu_ps(dx));
      if constexpr (N == 8) dxv = _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(dx))));
      if constexpr (N == 16) dxv = _mm512_loadu_ps(dx);
#pragma GCC unroll 2
      for (int t = 0; t < T; ++t) {
        // The block's first 4 bytes in each of the 16 rows: its f16 scale in the low half.
        const uint8_t* block = w[t] + (k - 1) * strides.block;
        const __m512 dw = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_i32gather_epi32(rows, block, 1)));
        const int32_t* sums = c[(k - 1) % 2][t];
#pragma GCC unroll 16
        for (int j = 0; j < N; ++j) {
          const __m512 dwj = N == 1 ? dw : _mm512_permutexvar_ps(_mm512_load_si512(kPick[j].data()), dw);
          acc[t][j] =
              _mm512_fmadd_ps(_mm512_mul_ps(dwj, dxv), _mm512_cvtepi32_ps(_mm512_load_si512(sums + 16 * j)), acc[t][j]);
        }
      }
    }
  }
#pragma GCC unroll 2
  for (int t = 0; t < T; ++t) {
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j) {
      alignas(64) float col[16];
      _mm512_store_ps(col, acc[t][j]);
      for (int l = 0; l < 16; ++l) out[t][16 * (R * j + l / N) + l % N] = col[l];
    }
  }
}

// Weight rows [t0, t0 + 16 T) of a batch of at most 16 rows (columns_for(batch) = n), T tiles at once;
// writes rows [first, t0 + 16 T).
template <int T>
NINFER_AMX_TARGET void row_columns(const MatmulArgs& a, int n, int64_t t0, int64_t first,
                                   const uint8_t* const (&next)[T]) {
  const uint8_t* w[T];
  alignas(64) float sums[T][kTileRows * 16];
  float* out[T];
  for (int t = 0; t < T; ++t) {
    w[t] = a.w + static_cast<size_t>(t0 + t * kTileRows) * a.w_row_bytes;
    out[t] = sums[t];
  }
  if (n == 1) {
    columns_tiles<1, T>(a, w, out, next);
  } else if (n == 4) {
    columns_tiles<4, T>(a, w, out, next);
  } else if (n == 8) {
    columns_tiles<8, T>(a, w, out, next);
  } else {
    columns_tiles<16, T>(a, w, out, next);
  }
  for (int t = 0; t < T; ++t) {
    const int64_t ts = t0 + t * kTileRows;
    store_tile(a, sums[t], 0, ts, std::max(first, ts));
  }
}

// Weight rows [t0, t0 + 16) against every activation group; writes rows [first, t0 + 16). `next`
// is the next tile's first row of weights (or null), asked into the cache during the first pass.
NINFER_AMX_TARGET void row_tile(const MatmulArgs& a, int64_t t0, int64_t first, float* dw, const uint8_t* next) {
  const int64_t blocks = a.cols / kQ8BlockValues;
  const uint8_t* w0 = a.w + static_cast<size_t>(t0) * a.w_row_bytes;
  if (const int n = columns_for(a.batch); n != 0) {
    const uint8_t* const one[1] = {next};
    row_columns<1>(a, n, t0, first, one);
    return;
  }
  alignas(64) float out[2][kTileRows * 16];
  const TileStrides strides = tile_strides(a);
  for (int64_t blk = 0; blk < blocks; ++blk) {
    for (int m = 0; m < kTileRows; ++m) {
      uint16_t h;
      std::memcpy(&h, w0 + m * strides.row + blk * strides.block, 2);
      dw[blk * kTileRows + m] = _cvtsh_ss(h);
    }
  }
  const int64_t groups = (a.batch + kTileRows - 1) / kTileRows;
  for (int64_t g = 0; g < groups;) {
    const int ng = groups - g >= 2 ? 2 : 1;
    const uint8_t* pf = g == 0 ? next : nullptr;  // later passes find this tile in L2
    if (ng == 2) {
      groups_tile<2>(a, w0, dw, g, out, pf);
    } else {
      groups_tile<1>(a, w0, dw, g, out, pf);
    }
    for (int i = 0; i < ng; ++i, ++g) store_tile(a, out[i], g, t0, first);
  }
}

// The same sums for matrices of fewer than 16 rows, which a tile cannot cover without reading past
// them.
void row_portable(const MatmulArgs& a, int64_t r) {
  const int64_t blocks = a.cols / kQ8BlockValues;
  const uint8_t* w = a.w + static_cast<size_t>(r) * a.w_row_bytes;
  for (int64_t b = 0; b < a.batch; ++b) {
    const int64_t g = b / kTileRows, n = b % kTileRows;
    float acc = 0.0f;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const uint8_t* block = w + blk * kQ8BlockBytes;
      const int8_t* xq = a.xq_tiles + (g * blocks + blk) * kQ8TileBlockBytes;
      int32_t s = 0;
      for (int k = 0; k < kQ8BlockValues; ++k) {
        s += int32_t{static_cast<int8_t>(block[2 + k])} * int32_t{xq[(k / 4) * 64 + n * 4 + k % 4]};
      }
      uint16_t h;
      std::memcpy(&h, block, 2);
      const float dw = f16_to_f32(h);
      acc = std::fma(dw * a.xd_tiles[(g * blocks + blk) * kTileRows + n], static_cast<float>(s), acc);
    }
    float* y = a.y + b * a.ldy + r;
    *y = a.accumulate ? *y + acc : acc;
  }
}

NINFER_AMX_TARGET void q8_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  if (row_end < kTileRows) {
    for (int64_t r = row_begin; r < row_end; ++r) row_portable(a, r);
    return;
  }
  static const TileConfig config = tile_config(), one = columns_config(1), four = columns_config(4),
                          eight = columns_config(8), sixteen = columns_config(16);
  const int n = columns_for(a.batch);
  _tile_loadconfig(n == 1 ? &one : n == 4 ? &four : n == 8 ? &eight : n == 16 ? &sixteen : &config);
  thread_local std::vector<float> dw;
  dw.resize(static_cast<size_t>(a.cols / kQ8BlockValues * kTileRows));
  int64_t r0 = row_begin;
  if (n != 0) {
    // Decode batches take whole pairs of tiles first (B=8 q8_0 decode, 2 threads: 146-154 -> 161-168
    // tok/s; B=1 unchanged), asking for the next two tiles (a pair, or the single tile after the
    // last pair) block by block.
    for (; r0 + 2 * kTileRows <= row_end; r0 += 2 * kTileRows) {
      const int64_t r1 = r0 + 2 * kTileRows;
      const uint8_t* na = next_tile(a, r0 + kTileRows, row_end);
      const uint8_t* nb = r1 + 2 * kTileRows <= row_end ? a.w + static_cast<size_t>(r1 + kTileRows) * a.w_row_bytes
                                                          : nullptr;
      const uint8_t* const two[2] = {na, nb};
      row_columns<2>(a, n, r0, r0, two);
    }
  }
  for (; r0 < row_end; r0 += kTileRows) {
    row_tile(a, tile_start(r0, row_end), r0, dw.data(), next_tile(a, r0, row_end));
  }
  _tile_release();  // the kernel need not save 8 KiB of tile state at every switch of this thread
}

// ---- BF16 weights: activations in three bf16 parts on the tile unit ----
//
// The tile unit multiplies bf16 pairs into fp32 sums. A bf16 weight is used as it is stored; an fp32
// activation x is split into three bf16 parts whose sum is exactly x: hi = x rounded to bf16, mid =
// x - hi rounded, lo = x - hi - mid rounded (each difference is exact in fp32, and the three parts
// hold 8 + 8 + 8 significant bits and two signs, more than fp32's 24). Every product is exact, so the
// only rounding left is the fp32 sums': each output sums w hi, then w mid, then w lo, over blocks of
// 32 columns in order. (Two parts, 16 bits, moved the tiny model's logits by 6e-5 of their largest
// against the FP64 reference, where the FMA kernels stay within 4e-7.) It runs on the tile unit for
// every batch size (one weight row tile against a group of 16 activation rows), so batching never
// changes a bit. Columns past the last whole 32 add an fp32 chain last.

// All eight tiles are 16 rows of 64 bytes: sums (tmm0, tmm1: 16 weight rows x 16 activation rows of
// fp32), weights (tmm2: 16 rows x 32 bf16) and activation parts (tmm3-tmm5: hi, mid, lo of a first
// group; tmm6, tmm7 and then tmm3 again: of a second).
TileConfig pair_tile_config() {
  TileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.rows[t] = 16;
    c.colsb[t] = 64;
  }
  return c;
}

// x's bf16 parts, 32 values at a time (a: the first 16, b: the next 16); returns the rest x - part.
NINFER_AMX_TARGET inline __attribute__((always_inline)) __m512i bf16_part(__m512& a, __m512& b) {
  const __m512i p = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a));
  const __m512i pa = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(p)), 16);
  const __m512i pb = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(p, 1)), 16);
  a = _mm512_sub_ps(a, _mm512_castsi512_ps(pa));
  b = _mm512_sub_ps(b, _mm512_castsi512_ps(pb));
  return p;
}

NINFER_AMX_TARGET void pack_bf16_parts(const float* x, int64_t ldx, int64_t rows, int64_t cols, uint16_t* out) {
  const int64_t blocks = cols / 32;
  constexpr int64_t kBlock = kBf16Parts * kPairTileBlockValues;
  if (rows < kTileRows) std::memset(out, 0, static_cast<size_t>(blocks * kBlock) * sizeof(uint16_t));
  // Line l of a part: columns 2l and 2l + 1 (one 32-bit element of a row's 32 bf16) of each row.
  const __m512i lines = lane_offsets(64);
  for (int64_t n = 0; n < rows; ++n) {
    const float* row = x + n * ldx;
    for (int64_t kb = 0; kb < blocks; ++kb) {
      __m512 a = _mm512_loadu_ps(row + 32 * kb), b = _mm512_loadu_ps(row + 32 * kb + 16);
      uint16_t* block = out + kb * kBlock + 2 * n;
      for (int part = 0; part < kBf16Parts; ++part) {
        _mm512_i32scatter_epi32(block + part * kPairTileBlockValues, lines, bf16_part(a, b), 1);
      }
    }
  }
}

// Sums of weight rows [t0, t0 + 16) against activation groups [g, g + NG): out[i][m][n]. `next` (or
// null): the next tile's first weight row, asked for a block at a time as in groups_tile.
template <int NG>
NINFER_AMX_TARGET void pair_groups_tile(const MatmulArgs& a, const uint8_t* w0, int64_t g,
                                        float (*out)[kTileRows * 16], const uint8_t* next) {
  const int64_t blocks = a.cols / 32;
  constexpr int64_t kBlock = kBf16Parts * kPairTileBlockValues;
  constexpr int64_t P = kPairTileBlockValues;
  const auto stride = static_cast<long>(a.w_row_bytes);
  const uint16_t* x0 = a.xb_tiles + g * blocks * kBlock;
  const uint16_t* x1 = x0 + blocks * kBlock;
  _tile_zero(0);
  if constexpr (NG == 2) _tile_zero(1);
  for (int64_t kb = 0; kb < blocks; ++kb) {
    if (next != nullptr) {
#pragma GCC unroll 16
      for (int m = 0; m < kTileRows; ++m) __builtin_prefetch(next + m * a.w_row_bytes + kb * 64, 0, 2);
    }
    const int64_t off = kb * kBlock;
    _tile_loadd(2, w0 + kb * 64, stride);
    _tile_loadd(3, x0 + off, 64);
    _tile_loadd(4, x0 + off + P, 64);
    _tile_loadd(5, x0 + off + 2 * P, 64);
    _tile_dpbf16ps(0, 2, 3);
    _tile_dpbf16ps(0, 2, 4);
    _tile_dpbf16ps(0, 2, 5);
    if constexpr (NG == 2) {
      _tile_loadd(6, x1 + off, 64);
      _tile_loadd(7, x1 + off + P, 64);
      _tile_dpbf16ps(1, 2, 6);
      _tile_dpbf16ps(1, 2, 7);
      _tile_loadd(3, x1 + off + 2 * P, 64);
      _tile_dpbf16ps(1, 2, 3);
    }
  }
  _tile_stored(0, out[0], 64);
  if constexpr (NG == 2) _tile_stored(1, out[1], 64);
}

// Adds the columns past the last whole 32 to tile sums of group g (out as in store_tile): an fp32
// chain from 0 per output, added last. For BF16 and F16 weights.
inline void add_column_tail(const MatmulArgs& a, float* out, int64_t g, int64_t t0, int64_t first) {
  const int64_t rows = std::min<int64_t>(kTileRows, a.batch - g * kTileRows);
  for (int64_t n = 0; n < rows; ++n) {
    const float* x = a.x + (g * kTileRows + n) * a.ldx;
    for (int64_t r = first; r < t0 + kTileRows; ++r) {
      const auto* w = reinterpret_cast<const uint16_t*>(a.w + static_cast<size_t>(r) * a.w_row_bytes);
      float tail = 0.0f;
      for (int64_t k = a.cols / 32 * 32; k < a.cols; ++k) {
        tail = std::fma(a.dtype == DType::BF16 ? bf16_to_f32(w[k]) : f16_to_f32(w[k]), x[k], tail);
      }
      out[16 * (r - t0) + n] += tail;
    }
  }
}

NINFER_AMX_TARGET void bf16_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  static const TileConfig config = pair_tile_config();
  _tile_loadconfig(&config);
  const int64_t groups = (a.batch + kTileRows - 1) / kTileRows;
  alignas(64) float out[2][kTileRows * 16];
  for (int64_t r0 = row_begin; r0 < row_end; r0 += kTilesPerPass * kTileRows) {
    const TilePass pass(r0, row_end);
    for (int64_t g = 0; g < groups;) {
      const int ng = groups - g >= 2 ? 2 : 1;
      for (int64_t i = 0; i < pass.count; ++i) {
        const int64_t t0 = pass.start[i];
        const uint8_t* w0 = a.w + static_cast<size_t>(t0) * a.w_row_bytes;
        const uint8_t* pf = g == 0 ? next_tile(a, pass.first[i], row_end) : nullptr;  // later passes find it in L2
        if (ng == 2) {
          pair_groups_tile<2>(a, w0, g, out, pf);
        } else {
          pair_groups_tile<1>(a, w0, g, out, pf);
        }
        for (int j = 0; j < ng; ++j) {
          if (a.cols % 32 != 0) add_column_tail(a, out[j], g + j, t0, pass.first[i]);
          store_tile(a, out[j], g + j, t0, pass.first[i]);
        }
      }
      g += ng;
    }
  }
  _tile_release();
}

// ---- F16 weights of prompt rows: each weight in two exact bf16 parts ----
//
// An f16 has 11 significant bits: hi = the value truncated to bf16 (8 of them) and lo = the rest (at
// most 3) are both bf16 values and w = hi + lo exactly. Each 16-row tile's weights are split once,
// into scratch, for all the activation groups; a block then adds hi x1, lo x1, hi x2 in that order
// (x1 and x2 the activations' first two parts, pack_bf16_parts): the "bf16x3" products, which leave
// out lo x2 and x3, under 2^-13 of each product (x's own f16 rounding in llama.cpp's f16 matmuls is
// 2^-11). Prompt rows only (MatmulArgs::prompt): a decode row would pay the split alone (B=1 decode
// went from 63 to 91-155 ms on 2 threads), so generated rows keep the AVX-512 kernel, and each kind
// is the same however batched. A step that holds both kinds reads each weight block once for both
// (parallel_matmul's prompt_begin).

NINFER_AMX_TARGET inline __attribute__((always_inline)) __m512 widen_f16(const uint16_t* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// Block kb (32 columns) of a tile's 16 weight rows as parts: hi (16 rows x 32 bf16) then lo.
NINFER_AMX_TARGET inline __attribute__((always_inline)) void split_f16_block(const MatmulArgs& a, const uint8_t* w0,
                                                                             int64_t kb, uint16_t* block) {
  const __m512i top = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  for (int m = 0; m < kTileRows; ++m) {
    const auto* row = reinterpret_cast<const uint16_t*>(w0 + m * a.w_row_bytes);
    const __m512 w[2] = {widen_f16(row + 32 * kb), widen_f16(row + 32 * kb + 16)};
    __m512 hi[2], lo[2];
    for (int i = 0; i < 2; ++i) {
      hi[i] = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(w[i]), top));
      lo[i] = _mm512_sub_ps(w[i], hi[i]);
    }
    // The parts are bf16 values already: the conversions are exact.
    _mm512_storeu_si512(block + m * 32, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi[1], hi[0])));
    _mm512_storeu_si512(block + kPairTileBlockValues + m * 32,
                        reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(lo[1], lo[0])));
  }
}

// A tile's weights as parts: per block of 32 columns, hi then lo, each 16 rows x 32 bf16 (one tile).
NINFER_AMX_TARGET void split_f16_tile(const MatmulArgs& a, const uint8_t* w0, uint16_t* parts) {
  for (int64_t kb = 0; kb < a.cols / 32; ++kb) split_f16_block(a, w0, kb, parts + kb * 2 * kPairTileBlockValues);
}

// Sums of a split tile against activation groups [g, g + NG): out[i][m][n]. Tiles: sums (0, 1),
// weight parts (2: hi, 3: lo), activation parts of the two groups (4, 5 and 6, 7 in turn). The parts
// of block kb come from parts (split_f16_tile's layout) or, where parts is null, are split from the
// weights at w0 just before their products, into a 2 KiB block that stays in L1: a batch of one or
// two groups uses each split once, and a whole tile's parts (64 KiB at 1,024 columns, 4 per pass)
// made the split's stores cost more than its products. Either way the same products in the same order.
template <int NG>
NINFER_AMX_TARGET void f16_groups_tile(const MatmulArgs& a, const uint16_t* parts, const uint8_t* w0, int64_t g,
                                       float (*out)[kTileRows * 16]) {
  const int64_t blocks = a.cols / 32;
  constexpr int64_t kBlock = kBf16Parts * kPairTileBlockValues;
  constexpr int64_t P = kPairTileBlockValues;
  alignas(64) uint16_t split[2 * P];
  const uint16_t* x0 = a.xb_tiles + g * blocks * kBlock;
  const uint16_t* x1 = x0 + blocks * kBlock;
  _tile_zero(0);
  if constexpr (NG == 2) _tile_zero(1);
  for (int64_t kb = 0; kb < blocks; ++kb) {
    const int64_t off = kb * kBlock;
    const uint16_t* wp = parts ? parts + kb * 2 * P : split;
    if (!parts) split_f16_block(a, w0, kb, split);
    _tile_loadd(2, wp, 64);
    _tile_loadd(3, wp + P, 64);
    _tile_loadd(4, x0 + off, 64);
    if constexpr (NG == 2) _tile_loadd(5, x1 + off, 64);
    _tile_dpbf16ps(0, 2, 4);
    if constexpr (NG == 2) _tile_dpbf16ps(1, 2, 5);
    _tile_dpbf16ps(0, 3, 4);
    if constexpr (NG == 2) _tile_dpbf16ps(1, 3, 5);
    _tile_loadd(6, x0 + off + P, 64);
    if constexpr (NG == 2) _tile_loadd(7, x1 + off + P, 64);
    _tile_dpbf16ps(0, 2, 6);
    if constexpr (NG == 2) _tile_dpbf16ps(1, 2, 7);
  }
  _tile_stored(0, out[0], 64);
  if constexpr (NG == 2) _tile_stored(1, out[1], 64);
}

NINFER_AMX_TARGET void f16_prompt_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  static const TileConfig config = pair_tile_config();
  _tile_loadconfig(&config);
  const int64_t groups = (a.batch + kTileRows - 1) / kTileRows;
  const int64_t tile_values = a.cols / 32 * 2 * kPairTileBlockValues;
  const bool whole = groups > 2;  // split each tile once for its groups; else block by block
  thread_local std::vector<uint16_t> parts;
  if (whole) parts.resize(static_cast<size_t>(kTilesPerPass * tile_values));
  alignas(64) float out[2][kTileRows * 16];
  for (int64_t r0 = row_begin; r0 < row_end; r0 += kTilesPerPass * kTileRows) {
    const TilePass pass(r0, row_end);
    if (whole) {
      for (int64_t i = 0; i < pass.count; ++i) {
        split_f16_tile(a, a.w + static_cast<size_t>(pass.start[i]) * a.w_row_bytes, parts.data() + i * tile_values);
      }
    }
    for (int64_t g = 0; g < groups;) {
      const int ng = groups - g >= 2 ? 2 : 1;
      for (int64_t i = 0; i < pass.count; ++i) {
        const uint16_t* tile = whole ? parts.data() + i * tile_values : nullptr;
        const uint8_t* w0 = a.w + static_cast<size_t>(pass.start[i]) * a.w_row_bytes;
        if (ng == 2) {
          f16_groups_tile<2>(a, tile, w0, g, out);
        } else {
          f16_groups_tile<1>(a, tile, w0, g, out);
        }
        for (int j = 0; j < ng; ++j) {
          if (a.cols % 32 != 0) add_column_tail(a, out[j], g + j, pass.start[i], pass.first[i]);
          store_tile(a, out[j], g + j, pass.start[i], pass.first[i]);
        }
      }
      g += ng;
    }
  }
  _tile_release();
}

void matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end) {
  // Matrices of fewer than 16 rows or 32 columns stay on the vector unit, whatever the batch: a
  // matrix of 16 rows or more never gives a task row_end < 16 (blocks are 32 rows or more).
  const bool tiles = a.cols >= 32 && row_end >= kTileRows;
  // Weights packed for the vector kernels (lanes, column tiles) take AVX-512's, which read them.
  if (a.w_lanes || a.w_columns) {
    avx512::kTable.matmul_rows(a, row_begin, row_end);
  } else if (a.dtype == DType::Q8_0) {
    q8_matmul_rows(a, row_begin, row_end);
  } else if (a.dtype == DType::BF16 && tiles) {
    bf16_matmul_rows(a, row_begin, row_end);
  } else if (a.dtype == DType::F16 && a.prompt && tiles && a.xb_tiles != nullptr) {
    f16_prompt_matmul_rows(a, row_begin, row_end);
  } else {
    avx512::kTable.matmul_rows(a, row_begin, row_end);
  }
}

}  // namespace

const KernelTable kTable = [] {
  KernelTable t = avx512::kTable;
  t.isa = Isa::Amx;
  t.matmul_rows = &matmul_rows;
  t.q8_tiles = true;
  t.q8_weight_tiles = true;
  t.packing = WeightPacking(Q8Packing::Tiles);  // (F16 prompt rows take the tile unit on row-major weights)
  t.pack_q8_offsets = nullptr;  // (Q8_0 takes the tile unit here, not the pair tiles)
  t.pack_bf16_parts = &pack_bf16_parts;
  t.prompt_attention = &causal_attention;
  t.prompt_attention_queries = 256;
  t.prompt_f16_tiles = true;
  return t;
}();

}  // namespace ninfer::models::kernels::amx

#pragma GCC diagnostic pop
