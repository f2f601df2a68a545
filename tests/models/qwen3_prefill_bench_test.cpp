// Prompt-processing timing of a real checkpoint (not a unit test: run with
// --gtest_also_run_disabled_tests --gtest_filter='Qwen3PrefillBench.*'):
//   NINFER_BENCH_MODEL=file.gguf   default: the 0.6b F16 GGUF under /work/main/.cache/bench-models
//   NINFER_BENCH_TOKENS=512,2048   prompt lengths
//   NINFER_BENCH_THREADS=1,2       thread counts
//   NINFER_BENCH_REPEATS=3         forwards per length; the median is printed
// Each forward prefills the whole prompt into an empty slot and asks for one row of logits, after one
// untimed warm-up forward (the mapped weights paged in). Beside the wall time it prints the process
// CPU time: on a shared machine that is the steadier figure at one thread.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "cli/read_loop.h"
#include "models/dtype_convert.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/parallel_matmul.h"
#include "models/kernels/simd_kernels.h"
#include "models/kernels/thread_pool.h"
#include "models/qwen3/qwen3_loader.h"
#include "models/qwen3/qwen3_model.h"
#include "models/tensor.h"
#include "random_weights.h"

namespace ninfer::models::testing {
namespace {

std::vector<int> int_list(const char* env, std::vector<int> fallback) {
  const char* s = std::getenv(env);
  if (!s || !*s) return fallback;
  std::vector<int> out;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    out.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p) break;
  }
  return out;
}

