// Streaming-read bandwidth: every thread sums its own contiguous share of one buffer (in huge pages
// where the kernel gives them) with 256-bit loads, a line per iteration, in each of these ways:
//   plain      four lines per iteration, four independent accumulators, the hardware prefetchers alone
//   ahead N    a line per iteration, each iteration asking for the line N bytes ahead into L1
//              (prefetcht0): on the AMX Xeon of 2026-12-04 (2 cores, 2 threads), over four runs
//              32-35 GB/s plain, 34-38 a line per iteration, 36-41 asked 2-3 KiB ahead
// Prints the median over repeats for each way and thread count, in GB/s (1e9 bytes), by wall time and
// by the threads' own CPU time (which leaves out the time other programs held the cores on a shared
// machine); the best way's 2-thread median is the machine's memory-bandwidth floor for decode.
//   g++ -O2 -mavx2 -pthread stream_read.cpp -o stream_read && ./stream_read [MiB] [repeats]
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

namespace {

__m256i sum_range(const __m256i* p, size_t n) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    a0 = _mm256_add_epi32(a0, _mm256_load_si256(p + i));
    a1 = _mm256_add_epi32(a1, _mm256_load_si256(p + i + 1));
    a2 = _mm256_add_epi32(a2, _mm256_load_si256(p + i + 2));
    a3 = _mm256_add_epi32(a3, _mm256_load_si256(p + i + 3));
  }
  return _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
}

// A line (two vectors) per iteration, the line `ahead` bytes on asked for first.
__m256i sum_range_ahead(const __m256i* p, size_t n, size_t ahead) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0;
  const char* bytes = reinterpret_cast<const char*>(p);
  for (size_t i = 0; i + 2 <= n; i += 2) {
    _mm_prefetch(bytes + 32 * i + ahead, _MM_HINT_T0);
    a0 = _mm256_add_epi32(a0, _mm256_load_si256(p + i));
    a1 = _mm256_add_epi32(a1, _mm256_load_si256(p + i + 1));
  }
  return _mm256_add_epi32(a0, a1);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  const size_t bytes = mib << 20;
  const size_t huge = size_t{2} << 20;
  // Room past the end for the reads asked for ahead of the last lines.
  const size_t alloc = (bytes + huge + huge - 1) / huge * huge;
  auto* buf = static_cast<__m256i*>(std::aligned_alloc(huge, alloc));
  madvise(buf, alloc, MADV_HUGEPAGE);
  std::memset(buf, 1, alloc);  // touch every page first
  const size_t vecs = bytes / 32;
  const long ways[] = {-1, 0, 1024, 2048, 3072, 4096};  // -1: plain; else a line per iteration, N ahead
  for (long way : ways)
  for (int threads : {1, 2}) {
    std::vector<double> gbs, gbs_cpu;
    volatile int sink = 0;
    for (int r = 0; r < repeats; ++r) {
      std::vector<long long> out(threads);
      std::vector<double> cpu(threads);
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          const size_t share = vecs / threads / 4 * 4;
          timespec c0, c1;
          clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
          const __m256i sum = way < 0 ? sum_range(buf + t * share, share)
                                      : sum_range_ahead(buf + t * share, share, static_cast<size_t>(way));
          out[t] = _mm256_extract_epi64(sum, 0);
          clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
          cpu[t] = (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
        });
      }
      for (auto& th : pool) th.join();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (long long v : out) sink = sink + static_cast<int>(v);
      gbs.push_back(static_cast<double>(bytes) / s / 1e9);
      double slowest = 0;
      for (double c : cpu) slowest = std::max(slowest, c);
      gbs_cpu.push_back(static_cast<double>(bytes) / slowest / 1e9);
    }
    std::sort(gbs.begin(), gbs.end());
    std::sort(gbs_cpu.begin(), gbs_cpu.end());
    if (way < 0) {
      std::printf("plain     ");
    } else {
      std::printf("ahead %4ld", way);
    }
    std::printf(" threads %d: wall median %.1f GB/s (min %.1f, max %.1f); by CPU time median %.1f GB/s "
                "(max %.1f); %d reads of %zu MiB\n",
                threads, gbs[gbs.size() / 2], gbs.front(), gbs.back(), gbs_cpu[gbs_cpu.size() / 2],
                gbs_cpu.back(), repeats, mib);
  }
  return 0;
}
