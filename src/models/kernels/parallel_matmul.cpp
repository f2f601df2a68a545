#include "models/kernels/parallel_matmul.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "models/dtype_convert.h"
#include "models/kernels/q8_lanes.h"

namespace ninfer::models::kernels {

namespace {

// Output rows per task: about 8 tasks per thread, so that a thread slowed down by something else on the
// machine is balanced by the others, but never fewer than 24 rows, so that claiming a task costs
// nothing next to its work. Big blocks also keep each thread's weight reads one long sequential
// stream, which is what the hardware prefetchers handle best. Batches of up to 16 rows (decode
// steps), whose cost is that stream, take 1 block per thread and target (row_tasks cuts the job's
// last blocks into halving pieces): every task starts a stream anew (cold lines, the prefetchers'
// ramp), and 8 made q8_0 decode on 2 threads of the AMX Xeon ~1 ms per step slower at B=1
// (28.0-28.7 against 27.2-27.3 ms) and 7% slower at B=8 (175-177 against 189 tok/s). 1 against 2
// on the Zen 5 EPYC, forward passes alternated one by one in one process (so that the memory's
// phase drifts alike for both; an A/A run of the same kind: within 0.4%), 200-400 of each, `bench
// decode --batch 1,4,8 --tokens 128`: q8_0 B=1 -0.7 to -1.6%, B=8 -0.1 to -2.1%; f16 B=1 -0.4 to
// -1.3%, B=8 -0.2 to -0.6%.
// Blocks are whole multiples of kRowGranule, so that the kernels' panels of 12 (8 for scalar) rows
// fill them with no short panel in the middle of a matrix (of 16 for Q8_0 on the tile unit, whose
// tiles are 16 rows: 24-row blocks made it compute 32; and for Q8_0 packed in lanes, whose tiles are
// 16 rows too).
constexpr int64_t kMinRowBlock = 24;
constexpr int64_t kRowGranule = 24;
constexpr int64_t kTasksPerThread = 8;
constexpr int64_t kStreamTasksPerThread = 1;
constexpr int64_t kStreamBatchMax = 16;
// Weight rows per task where a target runs two kernels over them (generated and prompt rows): 64 rows
// of 1,024 f16 columns are 128 KiB, still in L2 when the second kernel reads them.
constexpr int64_t kTwoKindRows = 64;

// Activations quantised for Q8_0 weights, kept per calling thread so that a forward pass allocates
// only while its batches grow.
struct QuantisedActivations {
  std::vector<int8_t> q;
  std::vector<float> d;
  std::vector<int8_t> q_tiles;  // the same for the tile unit (kQ8TileBlockBytes)
  std::vector<float> d_tiles;
  std::vector<uint8_t> xu;  // the same for the pair tiles (KernelTable::pack_q8_offsets), when `offsets`
  std::vector<float> xd2;
  bool offsets = false;
  std::vector<int32_t> xc;  // -128 x each block's sum, for weights packed in lanes (q8_lanes.h)
};

// Activations as bf16 parts for bf16 weights on the tile unit (kPairTileBlockValues), per calling thread.
struct Bf16Activations {
  std::vector<uint16_t> parts;
};

constexpr int64_t kTileGroup = 16;

// The rows of a batch in group g of kTileGroup (the last group may be short).
inline int64_t group_rows(int64_t batch, int64_t g) {
  return batch - g * kTileGroup < kTileGroup ? batch - g * kTileGroup : kTileGroup;
}

// Rows [g * 16, g * 16 + 16) of the quantised activations in the tile unit's layout.
void pack_tile_group(const int8_t* q, const float* d, int64_t batch, int64_t cols, int64_t g, int8_t* qt, float* dt) {
  const int64_t blocks = cols / kQ8BlockValues;
  const int64_t rows = group_rows(batch, g);
  int8_t* gq = qt + g * blocks * kQ8TileBlockBytes;
  float* gd = dt + g * blocks * kTileGroup;
  std::memset(gq, 0, static_cast<size_t>(blocks * kQ8TileBlockBytes));
  std::memset(gd, 0, static_cast<size_t>(blocks * kTileGroup) * sizeof(float));
  for (int64_t n = 0; n < rows; ++n) {
    const int8_t* row = q + (g * kTileGroup + n) * cols;
    const float* scales = d + (g * kTileGroup + n) * blocks;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      for (int l = 0; l < kQ8BlockValues / 4; ++l) {
        std::memcpy(gq + blk * kQ8TileBlockBytes + l * 64 + n * 4, row + blk * kQ8BlockValues + 4 * l, 4);
      }
      gd[blk * kTileGroup + n] = scales[blk];
    }
  }
}

// Below this many activations one thread quantises them: waking the pool would cost more.
constexpr int64_t kParallelQuantiseMin = int64_t{1} << 16;

// Runs fn(g0, g1) over groups [0, groups) of up to 16 activation rows: on this thread below
// kParallelQuantiseMin values (waking the pool would cost more), else in about 4 tasks per thread.
template <class Fn>
void over_groups(ThreadPool& pool, int64_t values, int64_t groups, const Fn& fn) {
  if (values < kParallelQuantiseMin || pool.size() == 1 || groups == 1) {
    fn(0, groups);
  } else {
    const int64_t tasks = groups < 4 * pool.size() ? groups : 4 * pool.size();
    pool.run(tasks, [&](int64_t t, int) { fn(groups * t / tasks, groups * (t + 1) / tasks); });
  }
}

// `row_major`, `lanes`: whether Q8_0 targets of each layout (w_lanes or not) are in the call.
const QuantisedActivations& quantise(ThreadPool& pool, const KernelTable& kernels, const float* x, int64_t ldx,
                                     int64_t batch, int64_t cols, bool row_major, bool lanes) {
  thread_local QuantisedActivations qa;
  const auto n = static_cast<size_t>(batch * cols);
  if (qa.q.size() < n) {
    qa.q.resize(n);
    qa.d.resize(n / kQ8BlockValues);
  }
  const int64_t groups = (batch + kTileGroup - 1) / kTileGroup;
  const auto tiled = static_cast<size_t>(groups * kTileGroup * cols);
  if (kernels.q8_tiles && qa.q_tiles.size() < tiled) {
    qa.q_tiles.resize(tiled);
    qa.d_tiles.resize(tiled / kQ8BlockValues);
  }
  // Batches that the panels take (kPanelMinBatch: 3 rows or more on every ISA) read the pair tiles' copy.
  const bool offsets = kernels.pack_q8_offsets != nullptr && batch >= 3 && row_major;
  qa.offsets = offsets;
  if (lanes && qa.xc.size() < n / kQ8BlockValues) qa.xc.resize(n / kQ8BlockValues);
  if (offsets && qa.xd2.size() < 2 * n / kQ8BlockValues + KernelTable::kQ8OffsetScalePad) {
    qa.xd2.resize(2 * n / kQ8BlockValues + KernelTable::kQ8OffsetScalePad);
    qa.xu.resize(n / kQ8BlockValues * KernelTable::kQ8OffsetBlockBytes);
  }
  // Plain pointers: inside the lambda, `qa` would name each pool thread's own instance.
  int8_t* q = qa.q.data();
  float* d = qa.d.data();
  int8_t* qt = qa.q_tiles.data();
  float* dt = qa.d_tiles.data();
  uint8_t* xu = qa.xu.data();
  float* xd2 = qa.xd2.data();
  int32_t* xc = qa.xc.data();
  // Whole groups of 16 rows per task, so that a task packs the groups it quantised.
  auto groups_of = [&](int64_t g0, int64_t g1) {
    const int64_t b1 = g1 * kTileGroup < batch ? g1 * kTileGroup : batch;
    for (int64_t b = g0 * kTileGroup; b < b1; ++b) {
      kernels.quantize_q8(x + b * ldx, cols, q + b * cols, d + b * (cols / kQ8BlockValues));
    }
    if (kernels.q8_tiles) {
      for (int64_t g = g0; g < g1; ++g) pack_tile_group(q, d, batch, cols, g, qt, dt);
    }
    if (offsets) kernels.pack_q8_offsets(q, d, batch, cols, g0 * kTileGroup, b1, xu, xd2);
    if (lanes) q8_lane_corrections(q, cols, g0 * kTileGroup, b1, xc);
  };
  over_groups(pool, batch * cols, groups, groups_of);
  return qa;
}

const Bf16Activations& pack_bf16(ThreadPool& pool, const KernelTable& kernels, const float* x, int64_t ldx,
                                  int64_t batch, int64_t cols) {
  thread_local Bf16Activations ba;
  const int64_t groups = (batch + kTileGroup - 1) / kTileGroup;
  const int64_t per_group = cols / 32 * kBf16Parts * kPairTileBlockValues;
  const auto n = static_cast<size_t>(groups * per_group);
  if (ba.parts.size() < n) ba.parts.resize(n);
  uint16_t* parts = ba.parts.data();
  auto groups_of = [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) {
      kernels.pack_bf16_parts(x + g * kTileGroup * ldx, ldx, group_rows(batch, g), cols, parts + g * per_group);
    }
  };
  over_groups(pool, batch * cols, groups, groups_of);
  return ba;
}

