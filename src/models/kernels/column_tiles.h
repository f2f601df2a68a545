// F16 and BF16 matmuls over weights packed in column tiles (TensorView::column_tiles): a tile of 16
// weight rows holds each column's 16 values side by side, so one widened 512-bit vector of a column
// meets one activation broadcast from memory, and each of 16 outputs takes its FMA in its own lane: no
// horizontal sums, no accumulators parked between spans, one sequential stream per tile. With up to 8
// activation rows per pass, a column pair costs 2 loads and conversions for 16 FMAs (prompt rows, in
// passes of 4 over pairs of tiles: 4 for 16, and half the activation broadcasts).
//
// What it computes, on every instruction set: per output, two fp32 chains of fused multiply-adds in
// column order, one over the even columns and one over the odd ones, from +0, then
// y = even + odd (or y + (even + odd) when accumulating). Two chains, so that one activation row
// (B=1 decode) is not held to one FMA's latency per column; the order does not depend on the batch.
#pragma once

#include <cstdint>

#include "models/kernels/simd_kernels.h"

namespace ninfer::models::kernels {

// Rows [row_begin, row_end) of a matmul whose weights are MatmulArgs::w_columns: the reference loops,
// for the instruction sets without their own (scalar, AVX2).
void column_tiles_matmul_rows_portable(const MatmulArgs& a, int64_t row_begin, int64_t row_end);

namespace avx512 {
// The same with 512-bit vectors, bit for bit.
void column_tiles_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end);
}  // namespace avx512

}  // namespace ninfer::models::kernels
