// The server's Prometheus metrics: fixed families with fixed label sets (never schema or prompt
// text), updated by the connections and rendered in the text exposition format (version 0.0.4) on
// GET /metrics. Thread-safe: connections on several I/O threads update them concurrently.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ninfer/engine.h"

namespace ninfer::server {

// Cumulative buckets with fixed upper bounds (seconds); +Inf is implicit.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // "<name>_bucket{le=...}", "<name>_sum", "<name>_count" lines.
  void render(const std::string& name, std::string& out) const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // per bucket (not cumulative), the last one is +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

class ServerMetrics {
 public:
  ServerMetrics();

  // A finished HTTP request on an endpoint ("/v1/chat/completions", ..., "other") with its status.
  void count_request(const std::string& endpoint, int status);
  std::atomic<int64_t> active{0};     // generation requests with a row, producing output
  std::atomic<int64_t> pending{0};    // admitted requests waiting for their first output
  std::atomic<uint64_t> cancelled{0};  // requests cancelled by a client that went away
  std::atomic<uint64_t> prompt_tokens{0}, completion_tokens{0};
  std::atomic<int64_t> open_connections{0};

  Histogram time_to_first_token, inter_token_latency, queue_time, end_to_end, constraint_compile, mask_per_step;

  // The whole exposition; the engine's cumulative counters come from `engine` (null while loading).
  std::string render(const EngineStats* engine) const;

 private:
  mutable std::mutex requests_mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
};

}  // namespace ninfer::server