// x's rows packed for the F32/F16/BF16 panels (KernelTable::pack_panel_rows), once for every task of
// a matmul: packed by each task, the copy was repeated in every one, and a worker's own buffer grew
// whenever it first met a larger batch (an allocation in a steady decode step).
const float* pack_panel_rows(ThreadPool& pool, const KernelTable& kernels, const float* x, int64_t ldx,
                             int64_t batch, int64_t cols) {
  thread_local std::vector<float> buffer;
  const auto need = static_cast<size_t>(batch * cols) + 64 / sizeof(float);
  if (buffer.size() < need) buffer.resize(need);
  float* out = line_aligned(buffer.data());
  over_groups(pool, batch * cols, KernelTable::panel_slices(batch),
              [&](int64_t s0, int64_t s1) { kernels.pack_panel_rows(x, ldx, batch, cols, s0, s1, out); });
  return out;
}

int64_t row_block(int64_t rows, int threads, int64_t granule, int64_t batch) {
  const int64_t tasks = threads * (batch <= kStreamBatchMax ? kStreamTasksPerThread : kTasksPerThread);
  const int64_t per = (rows + tasks - 1) / tasks;
  const int64_t rounded = (per + granule - 1) / granule * granule;
  const int64_t least = (kMinRowBlock + granule - 1) / granule * granule;
  return rounded < least ? least : rounded;
}

