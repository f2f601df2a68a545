#include "cli/read_loop.h"

#include <sys/mman.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <thread>
#include <vector>

namespace ninfer::cli {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kLine = 64;

// How far ahead the prefetching read asks for its lines: 4 KiB, the best of 0-4 KiB in a separate
// read loop on the Zen 5 EPYC VM when memory is slow.
constexpr size_t kAheadBytes = 4096;

// Every byte, in 16-byte loads into 4 sums (reading one word per line instead was ~15% slower, as the
// separate read loop bench/gemm_libs/stream_read.cpp measured it beside: the figure should be the
// memory's best). Ahead: each line also asks for the one kAheadBytes on (past the end it asks for
// lines it never reads, which costs nothing).
template <bool Ahead>
uint64_t read_lines(const unsigned char* p, size_t lines) {
#if defined(__SSE2__)
  __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < lines; ++i) {
    const auto* line = reinterpret_cast<const __m128i*>(p + i * kLine);
    if constexpr (Ahead) _mm_prefetch(reinterpret_cast<const char*>(line) + kAheadBytes, _MM_HINT_T0);
    s0 = _mm_add_epi64(s0, _mm_load_si128(line));
    s1 = _mm_add_epi64(s1, _mm_load_si128(line + 1));
    s2 = _mm_add_epi64(s2, _mm_load_si128(line + 2));
    s3 = _mm_add_epi64(s3, _mm_load_si128(line + 3));
  }
  const __m128i s = _mm_add_epi64(_mm_add_epi64(s0, s1), _mm_add_epi64(s2, s3));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(s));
#else
  uint64_t s = 0;
  for (size_t i = 0; i < lines; ++i) {
    if constexpr (Ahead) __builtin_prefetch(p + i * kLine + kAheadBytes, 0, 3);
    for (size_t k = 0; k < kLine; k += sizeof(uint64_t)) {
      uint64_t v;
      std::memcpy(&v, p + i * kLine + k, sizeof v);
      s += v;
    }
  }
  return s;
#endif
}

std::atomic<uint64_t> g_sink{0};  // keeps the reads

}  // namespace

ReadLoop::ReadLoop(size_t bytes, int threads)
    : bytes_(bytes / kLine * kLine),
      threads_(threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {
  const size_t span = std::max(kHugePage, (bytes_ + kHugePage - 1) / kHugePage * kHugePage);
  data_ = static_cast<unsigned char*>(std::aligned_alloc(kHugePage, span));
  if (data_ == nullptr) throw std::bad_alloc();
  madvise(data_, span, MADV_HUGEPAGE);
  std::memset(data_, 1, span);
  // Untimed: the first pass over freshly written memory ran up to 2x slower on the Zen 5 EPYC VM.
  pass_seconds(false);
}

ReadLoop::~ReadLoop() { std::free(data_); }

bool ReadLoop::affordable(size_t bytes) {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 && bytes <= static_cast<size_t>(pages) * static_cast<size_t>(page) / 2;
}

double ReadLoop::pass_seconds(bool ahead) {
  const size_t lines = bytes_ / kLine;
  auto read = [&](size_t l0, size_t l1) {
    const uint64_t s = ahead ? read_lines<true>(data_ + l0 * kLine, l1 - l0) : read_lines<false>(data_ + l0 * kLine, l1 - l0);
    g_sink.fetch_add(s, std::memory_order_relaxed);
  };
  auto share = [&](int t) { return lines * static_cast<size_t>(t) / static_cast<size_t>(threads_); };
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 1; t < threads_; ++t) workers.emplace_back([&, t] { read(share(t), share(t + 1)); });
  read(0, share(1));
  for (std::thread& w : workers) w.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double ReadLoop::gb_per_s(int passes) {
  // Plain and prefetching passes alternate; the faster kind's median counts. Neither is always the
  // faster: plain when memory is fast, prefetching when it is slow (a decode step's kernels prefetch,
  // and beat the plain read there).
  std::vector<double> plain, ahead;
  for (int p = 0; p < std::max(1, passes); ++p) {
    plain.push_back(pass_seconds(false));
    ahead.push_back(pass_seconds(true));
  }
  std::sort(plain.begin(), plain.end());
  std::sort(ahead.begin(), ahead.end());
  return static_cast<double>(bytes_) / std::min(plain[plain.size() / 2], ahead[ahead.size() / 2]) * 1e-9;
}

size_t model_weight_bytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) return 0;
  if (fs::is_regular_file(path, ec)) return static_cast<size_t>(fs::file_size(path, ec));
  if (!fs::is_directory(path, ec)) return 0;
  size_t total = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == ".safetensors") total += static_cast<size_t>(e.file_size(ec));
  }
  return total;
}

}  // namespace ninfer::cli