TEST(Qwen3PrefillBench, DISABLED_PromptTokensPerSecond) {
  const char* path = std::getenv("NINFER_BENCH_MODEL");
  const std::string model = path ? path : "/work/main/.cache/bench-models/qwen3-0.6b-s1-f16.gguf";
  const std::vector<int> lengths = int_list("NINFER_BENCH_TOKENS", {512, 2048});
  const std::vector<int> threads = int_list("NINFER_BENCH_THREADS", {1, 2});
  const int repeats = std::max(1, int_list("NINFER_BENCH_REPEATS", {3}).front());
  const auto weights = qwen3::load_gguf_weights(model);
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  for (int t : threads) {
    qwen3::Qwen3ModelOptions o;
    o.max_context = longest;
    o.threads = t;
    qwen3::Qwen3Model m(weights, o);
    std::vector<float> logits(static_cast<size_t>(m.vocab_size()));
    {
      const std::vector<int32_t> warm(64, 1);
      const ForwardRow row{0, warm, 1, true};
      m.forward(std::span(&row, 1), logits);
    }
    auto cpu_ms = [] {
      timespec ts;
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
      return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
    };
    for (int n : lengths) {
      std::vector<int32_t> prompt(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) prompt[i] = (i * 7919 + 13) % m.vocab_size();
      std::vector<double> ms, cpu;
      for (int r = 0; r < repeats; ++r) {
        m.truncate_slot(0, 0);
        const ForwardRow row{0, prompt, 1, true};
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_ms();
        m.forward(std::span(&row, 1), logits);
        cpu.push_back(cpu_ms() - c0);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      std::sort(cpu.begin(), cpu.end());
      const double med = ms[ms.size() / 2];
      std::printf(
          "{\"isa\": \"%s\", \"threads\": %d, \"tokens\": %d, \"median_ms\": %.0f, \"tokens_per_s\": %.1f, "
          "\"median_cpu_ms\": %.0f}\n",
          kernels::isa_name(m.isa()), m.threads(), n, med, 1000.0 * n / med, cpu[cpu.size() / 2]);
      std::fflush(stdout);
    }
  }
}

// The attention kernel alone on the 0.6b shape (16 query heads, 8 KV heads of 128): one layer's
// attention for a chunk of 128 prompt positions ending at each context length, on one thread.
//   NINFER_BENCH_CONTEXTS=512,2048,8192
//   NINFER_BENCH_BLOCK_ROWS: positions per call; by default the model's blocks of prompt positions
//     (KernelTable::prompt_attention_queries / 2: 128 on AVX-512), and 16 with NINFER_BENCH_GENERATED
//   NINFER_BENCH_GENERATED=1: the kernel of generated positions (decode rows), not of prompts
//   NINFER_BENCH_BF16=1: the bf16 prompt kernel (kernels::bf16_prompt_attention), where this CPU has it
//   NINFER_BENCH_INT8=1: the same with int8 scores (kernels::int8_score_prompt_attention)
TEST(Qwen3PrefillBench, DISABLED_AttentionKernel) {
  const int64_t heads = 16, kv_heads = 8, dim = 128, chunk = 128, group = heads / kv_heads;
  const int64_t kvdim = kv_heads * dim, qdim = heads * dim;
  const kernels::KernelTable& kt = kernels::best_kernels();
  const bool prompt = std::getenv("NINFER_BENCH_GENERATED") == nullptr;
  const bool bf16 = prompt && std::getenv("NINFER_BENCH_BF16") != nullptr;
  const bool int8 = prompt && std::getenv("NINFER_BENCH_INT8") != nullptr;
  auto* kernel = int8   ? kernels::int8_score_prompt_attention(kt.isa)
                 : bf16 ? kernels::bf16_prompt_attention(kt.isa)
                        : kt.attention(prompt);
  ASSERT_NE(kernel, nullptr) << "no bf16 prompt attention on this CPU";
  const int64_t block =
      int_list("NINFER_BENCH_BLOCK_ROWS", {prompt ? static_cast<int>(kt.prompt_attention_queries / group) : 16}).front();
  for (int ctx : int_list("NINFER_BENCH_CONTEXTS", {512, 2048, 8192})) {
    const size_t kv_floats = static_cast<size_t>(ctx * kvdim);
    uint16_t* k = nullptr;  // f16, as the cache holds them
    uint16_t* v = nullptr;
    const size_t bytes = (kv_floats * 2 + (2u << 20) - 1) / (2u << 20) * (2u << 20);
    ASSERT_EQ(posix_memalign(reinterpret_cast<void**>(&k), 2u << 20, bytes), 0);
    ASSERT_EQ(posix_memalign(reinterpret_cast<void**>(&v), 2u << 20, bytes), 0);
    if (std::getenv("NINFER_BENCH_HUGE")) {
      madvise(k, bytes, MADV_HUGEPAGE);
      madvise(v, bytes, MADV_HUGEPAGE);
    }
    std::vector<float> q(static_cast<size_t>(chunk * qdim)), out(q.size());
    for (size_t i = 0; i < kv_floats; ++i) {
      k[i] = f32_to_f16(static_cast<float>((i * 2654435761u) % 1000) * 1e-3f - 0.5f);
      v[i] = f32_to_f16(static_cast<float>((i * 40503u) % 1000) * 1e-3f - 0.5f);
    }
    for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>((i * 69069u) % 1000) * 1e-3f - 0.5f;
    std::vector<float> scratch(static_cast<size_t>(kernels::causal_attention_scratch_floats(block, group, dim)));
    auto layer = [&] {
      for (int64_t b = 0; b < chunk; b += block) {
        for (int64_t g = 0; g < kv_heads; ++g) {
          kernels::CausalAttentionArgs a;
          a.q = q.data() + b * qdim + g * group * dim;
          a.q_stride = qdim;
          // The cache's layout (KvCache): blocks of T positions, by head within a block; keys
          // transposed ([dim][T]), values as rows ([T][dim]).
          a.k = k + g * dim * kernels::kAttentionKeyTile;
          a.k_block_stride = kvdim * kernels::kAttentionKeyTile;
          a.v = v + g * dim * kernels::kAttentionKeyTile;
          a.v_block_stride = kvdim * kernels::kAttentionKeyTile;
          a.v_stride = dim;
          a.out = out.data() + b * qdim + g * group * dim;
          a.out_stride = qdim;
          a.pos0 = ctx - chunk + b;
          a.rows = std::min(block, chunk - b);
          a.heads = group;
          a.dim = dim;
          a.scale = 0.088f;
          a.scratch = scratch.data();
          kernel(a);
        }
      }
    };
    layer();
    // Thread CPU time: the machines this runs on are shared, and this is one thread's work.
    auto thread_ms = [] {
      timespec ts;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
    };
    std::vector<double> ms;
    for (int r = 0; r < 5; ++r) {
      const double t0 = thread_ms();
      layer();
      ms.push_back(thread_ms() - t0);
    }
    std::free(k);
    std::free(v);
    std::sort(ms.begin(), ms.end());
    // Multiply-adds the causal mask needs: q.k and p.v over the keys each position sees.
    const double flops = 4.0 * dim * heads * (chunk * (ctx - chunk) + chunk * (chunk + 1) / 2.0);
    std::printf("{\"isa\": \"%s\", \"rows\": \"%s\", \"products\": \"%s\", \"context\": %d, \"block_rows\": %ld, \"us_per_token_layer\": %.1f, \"gflops\": %.1f}\n",
                kernels::isa_name(kt.isa), prompt ? "prompt" : "generated", int8 ? "int8 scores" : bf16 ? "bf16" : "exact", ctx, static_cast<long>(block),
                1000.0 * ms[2] / chunk, flops / ms[2] * 1e-6);
  }
}


// A rows x cols matrix of deterministic values in `dtype`, packed as this machine's kernels read it
// (Q8_0 in lanes, F16 in column tiles, where they do): its bytes in `bytes`, which it points into.
TensorView bench_matrix(qwen3::Qwen3Weights& owner, const kernels::KernelTable& kt, int64_t rows, int64_t cols,
                        DType dtype, std::vector<uint8_t>& bytes) {
  std::vector<float> wv(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 2654435761u) % 1000) * 2e-3f - 1.0f;
  TensorView w = make_tensor(owner, "w", {rows, cols}, dtype, wv);
  bytes.assign(static_cast<const uint8_t*>(w.data), static_cast<const uint8_t*>(w.data) + w.bytes);
  w.data = bytes.data();
  if (dtype == DType::Q8_0 && kt.packing.q8 == Q8Packing::Lanes) pack_q8_lanes(w, bytes.data());
  if (dtype == DType::F16 && kt.packing.column_tiles) pack_column_tiles(w, bytes.data());
  return w;
}

