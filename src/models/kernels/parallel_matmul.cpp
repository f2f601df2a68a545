#include "models/kernels/parallel_matmul.h"

#include <array>
#include <stdexcept>
#include <vector>

#include "models/dtype_convert.h"

namespace ninfer::models::kernels {

namespace {

// Output rows per task: about 8 tasks per thread, so that a thread slowed down by something else on the
// machine is balanced by the others, but never fewer than 24 rows, so that claiming a task costs
// nothing next to its work. Big blocks also keep each thread's weight reads one long sequential
// stream, which is what the hardware prefetchers handle best.
// Blocks are whole multiples of kRowGranule, so that the kernels' panels of 12 (8 for scalar) rows
// fill them with no short panel in the middle of a matrix.
constexpr int64_t kMinRowBlock = 24;
constexpr int64_t kRowGranule = 24;
constexpr int64_t kTasksPerThread = 8;
constexpr size_t kMaxTargets = 4;

// Activations quantised for Q8_0 weights, kept per calling thread so that a forward pass allocates
// only while its batches grow.
struct QuantisedActivations {
  std::vector<int8_t> q;
  std::vector<float> d;
};

// Below this many activations one thread quantises them: waking the pool would cost more.
constexpr int64_t kParallelQuantiseMin = int64_t{1} << 16;

const QuantisedActivations& quantise(ThreadPool& pool, const KernelTable& kernels, const float* x, int64_t ldx,
                                     int64_t batch, int64_t cols) {
  thread_local QuantisedActivations qa;
  const auto n = static_cast<size_t>(batch * cols);
  if (qa.q.size() < n) {
    qa.q.resize(n);
    qa.d.resize(n / kQ8BlockValues);
  }
  // Plain pointers: inside the lambda, `qa` would name each pool thread's own instance.
  int8_t* q = qa.q.data();
  float* d = qa.d.data();
  auto rows = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      kernels.quantize_q8(x + b * ldx, cols, q + b * cols, d + b * (cols / kQ8BlockValues));
    }
  };
  if (batch * cols < kParallelQuantiseMin || pool.size() == 1) {
    rows(0, batch);
  } else {
    const int64_t tasks = batch < 4 * pool.size() ? batch : 4 * pool.size();
    pool.run(tasks, [&](int64_t t, int) { rows(batch * t / tasks, batch * (t + 1) / tasks); });
  }
  return qa;
}

int64_t row_block(int64_t rows, int threads) {
  const int64_t per = (rows + threads * kTasksPerThread - 1) / (threads * kTasksPerThread);
  const int64_t rounded = (per + kRowGranule - 1) / kRowGranule * kRowGranule;
  return rounded < kMinRowBlock ? kMinRowBlock : rounded;
}

}  // namespace

void parallel_matmul(ThreadPool& pool, const KernelTable& kernels, std::span<const MatmulTarget> targets,
                     const float* x, int64_t ldx, int64_t batch) {
  if (batch <= 0 || targets.empty()) return;
  if (targets.size() > kMaxTargets) throw std::invalid_argument("parallel_matmul: too many targets");
  std::array<MatmulArgs, kMaxTargets> args{};
  std::array<int64_t, kMaxTargets + 1> first_task{};
  std::array<int64_t, kMaxTargets> block{};
  for (size_t i = 0; i < targets.size(); ++i) {
    const TensorView& w = *targets[i].w;
    MatmulArgs& a = args[i];
    a.dtype = w.dtype;
    a.w = static_cast<const uint8_t*>(w.data);
    a.w_row_bytes = row_bytes(w.dtype, w.cols());
    a.cols = w.cols();
    a.x = x;
    a.ldx = ldx;
    a.batch = batch;
    a.y = targets[i].y;
    a.ldy = targets[i].ldy;
    a.accumulate = targets[i].accumulate;
    block[i] = row_block(w.rows(), pool.size());
    first_task[i + 1] = first_task[i] + (w.rows() + block[i] - 1) / block[i];
  }
  const size_t n = targets.size();
  // Q8_0 targets read x quantised, once for all of them (row_bytes above has checked their widths
  // are whole blocks).
  int64_t q8_cols = 0;
  for (size_t i = 0; i < n; ++i) {
    if (args[i].dtype != DType::Q8_0) continue;
    if (q8_cols != 0 && args[i].cols != q8_cols) throw std::invalid_argument("parallel_matmul: targets of different widths");
    q8_cols = args[i].cols;
  }
  if (q8_cols != 0) {
    const QuantisedActivations& qa = quantise(pool, kernels, x, ldx, batch, q8_cols);
    for (size_t i = 0; i < n; ++i) {
      if (args[i].dtype != DType::Q8_0) continue;
      args[i].xq = qa.q.data();
      args[i].xd = qa.d.data();
    }
  }
  pool.run(first_task[n], [&](int64_t task, int) {
    size_t i = 0;
    while (task >= first_task[i + 1]) ++i;
    const int64_t rows = targets[i].w->rows();
    const int64_t begin = (task - first_task[i]) * block[i];
    const int64_t end = begin + block[i] < rows ? begin + block[i] : rows;
    kernels.matmul_rows(args[i], begin, end);
  });
}

}  // namespace ninfer::models::kernels
