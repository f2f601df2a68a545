#include "server/metrics.h"

#include <cmath>
#include <cstdio>

namespace ninfer::server {
namespace {

// Prometheus floats: shortest round-trip text, +Inf spelled as the format wants.
std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  double back = 0;
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::sscanf(buf, "%lf", &back) == 1 && back == v) break;
  }
  return buf;
}

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, const std::string& name, double value) { out += name + ' ' + number_text(value) + '\n'; }

// A family of one unlabelled sample.
void single(std::string& out, const char* name, const char* type, const char* help, double value) {
  family(out, name, type, help);
  sample(out, name, value);
}

// Latency buckets from 0.5 ms to 60 s; the mask buckets go down to 1 µs.
std::vector<double> latency_bounds() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}
std::vector<double> mask_bounds() {
  return {1e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 5e-2};
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  if (!std::isfinite(value)) return;
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::render(const std::string& name, std::string& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number_text(bounds_[i]) : "+Inf";
    out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + '\n';
  }
  sample(out, name + "_sum", sum_);
  out += name + "_count " + std::to_string(count_) + '\n';
}

ServerMetrics::ServerMetrics()
    : time_to_first_token(latency_bounds()),
      inter_token_latency(latency_bounds()),
      queue_time(latency_bounds()),
      end_to_end(latency_bounds()),
      constraint_compile(latency_bounds()),
      mask_per_step(mask_bounds()) {}

void ServerMetrics::count_request(const std::string& endpoint, int status) {
  std::lock_guard<std::mutex> lock(requests_mu_);
  ++requests_[{endpoint, status}];
}

std::string ServerMetrics::render(const EngineStats* engine) const {
  std::string out;
  family(out, "ninfer_requests_total", "counter", "HTTP requests by endpoint and status.");
  {
    std::lock_guard<std::mutex> lock(requests_mu_);
    for (const auto& [key, n] : requests_)
      out += "ninfer_requests_total{endpoint=\"" + key.first + "\",status=\"" + std::to_string(key.second) + "\"} " +
             std::to_string(n) + '\n';
  }
  single(out, "ninfer_requests_active", "gauge", "Generation requests producing output.", double(active.load()));
  single(out, "ninfer_requests_pending", "gauge", "Admitted generation requests waiting for their first output.", double(pending.load()));
  single(out, "ninfer_requests_cancelled_total", "counter", "Requests cancelled because the client went away.", double(cancelled.load()));
  single(out, "ninfer_open_connections", "gauge", "Open HTTP connections.", double(open_connections.load()));
  single(out, "ninfer_prompt_tokens_total", "counter", "Prompt tokens of finished requests.", double(prompt_tokens.load()));
  single(out, "ninfer_completion_tokens_total", "counter", "Completion tokens of finished requests.", double(completion_tokens.load()));

  const std::pair<const char*, const Histogram*> histograms[] = {
      {"ninfer_time_to_first_token_seconds", &time_to_first_token},
      {"ninfer_inter_token_latency_seconds", &inter_token_latency},
      {"ninfer_queue_time_seconds", &queue_time},
      {"ninfer_request_duration_seconds", &end_to_end},
      {"ninfer_constraint_compile_seconds", &constraint_compile},
      {"ninfer_mask_seconds_per_step", &mask_per_step},
  };
  const char* helps[] = {
      "From request arrival to the first output published to the client.",
      "Between consecutive output events of a stream.",
      "From submission until the request got a batch row.",
      "From request arrival until the response finished.",
      "Constraint preparation per constrained request (compile or cache lookup, matcher set-up).",
      "Mean mask computation time per constrained position, one sample per request.",
  };
  for (size_t i = 0; i < std::size(histograms); ++i) {
    family(out, histograms[i].first, "histogram", helps[i]);
    histograms[i].second->render(histograms[i].first, out);
  }

  family(out, "ninfer_compile_cache_total", "counter", "Constraint compile-cache lookups by outcome.");
  const EngineStats zero;
  const EngineStats& e = engine ? *engine : zero;
  out += "ninfer_compile_cache_total{outcome=\"hit\"} " + std::to_string(e.cache_hits) + '\n';
  out += "ninfer_compile_cache_total{outcome=\"built\"} " + std::to_string(e.cache_builds) + '\n';
  out += "ninfer_compile_cache_total{outcome=\"waited\"} " + std::to_string(e.cache_waits) + '\n';
  single(out, "ninfer_engine_steps_total", "counter", "Engine decode steps.", double(e.steps));
  single(out, "ninfer_engine_rows_decoded_total", "counter", "Rows decoded over all steps.", double(e.rows_decoded));
  single(out, "ninfer_engine_requests_finished_total", "counter", "Requests the engine finished (failed and cancelled included).", double(e.finished));
  single(out, "ninfer_engine_requests_failed_total", "counter", "Requests that ended in an error.", double(e.failed));
  single(out, "ninfer_engine_requests_cancelled_total", "counter", "Requests the engine stopped on a cancel.", double(e.cancelled));
  single(out, "ninfer_engine_prompt_tokens_computed_total", "counter",
         "Prompt positions run through the model (positions restored from the prefix cache excluded).",
         double(e.prompt_tokens_computed));
  single(out, "ninfer_engine_prompt_chunks_total", "counter", "Prompt pieces that did not end their prompt (chunked prefill).",
         double(e.prompt_chunks));
  single(out, "ninfer_engine_prompt_layer_steps_total", "counter",
         "Steps in which a prompt chunk went through only some of the model's layers (beside decoding rows).",
         double(e.prompt_layer_steps));
  family(out, "ninfer_prefix_cache_lookups_total", "counter", "Prefix cache lookups by outcome (a hit reuses at least one block).");
  out += "ninfer_prefix_cache_lookups_total{outcome=\"hit\"} " + std::to_string(e.prefix_cache_hits) + '\n';
  out += "ninfer_prefix_cache_lookups_total{outcome=\"miss\"} " + std::to_string(e.prefix_cache_misses) + '\n';
  single(out, "ninfer_prefix_cache_hit_tokens_total", "counter", "Prompt positions restored from the prefix cache.",
         double(e.prefix_cache_hit_tokens));
  single(out, "ninfer_prefix_cache_evictions_total", "counter", "Prefix cache blocks dropped for the memory budget.",
         double(e.prefix_cache_evictions));
  single(out, "ninfer_prefix_cache_blocks", "gauge", "Prefix cache blocks held.", double(e.prefix_cache_blocks));
  single(out, "ninfer_prefix_cache_bytes", "gauge", "Prefix cache KV bytes held.", double(e.prefix_cache_bytes));
  return out;
}

}  // namespace ninfer::server
