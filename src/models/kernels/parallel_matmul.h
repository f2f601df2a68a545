// Matrix products of the forward pass spread over the thread pool by blocks of output rows. Several
// matrices that read the same input (q/k/v, gate/up) run as one pool job: one wake-up, one barrier.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "models/kernels/simd_kernels.h"
#include "models/kernels/thread_pool.h"
#include "models/tensor.h"

namespace ninfer::models::kernels {

struct MatmulTarget {
  const TensorView* w = nullptr;  // [rows, cols], cols = the input width
  float* y = nullptr;             // y[b*ldy + r]
  int64_t ldy = 0;
  bool accumulate = false;        // y += W x
};

constexpr size_t kMaxMatmulTargets = 4;  // targets of one parallel_matmul call

// The targets with their outputs moved down `rows` rows: for a product over x's rows from `rows` on.
// Throws std::invalid_argument past kMaxMatmulTargets targets.
std::array<MatmulTarget, kMaxMatmulTargets> targets_from_row(std::span<const MatmulTarget> targets, int64_t rows);

// For every target: y = W x over the `batch` rows of x (row stride ldx). Each weight matrix is read
// once for the whole batch. Rows [prompt_begin, batch) are prompt positions (MatmulArgs::prompt),
// the rows before them generated ones; prompt_begin < 0 or past the batch: none are prompts.
void parallel_matmul(ThreadPool& pool, const KernelTable& kernels, std::span<const MatmulTarget> targets,
                     const float* x, int64_t ldx, int64_t batch, int64_t prompt_begin = -1);

}  // namespace ninfer::models::kernels
