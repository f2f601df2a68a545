// The loops that the matmuls over 16-row weight tiles (Q8_0 in lanes, F16/BF16 in column tiles)
// share: the batch in slices of kSlice activation rows (a prompt's; a decode batch is one slice),
// each group of adjacent tiles of the task's rows over every slice, and a slice's rows in passes of
// near-equal sizes: a group of n tiles takes at most kAccumulators / n rows per pass (with 8, a pair
// of tiles takes 9 rows as 3, 3 and 3; a lone tile as 4 and 5).
//
// Batches of more than kPairsAbove rows take pairs of tiles, half the rows per pass: each row's
// activations, loaded once, serve both tiles. Smaller batches (decode steps) take lone tiles in one
// pass over the weights: a thread reads its rows' weights as one run of consecutive tiles, as a plain
// read does, and their loads from memory overlap the arithmetic throughout. Until 2026-12-06 one and
// two rows took pairs, so that a thread streamed two tiles at once; on the Zen 5 EPYC that afternoon
// lone tiles made decode steps of 1-4 rows up to 21% faster (see q8_lanes_avx512.cpp and
// column_tiles_avx512.cpp for the figures, phase by phase). The threshold is the kernel's: for Q8_0
// in lanes kPairsAbove = kAccumulators (8). Column tiles lie in pairs that are one stream
// (TensorView::column_tiles) and take them at every batch (for_fixed_pairs).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ninfer::models::kernels {

constexpr int kMaxGroupTiles = 2;

struct TileGroup {
  int64_t t0;                     // the group's first row (its first tile's)
  int tiles;                      // tiles in the group, at t0, t0 + 16, ...
  uint32_t rows[kMaxGroupTiles];  // per tile, the task's rows in it, as a mask of its 16 lanes
  int64_t s0, s1;                 // the slice's activation rows
  int64_t passes;                 // of at most kAccumulators / tiles rows each
  bool first;                     // the first slice over the group's weights (which may ask for the lines ahead)
  bool one_slice;                 // the batch is one slice: its passes are all that read these weights

  // Pass p's first row and row count.
  int64_t pass_begin(int64_t p) const { return s0 + p * (s1 - s0) / passes; }
  int pass_rows(int64_t p) const { return static_cast<int>(pass_begin(p + 1) - pass_begin(p)); }
  // Calls fn(b0, nb, ahead) for each pass in turn: its first row, its row count, and whether it is
  // the first pass over the group's weights (which may ask for the lines ahead).
  template <class Fn>
  void each_pass(Fn&& fn) const {
    for (int64_t p = 0; p < passes; ++p) fn(pass_begin(p), pass_rows(p), first && p == 0);
  }
};

// The activation row that a kernel's j-th row slot reads in a pass of nb rows from b0: slots past
// the pass's rows repeat its last one (they are computed and not stored).
inline int64_t pass_row(int64_t b0, int nb, int j) { return b0 + std::min(j, nb - 1); }

// The rows of [row_begin, row_end) in the 16-row tile from row t0, as a mask of its lanes.
inline uint32_t tile_lanes(int64_t t0, int64_t row_begin, int64_t row_end) {
  constexpr int64_t kTile = 16;
  const int64_t first = std::clamp<int64_t>(row_begin - t0, 0, kTile), last = std::clamp<int64_t>(row_end - t0, 0, kTile);
  return last <= first ? 0u : ((1u << last) - 1) & ~((1u << first) - 1);
}

// Calls fn(TileGroup) for each group of tiles that next(t0) makes from t0 (its tile count; the next
// group starts where it ends), over each slice of the batch in turn.
template <int64_t kSlice, int kAccumulators, class Next, class Fn>
inline void for_groups(int64_t batch, int64_t t_begin, int64_t row_begin, int64_t row_end, Next&& next, Fn&& fn) {
  constexpr int64_t kTile = 16;
  static_assert(kAccumulators % kMaxGroupTiles == 0);
  for (int64_t s0 = 0; s0 < batch; s0 += kSlice) {
    const int64_t s1 = std::min(batch, s0 + kSlice);
    for (int64_t t0 = t_begin; t0 < row_end;) {
      TileGroup g{t0, next(t0), {}, s0, s1, 0, s0 == 0, batch <= kSlice};
      for (int t = 0; t < g.tiles; ++t, t0 += kTile) g.rows[t] = tile_lanes(t0, row_begin, row_end);
      const int64_t pass_max = kAccumulators / g.tiles;
      g.passes = (s1 - s0 + pass_max - 1) / pass_max;
      fn(g);
    }
  }
}