// One task of a matmul job: rows [begin, end) of a target.
struct RowTask {
  size_t target;
  int64_t begin, end;
};

// The job's tasks: each target's rows in blocks, targets in order. A decode batch's blocks are
// long (kStreamTasksPerThread) and the pool hands them out in order, so whichever thread ran
// behind (started later, or slowed down by something else on the machine) left the other
// waiting for its last block at every matmul: 7-18 us a job, 1-2.5 ms of a q8_0 B=1 step on 2
// threads of the Zen 5 EPYC. So the job's last `threads` blocks are cut into halving pieces (a
// half, a quarter, ... down to one granule), handed out largest first across those blocks, so
// that the threads finish within the smallest piece of each other while the pieces stay few.
// - Quarters at first: B=1 forward 15.5 -> 14.2 ms, B=8 23.1 -> 22.3 ms (medians of 8 alternated
//   runs). They still left the caller waiting ~2-6 us at each of a step's matmuls (half a
//   quarter: 200 KiB of q8_0 weights for gate_up), ~2.5% of a B=1 step.
// - Halving pieces instead (q8_0 `bench decode --batch 1,8 --tokens 64`, 30 alternated pairs):
//   B=1 forward 14.57 -> 14.20 ms (faster in 21 of 30), B=8 20.37 -> 19.88 ms (19 of 30).
// A row's arithmetic does not depend on its task.
const std::vector<RowTask>& row_tasks(std::span<const MatmulTarget> targets,
                                      const std::array<int64_t, kMaxMatmulTargets>& block,
                                      const std::array<int64_t, kMaxMatmulTargets>& granule, int threads,
                                      bool stream) {
  thread_local std::vector<RowTask> tasks;
  tasks.clear();
  for (size_t i = 0; i < targets.size(); ++i) {
    const int64_t rows = targets[i].w->rows();
    for (int64_t b = 0; b < rows; b += block[i]) tasks.push_back({i, b, std::min(rows, b + block[i])});
  }
  if (!stream || threads == 1) return tasks;
  // The tail blocks' rows still to cut stay at their own places; each round takes the first half
  // (in whole granules) of every one, so that the pieces come largest first without a sort.
  const size_t tail = std::min(tasks.size(), static_cast<size_t>(threads));
  const size_t kept = tasks.size() - tail;
  for (bool cut = true; cut;) {
    cut = false;
    for (size_t k = kept; k < kept + tail; ++k) {
      const RowTask rest = tasks[k];  // (a copy: the push below may move the vector)
      if (rest.begin == rest.end) continue;
      const int64_t g = granule[rest.target], units = (rest.end - rest.begin + g - 1) / g;
      const int64_t end = units <= 1 ? rest.end : rest.begin + (units + 1) / 2 * g;  // (< rest.end)
      tasks.push_back({rest.target, rest.begin, end});
      tasks[k].begin = end;
      cut = true;
    }
  }
  tasks.erase(tasks.begin() + static_cast<std::ptrdiff_t>(kept), tasks.begin() + static_cast<std::ptrdiff_t>(kept + tail));
  return tasks;
}

}  // namespace

