// Percentile summaries for benchmark JSON.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

namespace ninfer::cli {

// Nearest-rank percentile of sorted samples.
inline double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// The median (nearest rank) of unsorted samples.
inline double median_of_samples(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile(v, 50);
}

inline nlohmann::ordered_json summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  auto r = [](double x) { return std::round(x * 1000) / 1000; };
  nlohmann::ordered_json j;
  j["count"] = v.size();
  for (double p : {25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9}) {
    std::string key = p == 99.9 ? "p999" : "p" + std::to_string(static_cast<int>(p));
    j[key] = r(percentile(v, p));
  }
  j["max"] = r(v.empty() ? 0 : v.back());
  j["avg"] = r(v.empty() ? 0 : sum / v.size());
  return j;
}

}  // namespace ninfer::cli
