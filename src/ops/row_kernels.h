// The per-token loops of the sampling pipeline over a whole row (151,936 wide for Qwen3), written to
// vectorise: integer compares instead of float compares (GCC will not if-convert a possibly trapping
// float compare), and with GCC on x86-64 one build per instruction set picked at load time. Every
// clone runs the same IEEE operations in the same order (no contraction into FMA), so results are
// bit-identical whichever clone a CPU gets. Internal to ops.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ninfer::ops::detail {

struct RowScan {
  bool finite = true;  // no NaN or ±inf among the values
  float zmax = 0;      // +0.0 when the maximum is a zero of either sign
  float zmin = 0;
};

// n >= 1.
RowScan scan_row(const float* z, size_t n);

// Weights e[j] = exp((z[j] - zmax) * inv_t), zmax and zmin the row's extremes and inv_t > 0; the
// maximum weighs exactly 1 and weights below 2^-1022 are exactly 0.
void exp_weights(const float* z, size_t n, double zmax, double zmin, double inv_t, double* e);

// Weights are summed in blocks of this many tokens (four interleaved accumulators inside a block);
// the total is the sum of the block sums in order. The draw walks the same blocks.
inline constexpr size_t kWeightBlock = 256;

// blocks must hold ceil(n / kWeightBlock) values. Returns the total.
double block_sums(const double* e, size_t n, double* blocks);

// exp_weights then block_sums, bit for bit, without keeping the weights: each block's weights live
// in L1 from the exp to the sum. For a draw that needs only the weights of the block it lands in
// (exp_weights over that block gives them again, the same bits).
double exp_block_sums(const float* z, size_t n, double zmax, double zmin, double inv_t, double* blocks);

}  // namespace ninfer::ops::detail