// The Q8_0 matmul alone on the 0.6b MLP's shapes (gate or up: 3,072 x 1,024; down: 1,024 x 3,072),
// its weights packed as load_model packs them where AVX-512 runs (in lanes), on one thread, for
// batches of activation rows (decode batches and a prompt's slices). The 3.3 MB matrix stays in L3
// between repeats: this is the arithmetic's pace, not memory's.
//   NINFER_BENCH_BATCH=1,8,64
TEST(Qwen3PrefillBench, DISABLED_Q8LanesMatmul) {
  const kernels::KernelTable& kt = kernels::best_kernels();
  kernels::ThreadPool one(1);
  qwen3::Qwen3Weights owner;
  for (const auto& shape : {std::pair<int64_t, int64_t>{3072, 1024}, {1024, 3072}}) {
    const int64_t rows = shape.first, cols = shape.second;  // (lambdas below capture them)
    const bool lanes = kt.packing.q8 == Q8Packing::Lanes;
    std::vector<uint8_t> packed;
    const TensorView w = bench_matrix(owner, kt, rows, cols, DType::Q8_0, packed);
    for (int batch : int_list("NINFER_BENCH_BATCH", {1, 8, 64})) {
      std::vector<float> x(static_cast<size_t>(batch * cols)), y(static_cast<size_t>(batch * rows));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 69069u) % 1000) * 1e-3f - 0.5f;
      const kernels::MatmulTarget t[] = {{&w, y.data(), rows, false}};
      auto run = [&] { kernels::parallel_matmul(one, kt, t, x.data(), cols, batch); };
      run();
      auto thread_ns = [] {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return ts.tv_sec * 1e9 + static_cast<double>(ts.tv_nsec);
      };
      std::vector<double> ns;
      for (int r = 0; r < 25; ++r) {
        const double t0 = thread_ns();
        run();
        ns.push_back(thread_ns() - t0);
      }
      std::sort(ns.begin(), ns.end());
      const double med = ns[ns.size() / 2];
      // Per 16 weight rows x 32 columns x batch rows: the unit the lanes kernel's cost is counted in.
      const double tile_blocks = static_cast<double>(rows / 16) * static_cast<double>(cols / 32);
      std::printf("{\"isa\": \"%s\", \"lanes\": %s, \"rows\": %ld, \"cols\": %ld, \"batch\": %d, \"us\": %.1f, "
                  "\"ns_per_tile_block\": %.2f, \"gop_per_s\": %.1f}\n",
                  kernels::isa_name(kt.isa), lanes ? "true" : "false", static_cast<long>(rows), static_cast<long>(cols),
                  batch, med * 1e-3, med / tile_blocks, 2.0 * static_cast<double>(rows * cols) * batch / med);
      std::fflush(stdout);
    }
  }
}