// Calls fn(TileGroup) for rows [row_begin, row_end) of a matrix of 16-row tiles and `batch` rows, in
// groups of up to kMaxGroupTiles (a divisor of kAccumulators) from row_begin's tile for batches of
// more than kPairsAbove rows, else of one tile.
template <int64_t kSlice, int kAccumulators, int64_t kPairsAbove, class Fn>
inline void for_tile_groups(int64_t batch, int64_t row_begin, int64_t row_end, Fn&& fn) {
  constexpr int64_t kTile = 16;
  const int group_tiles = batch > kPairsAbove ? kMaxGroupTiles : 1;
  auto next = [&](int64_t t0) { return static_cast<int>(std::min<int64_t>(group_tiles, (row_end - t0 + kTile - 1) / kTile)); };
  for_groups<kSlice, kAccumulators>(batch, row_begin / kTile * kTile, row_begin, row_end, next, fn);
}

// The same for a matrix of `rows` rows whose tiles lie in fixed pairs from row 0, the odd last tile
// alone (TensorView::column_tiles), at every batch: each group is one of its pairs that holds any of
// [row_begin, row_end), its tiles' masks those rows (a tile holding none is computed and not stored).
template <int64_t kSlice, int kAccumulators, class Fn>
inline void for_fixed_pairs(int64_t batch, int64_t rows, int64_t row_begin, int64_t row_end, Fn&& fn) {
  constexpr int64_t kTile = 16, kPair = kMaxGroupTiles * kTile;
  auto next = [&](int64_t t0) { return static_cast<int>(std::min<int64_t>(kMaxGroupTiles, (rows - t0) / kTile)); };
  for_groups<kSlice, kAccumulators>(batch, row_begin / kPair * kPair, row_begin, row_end, next, fn);
}

// Asks for the weights' line at p ahead of its use. `once`: no later slice reads it
// (TileGroup::one_slice: a decode step's batch), so the request is non-temporal, and the line need
// not displace what the step reads again (its activations, its rows' K/V). On the Zen 5 EPYC, the
// model's forward passes alternated one by one against requests into every level (200-400 of each,
// 2 threads, `bench decode --batch 1,4,8,16 --tokens 128`), in time over theirs: q8_0 B=1
// 0.989-1.004, B=4 0.914-0.945, B=8 0.951-0.988, B=16 1.000; f16 B=1 0.985-0.996, B=4 0.989-1.002,
// B=8 0.979-0.998, B=16 0.993. Prompt slices keep the weights for the next slice, and ask into every level.
inline void request_line(const void* p, bool once) {
  if (once) {
    __builtin_prefetch(p, 0, 0);
  } else {
    __builtin_prefetch(p, 0, 3);
  }
}

// Calls fn.template operator()<N>() with N = n, for 1 <= n <= kMax: a pass's row count as the
// kernel's template parameter (its accumulators are arrays of N registers).
template <int kMax, class Fn>
inline void with_rows(int n, Fn&& fn) {
  if constexpr (kMax > 1) {
    if (n < kMax) {
      with_rows<kMax - 1>(n, fn);
      return;
    }
  }
  fn.template operator()<kMax>();
}

// Calls fn.template operator()<NT, NB>() for a pass of nb rows over a group of `tiles` tiles (1 or
// 2; nb <= kAccumulators / tiles): both as the kernel's template parameters.
template <int kAccumulators, class Fn>
inline void with_tiles_and_rows(int tiles, int nb, Fn&& fn) {
  static_assert(kMaxGroupTiles == 2 && kAccumulators % 2 == 0);
  if (tiles == 2) {
    with_rows<kAccumulators / 2>(nb, [&]<int NB>() { fn.template operator()<2, NB>(); });
  } else {
    with_rows<kAccumulators>(nb, [&]<int NB>() { fn.template operator()<1, NB>(); });
  }
}

}  // namespace ninfer::models::kernels