std::array<MatmulTarget, kMaxMatmulTargets> targets_from_row(std::span<const MatmulTarget> targets, int64_t rows) {
  if (targets.size() > kMaxMatmulTargets) throw std::invalid_argument("parallel_matmul: too many targets");
  std::array<MatmulTarget, kMaxMatmulTargets> out{};
  for (size_t i = 0; i < targets.size(); ++i) {
    out[i] = targets[i];
    out[i].y += rows * out[i].ldy;
  }
  return out;
}

void parallel_matmul(ThreadPool& pool, const KernelTable& kernels, std::span<const MatmulTarget> targets,
                     const float* x, int64_t ldx, int64_t batch, int64_t prompt_begin) {
  if (batch <= 0 || targets.empty()) return;
  if (targets.size() > kMaxMatmulTargets) throw std::invalid_argument("parallel_matmul: too many targets");
  if (prompt_begin < 0 || prompt_begin > batch) prompt_begin = batch;
  // F16 weights of prompt rows on the tile unit (KernelTable::prompt_f16_tiles) take their own kernel:
  // a target of those whose batch holds both kinds is two products, generated rows [0, prompt_begin)
  // and prompt rows [prompt_begin, batch), run one after the other on each block of weight rows, so
  // that the block is read from memory once for both.
  auto by_kind = [&](DType dtype) { return kernels.matmul_by_kind(dtype); };
  // Targets whose kernels read x as bf16 parts: BF16 weights on the tile unit (every row), and F16
  // ones by kind (prompt rows).
  auto bf16_parts = [&](DType dtype) { return dtype == DType::BF16 && kernels.pack_bf16_parts != nullptr; };
  auto reads_parts = [&](DType dtype) { return bf16_parts(dtype) || by_kind(dtype); };
  const int64_t generated = prompt_begin, prompts = batch - prompt_begin;
  bool bf16 = false, f16_kinds = false;
  for (const MatmulTarget& t : targets) {
    bf16 |= bf16_parts(t.w->dtype);
    f16_kinds |= by_kind(t.w->dtype);
  }
  if (bf16 && f16_kinds && generated > 0 && prompts > 0) {
    // One pass of x's parts cannot serve both BF16 targets (every row) and F16 ones (prompt rows
    // alone): each kind of row on its own.
    const auto shifted = targets_from_row(targets, generated);
    parallel_matmul(pool, kernels, targets, x, ldx, generated, -1);
    parallel_matmul(pool, kernels, std::span(shifted.data(), targets.size()), x + generated * ldx, ldx, prompts, 0);
    return;
  }
  std::array<MatmulArgs, kMaxMatmulTargets> args{}, prompt_args{};
  std::array<bool, kMaxMatmulTargets> two{};  // args: generated rows, prompt_args: prompt rows
  std::array<int64_t, kMaxMatmulTargets> block{}, granule{};
  for (size_t i = 0; i < targets.size(); ++i) {
    const TensorView& w = *targets[i].w;
    MatmulArgs& a = args[i];
    a.dtype = w.dtype;
    a.w = static_cast<const uint8_t*>(w.data);
    a.w_row_bytes = row_bytes(w.dtype, w.cols());
    a.w_tiles = w.q8_tiles;
    a.w_lanes = w.q8_lanes;
    a.w_columns = w.column_tiles;
    a.w_rows = w.rows();
    if (w.q8_tiles && !kernels.q8_weight_tiles) {
      throw std::invalid_argument(std::string("parallel_matmul: ") + w.name + " is packed for the tile unit, which the " +
                                  isa_name(kernels.isa) + " kernels do not read");
    }
    a.cols = w.cols();
    a.x = x;
    a.ldx = ldx;
    a.batch = batch;
    a.y = targets[i].y;
    a.ldy = targets[i].ldy;
    a.accumulate = targets[i].accumulate;
    const bool kinds = by_kind(w.dtype) && !w.column_tiles;  // (column tiles: one kernel for both kinds)
    a.prompt = kinds && generated == 0;
    two[i] = kinds && generated > 0 && prompts > 0;
    if (two[i]) {
      a.batch = generated;
      MatmulArgs& p = prompt_args[i];
      p = a;
      p.prompt = true;
      p.x = x + generated * ldx;
      p.y = a.y + generated * a.ldy;
      p.batch = prompts;
    }
    const bool tile_kernel = w.dtype == DType::BF16 || a.prompt || two[i];
    const bool tiles = (w.dtype == DType::Q8_0 && (kernels.q8_tiles || w.q8_lanes)) || w.column_tiles ||
                       (reads_parts(w.dtype) && tile_kernel);
    // Column tiles and Q8_0 lanes go in pairs of tiles (row_tile_passes.h): blocks of whole pairs.
    granule[i] = w.column_tiles || w.q8_lanes ? 2 * kTileGroup : tiles ? kTileGroup : kRowGranule;
    block[i] = row_block(w.rows(), pool.size(), granule[i], batch);
    // Both kinds: blocks small enough that the second kernel finds the weights in L2.
    if (two[i]) block[i] = std::min(block[i], kTwoKindRows);
  }
  const size_t n = targets.size();
  // The width of the targets of one kind, which read x converted once for all of them (0: none).
  auto shared_cols = [&](auto&& of_kind) {
    int64_t cols = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!of_kind(i)) continue;
      if (cols != 0 && args[i].cols != cols) {
        throw std::invalid_argument("parallel_matmul: targets of different widths");
      }
      cols = args[i].cols;
    }
    return cols;
  };
  // Q8_0 targets read x quantised (row_bytes above has checked their widths are whole blocks).
  const int64_t q8_cols = shared_cols([&](size_t i) { return args[i].dtype == DType::Q8_0; });
  if (q8_cols != 0) {
    bool row_major = false, lanes = false;
    for (size_t i = 0; i < n; ++i) {
      if (args[i].dtype != DType::Q8_0) continue;
      (args[i].w_lanes ? lanes : row_major) = true;
    }
    const QuantisedActivations& qa = quantise(pool, kernels, x, ldx, batch, q8_cols, row_major, lanes);
    for (size_t i = 0; i < n; ++i) {
      if (args[i].dtype != DType::Q8_0) continue;
      args[i].xq = qa.q.data();
      args[i].xd = qa.d.data();
      args[i].xq_tiles = qa.q_tiles.data();
      args[i].xd_tiles = qa.d_tiles.data();
      if (qa.offsets) {
        args[i].xu = qa.xu.data();
        args[i].xd2 = qa.xd2.data();
      }
      if (args[i].w_lanes) args[i].xc = qa.xc.data();
    }
  }
  // BF16 targets on the tile unit read x as bf16 parts, F16 ones those of the prompt rows alone.
  const int64_t parts_cols = shared_cols([&](size_t i) {
    return bf16_parts(args[i].dtype) || (by_kind(args[i].dtype) && prompts > 0);
  });
  if (parts_cols >= 32) {
    const int64_t from = bf16 ? 0 : generated;
    const Bf16Activations& ba = pack_bf16(pool, kernels, x + from * ldx, ldx, batch - from, parts_cols);
    for (size_t i = 0; i < n; ++i) {
      if (!reads_parts(args[i].dtype)) continue;
      (two[i] ? prompt_args[i] : args[i]).xb_tiles = ba.parts.data();
    }
  }
  // F32/F16/BF16 targets that the panels take (row-major weights, one kind of row, fp32 x).
  auto reads_panel_rows = [&](size_t i) {
    const MatmulArgs& a = args[i];
    return a.dtype != DType::Q8_0 && !a.w_columns && !a.prompt && !two[i] && !bf16_parts(a.dtype);
  };
  const int64_t panel_cols = shared_cols(reads_panel_rows);
  if (panel_cols != 0 && kernels.pack_panel_rows != nullptr && batch >= KernelTable::kPanelMinBatch) {
    const float* xp = pack_panel_rows(pool, kernels, x, ldx, batch, panel_cols);
    for (size_t i = 0; i < n; ++i) {
      if (reads_panel_rows(i)) args[i].xp = xp;
    }
  }
  const std::vector<RowTask>& tasks = row_tasks(targets, block, granule, pool.size(), batch <= kStreamBatchMax);
  pool.run(static_cast<int64_t>(tasks.size()), [&](int64_t task, int) {
    const RowTask& t = tasks[static_cast<size_t>(task)];
    kernels.matmul_rows(args[t.target], t.begin, t.end);
    if (two[t.target]) kernels.matmul_rows(prompt_args[t.target], t.begin, t.end);
  });
}

}  // namespace ninfer::models::kernels
