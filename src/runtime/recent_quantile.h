// A quantile of the last N samples, exactly (a ring of them, sorted on demand). The Engine keeps the
// error of its step-time predictions here: a prompt chunk beside decoding rows is sized so that the
// step still fits its budget when the prediction misses by this much, which bounds the tail of the
// streams' inter-token latency rather than its mean.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace ninfer::runtime {

template <size_t N>
class RecentQuantile {
 public:
  void add(double sample) {
    ring_[next_] = sample;
    next_ = (next_ + 1) % N;
    count_ = std::min(count_ + 1, N);
  }
  size_t count() const { return count_; }
  // The q-quantile (0..1) of the samples held, nearest rank; `otherwise` when fewer than `least`.
  double quantile(double q, size_t least, double otherwise) const {
    if (count_ < std::max<size_t>(least, 1)) return otherwise;
    std::array<double, N> sorted = ring_;
    const auto end = sorted.begin() + static_cast<std::ptrdiff_t>(count_);
    const size_t rank = std::min(count_ - 1, static_cast<size_t>(q * static_cast<double>(count_)));
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank), end);
    return sorted[rank];
  }

 private:
  std::array<double, N> ring_{};
  size_t next_ = 0, count_ = 0;
};

}  // namespace ninfer::runtime
