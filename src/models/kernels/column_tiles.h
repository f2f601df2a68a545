// F16 and BF16 matmuls over weights packed in column tiles (TensorView::column_tiles): a tile of 16
// weight rows holds each column's 16 values side by side, so one widened 512-bit vector of a column
// meets one activation broadcast from memory, and each of 16 outputs takes its FMA in its own lane: no
// horizontal sums, no accumulators parked between spans. Tiles lie in pairs, each column of a pair
// one 64-byte line, so that a pair is one sequential stream that feeds two independent chains per
// activation row; up to 8 activation rows a pass: a column costs 2 loads and conversions and 8
// broadcasts for 16 FMAs.
//
// What it computes, on every instruction set: per output, one fp32 chain of fused multiply-adds over
// the columns in order, from +0, then y = chain (or y + chain when accumulating). The order does not
// depend on the batch. (One activation row has two chains in flight: its pair's two tiles.)
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
