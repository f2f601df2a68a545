// Streaming-read bandwidth: every thread sums its own contiguous share of one buffer with 256-bit
// loads (four independent accumulators, so the loads are never waiting on an add). Prints the
// median over repeats for each thread count, in GB/s (1e9 bytes), by wall time and by the threads'
// own CPU time (which leaves out the time other programs held the cores on a shared machine).
//   g++ -O2 -mavx2 -pthread stream_read.cpp -o stream_read && ./stream_read [MiB] [repeats]
#include <immintrin.h>

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

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  const size_t bytes = mib << 20;
  auto* buf = static_cast<__m256i*>(std::aligned_alloc(64, bytes));
  std::memset(buf, 1, bytes);  // touch every page first
  const size_t vecs = bytes / 32;
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
          out[t] = _mm256_extract_epi64(sum_range(buf + t * share, share), 0);
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
    std::printf("threads %d: wall median %.1f GB/s (min %.1f, max %.1f); by CPU time median %.1f GB/s (max %.1f); %d reads of %zu MiB\n",
                threads, gbs[gbs.size() / 2], gbs.front(), gbs.back(), gbs_cpu[gbs_cpu.size() / 2], gbs_cpu.back(), repeats, mib);
  }
  return 0;
}
