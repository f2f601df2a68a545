// Thread CPU time for the phase timings of GenerationResult::constraint (CPU seconds, not wall).
#pragma once

#include <time.h>

namespace ninfer::runtime {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Adds the thread CPU time of a scope to `*sink` when `sink` is non-null (timings off: no clock reads).
class CpuSpan {
 public:
  explicit CpuSpan(double* sink) : sink_(sink), t0_(sink ? thread_cpu_seconds() : 0) {}
  ~CpuSpan() {
    if (sink_) *sink_ += thread_cpu_seconds() - t0_;
  }
  CpuSpan(const CpuSpan&) = delete;
  CpuSpan& operator=(const CpuSpan&) = delete;

 private:
  double* sink_;
  double t0_;
};

}  // namespace ninfer::runtime
