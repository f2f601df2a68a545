// The loop that the matmuls over 16-row weight tiles (Q8_0 in lanes, F16/BF16 in column tiles) share:
// the batch in slices of kSlice activation rows (a prompt's; a decode batch is one slice), each
// tile of the task's rows over every slice, and a slice's rows in passes of near-equal sizes of at
// most kPass rows (9 rows: 5 and 4, not 8 and 1).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ninfer::models::kernels {

struct TilePass {
  int64_t t0;        // the tile's first row
  uint32_t rows;     // the task's rows in it, as a mask of its 16 lanes
  int64_t b0;        // the pass's first activation row
  int nb;            // its rows, 1 .. kPass
  bool first;        // the first pass over the tile's weights (which may ask for the lines ahead)
};

// Calls fn(TilePass) for rows [row_begin, row_end) of a matrix of 16-row tiles and `batch` rows.
template <int64_t kSlice, int kPass, class Fn>
inline void for_tile_passes(int64_t batch, int64_t row_begin, int64_t row_end, Fn&& fn) {
  constexpr int64_t kTile = 16;
  for (int64_t s0 = 0; s0 < batch; s0 += kSlice) {
    const int64_t s1 = std::min(batch, s0 + kSlice);
    const int64_t passes = (s1 - s0 + kPass - 1) / kPass;
    for (int64_t t0 = row_begin / kTile * kTile; t0 < row_end; t0 += kTile) {
      const int64_t first = std::max(row_begin, t0) - t0, last = std::min(row_end, t0 + kTile) - t0;
      const uint32_t rows = ((1u << last) - 1) & ~((1u << first) - 1);
      for (int64_t p = 0, b0 = s0; p < passes; ++p) {
        const int nb = static_cast<int>((s1 - b0) / (passes - p));
        fn(TilePass{t0, rows, b0, nb, s0 == 0 && p == 0});
        b0 += nb;
      }
    }
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

}  // namespace ninfer::models::kernels
