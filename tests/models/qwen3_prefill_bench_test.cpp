// Prompt-processing timing of a real checkpoint (not a unit test: run with
// --gtest_also_run_disabled_tests --gtest_filter='Qwen3PrefillBench.*'):
//   NINFER_BENCH_MODEL=file.gguf   default: the 0.6b F16 GGUF under /work/main/.cache/bench-models
//   NINFER_BENCH_TOKENS=512,2048   prompt lengths
//   NINFER_BENCH_THREADS=1,2       thread counts
//   NINFER_BENCH_REPEATS=3         forwards per length; the median is printed
// Each forward prefills the whole prompt into an empty slot and asks for one row of logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/qwen3/qwen3_loader.h"
#include "models/qwen3/qwen3_model.h"

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
    for (int n : lengths) {
      std::vector<int32_t> prompt(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) prompt[i] = (i * 7919 + 13) % m.vocab_size();
      std::vector<double> ms;
      for (int r = 0; r < repeats; ++r) {
        m.truncate_slot(0, 0);
        const ForwardRow row{0, prompt, 1};
        const auto t0 = std::chrono::steady_clock::now();
        m.forward(std::span(&row, 1), logits);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      const double med = ms[ms.size() / 2];
      std::printf("{\"isa\": \"%s\", \"threads\": %d, \"tokens\": %d, \"median_ms\": %.0f, \"tokens_per_s\": %.1f}\n",
                  kernels::isa_name(m.isa()), m.threads(), n, med, 1000.0 * n / med);
      std::fflush(stdout);
    }
  }
}

}  // namespace
}  // namespace ninfer::models::testing
