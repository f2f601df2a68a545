// Q8_0 matmuls over weights packed in lanes (TensorView::q8_lanes): a tile of 16 weight rows holds,
// per block, the rows' scales and then each 4-byte group of values for all 16 rows in one 512-bit
// vector, so that one vpdpbusd multiplies a group of 16 rows by the same 4 activations (a broadcast
// from memory) and a block's 8 of them leave each lane the whole block's integer dot product of its
// row. A block then costs one conversion, one scale product and one fused multiply-add per 16 rows
// and activation row, where the row-major layout's pair tiles pay those per 2 rows (q8_block_dot.h):
// the int8 products, not their bookkeeping, set the pace.
//
// What it computes, on every instruction set (the tile unit's sums, q8_block_dot.h):
//   block dot:    s = sum of the 32 products w[k] * q[k], exact in int32
//   accumulator:  one fp32 per output: acc = fma(d_w * d_x, float(s), acc) over the row's blocks in order
//   result:       y = acc, or y + acc when accumulating
// The weights are stored + 128 (unsigned, vpdpbusd's first operand) against the signed activations,
// so each lane starts from xc = -128 x the block's activation sum: sum (w + 128) q - 128 sum q =
// sum w q, exactly (|sum| <= 32 x 255 x 128 < 2^31).
#pragma once

#include <cstdint>

#include "models/kernels/simd_kernels.h"

namespace ninfer::models::kernels {

// xc for rows [b0, b1) of a batch quantised by quantize_q8 (q: row b at q + b * cols).
void q8_lane_corrections(const int8_t* q, int64_t cols, int64_t b0, int64_t b1, int32_t* xc);

// Rows [row_begin, row_end) of a matmul whose weights are MatmulArgs::w_lanes: the reference loops,
// for the instruction sets without int8 dot products (scalar, AVX2; xc unused).
void q8_lanes_matmul_rows_portable(const MatmulArgs& a, int64_t row_begin, int64_t row_end);

namespace avx512 {
// The same with vpdpbusd (AVX-512 VNNI), bit for bit.
void q8_lanes_matmul_rows(const MatmulArgs& a, int64_t row_begin, int64_t row_end);
}  // namespace avx512

}  // namespace ninfer::models::kernels