// Decode batches' matmuls from memory: copies of a packed matrix (NINFER_BENCH_ROWS x _COLS, default
// 3,072 x 1,024, the 0.6b shape's gate; Q8_0, or F16 with NINFER_BENCH_DTYPE=f16) filling ~640 MB,
// as a decode step reads the 0.6b model's q8_0 weights, each multiplied in turn over a pool of
// NINFER_BENCH_THREADS (default 2). NINFER_BENCH_MEGABYTES (default 640) sets the copies' total: a
// size within the caches shows the products' own rate, without the stream.
// Prints ms per pass over all copies and the weight stream's GB/s for batches NINFER_BENCH_BATCH
// (default 0, 1, 2, 4, 8; 0 is a plain read of the copies): B=8 against B=1 shows how much of the
// batch's products the weight stream hides (q8_lanes_avx512.cpp, column_tiles_avx512.cpp), and B=1
// against the read how near its stream runs to the memory's.
TEST(Qwen3PrefillBench, DISABLED_DecodeMatmulFromMemory) {
  const kernels::KernelTable& kt = kernels::best_kernels();
  const int threads = int_list("NINFER_BENCH_THREADS", {2}).front();
  kernels::ThreadPool pool(threads);
  qwen3::Qwen3Weights owner;
  const int64_t rows = int_list("NINFER_BENCH_ROWS", {3072}).front(), cols = int_list("NINFER_BENCH_COLS", {1024}).front();
  const char* dtype_env = std::getenv("NINFER_BENCH_DTYPE");
  const bool f16 = dtype_env != nullptr && std::string(dtype_env) == "f16";
  std::vector<uint8_t> one;
  const TensorView w = bench_matrix(owner, kt, rows, cols, f16 ? DType::F16 : DType::Q8_0, one);
  const size_t bytes = w.bytes;
  const size_t megabytes = static_cast<size_t>(int_list("NINFER_BENCH_MEGABYTES", {640}).front());
  const size_t copies = std::max<size_t>(1, (megabytes << 20) / bytes);
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t span = (bytes * copies + kHuge - 1) / kHuge * kHuge;
  void* mem = std::aligned_alloc(kHuge, span);
  ASSERT_NE(mem, nullptr);
  madvise(mem, span, MADV_HUGEPAGE);  // as the model's weights (Residency::HugePages)
  std::vector<TensorView> ws(copies, w);
  for (size_t c = 0; c < copies; ++c) {
    ws[c].data = static_cast<uint8_t*>(mem) + c * bytes;
    std::memcpy(static_cast<uint8_t*>(mem) + c * bytes, one.data(), bytes);
  }
  // One pass over every copy with fn(copy); a matrix within the caches is passed over ~64 times.
  const int passes = static_cast<int>(std::max<size_t>(1, 64 / copies));
  auto median_ms = [&](auto&& fn) {
    std::vector<double> ms;
    for (int r = 0; r < 9; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int p = 0; p < passes; ++p) {
        for (const TensorView& m : ws) fn(m);
      }
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / passes);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  // The read loop over the same copies in 2 tasks a thread (as the decode matmuls split them until 2026-12-06):
  // the stream's own rate, at the same moment and over the same pages as the matmuls.
  uint64_t sink = 0;
  auto read = [&](const TensorView& m) {
    const auto tasks = static_cast<size_t>(2 * pool.size());
    pool.run(static_cast<int64_t>(tasks), [&](int64_t t, int) {
      const size_t b0 = bytes * static_cast<size_t>(t) / tasks / 64 * 64;
      const size_t b1 = bytes * static_cast<size_t>(t + 1) / tasks / 64 * 64;
      __atomic_fetch_add(&sink, cli::sum_lines(static_cast<const uint8_t*>(m.data) + b0, (b1 - b0) / 64, false),
                         __ATOMIC_RELAXED);
    });
  };
  // Untimed: the first pass after the copies are written ran up to 2x slower, whatever it was
  // (Zen 5 EPYC VM, 2026-12-05).
  median_ms(read);
  const double mb = static_cast<double>(bytes * copies) * 1e-6;
  // Batch 0: the read loop.
  for (int batch : int_list("NINFER_BENCH_BATCH", {0, 1, 2, 4, 8})) {
    if (batch == 0) {
      const double med = median_ms(read);
      std::printf("{\"read\": true, \"threads\": %d, \"megabytes\": %.1f, \"ms\": %.3f, \"gb_per_s\": %.1f}\n",
                  threads, mb, med, mb / med);
      std::fflush(stdout);
      continue;
    }
    std::vector<float> x(static_cast<size_t>(batch * cols)), y(static_cast<size_t>(batch * rows));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 69069u) % 1000) * 1e-3f - 0.5f;
    const double med = median_ms([&](const TensorView& m) {
      const kernels::MatmulTarget t[] = {{&m, y.data(), rows, false}};
      kernels::parallel_matmul(pool, kt, t, x.data(), cols, batch);
    });
    std::printf("{\"isa\": \"%s\", \"dtype\": \"%s\", \"threads\": %d, \"batch\": %d, \"megabytes\": %.1f, "
                "\"ms\": %.3f, \"gb_per_s\": %.1f}\n",
                kernels::isa_name(kt.isa), f16 ? "f16" : "q8_0", threads, batch, mb, med, mb / med);
    std::fflush(stdout);
  }
  if (sink == 1) std::printf("\n");  // keeps the reads
  std::free(mem);
}

}  // namespace
}  // namespace ninfer::models::testing
