// The memory-bandwidth floor of a decode step, measured in the bench's own process: a plain read of a
// buffer as large as the model's weights (a B=1 step reads each weight once), by as many threads as
// the model uses, timed right beside the decode rounds it is compared with. A read loop run as a
// separate program minutes away measured 45-69 GB/s on the same VM within one session, so a floor
// taken at another moment says little about a given round.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace ninfer::cli {

constexpr size_t kReadLineBytes = 64;

// The read loop's stream: the sum of `lines` 64-byte lines from p, every byte, in
// 16-byte loads into 4 sums (one word per line instead read ~15% slower than the separate read loop
// bench/gemm_libs/stream_read.cpp beside it: the figure should be the memory's best). `ahead`: each
// line also asks for the one 4 KiB on (the best of 0-4 KiB in that loop on the Zen 5 EPYC VM when
// memory is slow; past the end it asks for lines it never reads, which costs nothing). Also the
// decode-matmul bench's read of its weight copies (Qwen3PrefillBench.DISABLED_DecodeMatmulFromMemory).
inline uint64_t sum_lines(const unsigned char* p, size_t lines, bool ahead) {
  constexpr size_t kAheadBytes = 4096;
#if defined(__SSE2__)
  __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < lines; ++i) {
    const auto* line = reinterpret_cast<const __m128i*>(p + i * kReadLineBytes);
    if (ahead) _mm_prefetch(reinterpret_cast<const char*>(line) + kAheadBytes, _MM_HINT_T0);
    s0 = _mm_add_epi64(s0, _mm_loadu_si128(line));
    s1 = _mm_add_epi64(s1, _mm_loadu_si128(line + 1));
    s2 = _mm_add_epi64(s2, _mm_loadu_si128(line + 2));
    s3 = _mm_add_epi64(s3, _mm_loadu_si128(line + 3));
  }
  const __m128i s = _mm_add_epi64(_mm_add_epi64(s0, s1), _mm_add_epi64(s2, s3));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(s));
#else
  uint64_t s = 0;
  for (size_t i = 0; i < lines; ++i) {
    if (ahead) __builtin_prefetch(p + i * kReadLineBytes + kAheadBytes, 0, 3);
    for (size_t k = 0; k < kReadLineBytes; k += sizeof(uint64_t)) {
      uint64_t v;
      std::memcpy(&v, p + i * kReadLineBytes + k, sizeof v);
      s += v;
    }
  }
  return s;
#endif
}

class ReadLoop {
 public:
  // Allocates `bytes` (on huge pages where the kernel gives them, as the model's weights are) and
  // writes them once; `threads` 0 = every core.
  ReadLoop(size_t bytes, int threads);
  ~ReadLoop();
  ReadLoop(const ReadLoop&) = delete;
  ReadLoop& operator=(const ReadLoop&) = delete;

  // Whether a buffer of `bytes` leaves at least as much memory free beside it (the model's own copy
  // is already resident): a floor is not worth swapping for.
  static bool affordable(size_t bytes);

  size_t bytes() const { return bytes_; }
  // The buffer read `passes` times plainly and `passes` times asking for the lines 4 KiB ahead, each
  // pass split evenly over the threads: GB/s of the faster kind's median pass.
  double gb_per_s(int passes);

 private:
  double pass_seconds(bool ahead);

  unsigned char* data_ = nullptr;
  size_t bytes_ = 0;
  int threads_ = 1;
};

// The bytes of a model's weights as stored: a GGUF file's size, or the sum of a folder's .safetensors
// files; 0 where the path is neither (the default generated model).
size_t model_weight_bytes(const std::string& path);

}  // namespace ninfer::cli
