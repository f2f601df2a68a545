// Steady-state sampling never touches the heap: this binary replaces operator new with a counting
// one and checks that warm calls allocate nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "ops/sampling.h"

namespace {
std::atomic<long> g_allocations{0};
thread_local bool g_counting = false;
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
// The other forms forward to these two, as the library's defaults do. GCC flags free() inside a
// replacement operator delete as a new/free mismatch; here it is the matching allocator.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
void operator delete[](void* p) noexcept { ::operator delete(p); }
void operator delete(void* p, std::size_t) noexcept { ::operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { ::operator delete(p); }

namespace ninfer::ops {
namespace {

TEST(SamplingAllocation, WarmCallsDoNotAllocate) {
  std::mt19937_64 g(8);
  std::normal_distribution<double> normal(0, 2);
  constexpr int kWidth = 151936;
  constexpr int kDomain = 151669;
  std::vector<float> logits(kWidth);
  for (float& x : logits) x = static_cast<float>(normal(g));
  std::vector<uint32_t> mask((kDomain + 31) / 32, 0u);
  for (size_t i = 0; i < mask.size(); i += 3) mask[i] = static_cast<uint32_t>(g());
  const std::vector<TokenCount> pen = {{5, 2}, {700, 1}};
  const std::vector<SamplingParams> params = {SamplingParams{}, SamplingParams{0.6f, 20, 0.95f, 0.0f, 0.0f, 0.0f},
                                              SamplingParams{1.0f, 1000, 0.9f, 0.05f, 0.5f, 0.1f},
                                              SamplingParams{0.8f, 0, 0.8f, 0.0f, 0.0f, 0.0f},
                                              SamplingParams{0.0f, 0, 1.0f, 0.0f, 0.0f, 0.0f}};
  SparseDistribution out;
  auto run_all = [&](uint64_t pos) {
    for (const SamplingParams& p : params) {
      for (const MaskRow row : {MaskRow{nullptr, kDomain}, MaskRow{mask.data(), kDomain}}) {
        ASSERT_EQ(sample_token(logits, row, p, pen, RngKey{1, pos, RngPurpose::Sample}).status, SampleStatus::Ok);
        ASSERT_EQ(transformed_distribution(logits, row, p, pen, out), SampleStatus::Ok);
      }
    }
  };
  out.tokens.reserve(kWidth);
  out.probs.reserve(kWidth);
  run_all(0);  // warm-up grows the scratch once
  // The counter really sees this binary's allocations (sanitizer runtimes bring their own new).
  g_counting = true;
  ::operator delete(::operator new(16));
  g_counting = false;
  ASSERT_EQ(g_allocations.exchange(0), 1);
  g_counting = true;
  for (uint64_t pos = 1; pos < 4; ++pos) run_all(pos);
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
}

}  // namespace
}  // namespace ninfer::ops
