#include "cli/bench_prefill_command.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/error_report.h"
#include "cli/latency_stats.h"
#include "cli/option_checks.h"
#include "models/model_loader.h"
#include "models/qwen3/qwen3_model.h"
#include "tokenizer/tokenizer.h"
#include "ninfer/engine.h"

namespace ninfer::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct PrefillArgs {
  std::string model;
  int tokens = 512;
  int threads = 0;
  int repeats = 3;
  int suffix = 16;  // new tokens after the shared prefix in the prefix-cache measurement
  bool skip_engine = false;
  int streams = 0;               // interleaving: decoding streams running while the prompt is admitted
  int while_decoding = 0;        // EngineOptions::prefill_tokens_while_decoding (0 = the default)
  int baseline_gaps = 24;        // inter-token gaps per stream measured before the prompt arrives
  double slowdown = -1;          // EngineOptions::max_decode_slowdown (-1 = the default)
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile(v, 50);
}

// Deterministic prompt tokens, different for each `salt`, inside the tokenizer's ordinary ids.
std::vector<int32_t> bench_prompt_tokens(int n, uint64_t salt, int32_t vocab) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  uint64_t s = salt * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  for (int32_t& x : t) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x = static_cast<int32_t>(s % static_cast<uint64_t>(vocab));
  }
  return t;
}

// FLOPs of one prefill of n positions whose last one gets logits: the projections and the MLP per
// position, causal attention (q.k and p.v over positions 0..i for position i), and the head once.
double prefill_flops(const models::qwen3::Qwen3Config& c, int64_t n) {
  const double hidden = double(c.hidden_size), inter = double(c.intermediate_size), hd = double(c.head_dim);
  const double q = double(c.num_heads) * hd, kv = double(c.num_kv_heads) * hd;
  const double per_position = 2.0 * (hidden * (q + 2 * kv) + q * hidden + 3.0 * hidden * inter);
  const double attention_pairs = double(n) * double(n + 1) / 2.0;
  const double attention = 4.0 * hd * double(c.num_heads) * attention_pairs;
  return double(c.num_layers) * (per_position * double(n) + attention) + 2.0 * hidden * double(c.vocab_size);
}

nlohmann::ordered_json forward_only(const PrefillArgs& a, const std::string& path) {
  models::ModelLoadOptions lo;
  lo.slots = 1;
  lo.max_context = a.tokens + 8;
  lo.threads = a.threads;
  std::unique_ptr<models::LanguageModel> model = models::load_model(path, lo);
  const auto* qwen = dynamic_cast<const models::qwen3::Qwen3Model*>(model.get());
  std::vector<float> logits(static_cast<size_t>(model->vocab_size()));
  const int32_t ids = model->tokenizer() ? model->tokenizer()->vocab_size() : model->vocab_size();
  std::vector<double> seconds;
  for (int r = 0; r <= a.repeats; ++r) {  // round 0 pages the weights in and is not counted
    const std::vector<int32_t> tokens = bench_prompt_tokens(a.tokens, 100 + r, ids);
    model->truncate_slot(0, 0);
    models::ForwardRow row{0, tokens, 1};
    const auto t0 = Clock::now();
    model->forward({&row, 1}, logits);
    if (r > 0) seconds.push_back(seconds_since(t0));
  }
  const double s = median_of(seconds);
  nlohmann::ordered_json j;
  j["model"] = model->description();
  if (qwen) j["threads"] = qwen->threads();
  j["seconds_p50"] = s;
  j["seconds"] = seconds;
  j["tokens_per_s"] = a.tokens / s;
  if (qwen) {
    const double flops = prefill_flops(qwen->config(), a.tokens);
    j["gflop"] = flops * 1e-9;
    j["gflop_per_s"] = flops * 1e-9 / s;
  }
  return j;
}

struct Ttft {
  double seconds = 0;
  GenerationResult result;
};

Ttft first_token(Engine& engine, std::vector<int32_t> tokens, int max_tokens) {
  PreparedPrompt p;
  p.tokens = std::move(tokens);
  RequestOptions ro;
  ro.sampling.temperature = 0;
  ro.max_tokens = max_tokens;
  ro.ignore_eos = true;
  const auto t0 = Clock::now();
  RequestHandle h = engine.submit(std::move(p), ro);
  Ttft t;
  while (auto ev = h.next()) {
    if (!ev->tokens.empty() && t.seconds == 0) t.seconds = seconds_since(t0);
    if (ev->done) break;
  }
  t.result = h.wait();
  if (t.result.finish_reason == FinishReason::Error) throw std::runtime_error("prefill request failed: " + t.result.error_message);
  return t;
}

nlohmann::ordered_json through_engine(const PrefillArgs& a, const std::string& path) {
  EngineOptions eo;
  eo.model = path;
  eo.max_batch_rows = 1;
  eo.threads = a.threads;
  eo.max_context = a.tokens + a.suffix + 16;
  Engine engine(eo);
  const int32_t ids = engine.vocab_size();
  nlohmann::ordered_json j;
  // Time to first token of prompts seen for the first time (distinct prompts: no prefix reuse).
  std::vector<double> cold;
  for (int r = 0; r <= a.repeats; ++r) {
    const double s = first_token(engine, bench_prompt_tokens(a.tokens, 200 + r, ids), 1).seconds;
    if (r > 0) cold.push_back(s);
  }
  j["ttft_s_p50"] = median_of(cold);
  j["ttft_s"] = cold;
  j["tokens_per_s"] = a.tokens / median_of(cold);

  // The prefix cache: a shared prompt of N tokens, then requests that add their own suffix.
  const std::vector<int32_t> shared = bench_prompt_tokens(a.tokens, 300, ids);
  auto with_suffix = [&](uint64_t salt) {
    std::vector<int32_t> t = shared;
    const std::vector<int32_t> s = bench_prompt_tokens(a.suffix, salt, ids);
    t.insert(t.end(), s.begin(), s.end());
    return t;
  };
  const Ttft first = first_token(engine, with_suffix(400), 8);
  std::vector<double> warm;
  uint64_t cached = 0;
  for (int r = 0; r < a.repeats; ++r) {
    const Ttft t = first_token(engine, with_suffix(401 + r), 1);
    warm.push_back(t.seconds);
    cached = t.result.usage.cached_tokens;
  }
  // The first request again, now from the cache: the same tokens at temperature 0.
  const Ttft again = first_token(engine, with_suffix(400), 8);
  const EngineStats st = engine.stats();
  j["prefix_cache"] = {{"shared_tokens", a.tokens},
                       {"suffix_tokens", a.suffix},
                       {"first_ttft_s", first.seconds},
                       {"repeat_ttft_s_p50", median_of(warm)},
                       {"repeat_ttft_s", warm},
                       {"speedup", first.seconds / median_of(warm)},
                       {"cached_tokens", cached},
                       {"identical_output_at_temperature_0", again.result.tokens == first.result.tokens},
                       {"hits", st.prefix_cache_hits},
                       {"misses", st.prefix_cache_misses},
                       {"bytes", st.prefix_cache_bytes}};
  return j;
}

// Chunked prefill interleaved with decode: S streams decode; then an N-token prompt arrives. The
// streams' inter-token gaps before it (baseline) against those while it is prefilled (until its
// first token).
nlohmann::ordered_json interleaving(const PrefillArgs& a, const std::string& path) {
  EngineOptions eo;
  eo.model = path;
  eo.max_batch_rows = a.streams + 1;
  eo.threads = a.threads;
  eo.max_context = a.tokens + 64;
  eo.prefix_cache_bytes = 0;
  if (a.while_decoding > 0) eo.prefill_tokens_while_decoding = a.while_decoding;
  if (a.slowdown >= 0) eo.max_decode_slowdown = a.slowdown;
  Engine engine(eo);
  const int32_t ids = engine.vocab_size();
  std::mutex mu;
  std::vector<std::vector<Clock::time_point>> token_times(static_cast<size_t>(a.streams));
  std::vector<RequestHandle> streams;
  std::vector<std::thread> readers;
  for (int i = 0; i < a.streams; ++i) {
    PreparedPrompt p;
    p.tokens = bench_prompt_tokens(8, 500 + i, ids);
    RequestOptions ro;
    ro.sampling.seed = 7 + i;
    ro.max_tokens = eo.max_context - 16;
    ro.ignore_eos = true;
    streams.push_back(engine.submit(std::move(p), ro));
    readers.emplace_back([&, i, h = streams.back()]() mutable {
      while (auto ev = h.next()) {
        if (ev->done) break;
        if (ev->tokens.empty()) continue;
        std::lock_guard<std::mutex> lock(mu);
        token_times[i].push_back(Clock::now());
      }
    });
  }
  auto gaps_so_far = [&] {
    std::lock_guard<std::mutex> lock(mu);
    size_t least = SIZE_MAX;
    for (const auto& t : token_times) least = std::min(least, t.size());
    return least;
  };
  // A few gaps of warm-up, then the baseline.
  while (gaps_so_far() < static_cast<size_t>(a.baseline_gaps + 4)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const auto arrival = Clock::now();
  const Ttft big = first_token(engine, bench_prompt_tokens(a.tokens, 600, ids), 1);
  const auto first = arrival + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(big.seconds));
  for (RequestHandle& h : streams) h.cancel();
  for (std::thread& t : readers) t.join();

  std::vector<double> before, during;
  for (const auto& times : token_times) {
    for (size_t k = 4; k < times.size(); ++k) {  // gaps after the warm-up
      const double ms = std::chrono::duration<double, std::milli>(times[k] - times[k - 1]).count();
      if (times[k] <= arrival) before.push_back(ms);
      else if (times[k - 1] >= arrival && times[k] <= first) during.push_back(ms);
    }
  }
  std::sort(before.begin(), before.end());
  std::sort(during.begin(), during.end());
  const double base = percentile(before, 50), p99 = percentile(during, 99);
  return {{"streams", a.streams},
          {"prompt_tokens", a.tokens},
          {"prefill_tokens_while_decoding", eo.prefill_tokens_while_decoding},
          {"max_decode_slowdown", eo.max_decode_slowdown},
          {"prompt_ttft_s", big.seconds},
          {"itl_ms_without_p50", base},
          {"itl_ms_without", summarize(before)},
          {"itl_ms_during", summarize(during)},
          {"p99_during_over_median_without", base > 0 ? p99 / base : 0.0}};
}

int run_prefill(const PrefillArgs& a) {
  try {
    const std::string path = a.model.empty() ? models::ensure_default_model() : a.model;
    nlohmann::ordered_json out;
    out["tokens"] = a.tokens;
    out["repeats"] = a.repeats;
    if (a.streams > 0) {
      out["interleaving"] = interleaving(a, path);
    } else {
      out["forward"] = forward_only(a, path);
      if (!a.skip_engine) out["engine"] = through_engine(a, path);
    }
    std::cout << out.dump(2) << std::endl;
    return 0;
  } catch (const std::exception& e) {
    return report_request_error(e);
  }
}

}  // namespace

void register_bench_prefill_command(CLI::App& bench, int& status) {
  auto args = std::make_shared<PrefillArgs>();
  CLI::App* cmd = bench.add_subcommand("prefill", "Prompt processing: tokens/s, GFLOP/s, time to first token, prefix cache");
  cmd->add_option("--model", args->model, "HF model folder or GGUF file (default: the generated tiny model)");
  cmd->add_option("--tokens", args->tokens, "prompt tokens (N)")->check(integer_option<int>(1, 1 << 20))->capture_default_str();
  cmd->add_option("--threads", args->threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
  cmd->add_option("--repeats", args->repeats, "timed runs per measurement (medians are reported)")
      ->check(integer_option<int>(1, 100))
      ->capture_default_str();
  cmd->add_option("--suffix", args->suffix, "prefix cache: new tokens after the shared N")
      ->check(integer_option<int>(1, 4096))
      ->capture_default_str();
  cmd->add_option("--streams", args->streams, "measure only the interleaving: S streams decode while the N-token prompt is admitted")
      ->check(integer_option<int>(0, 64));
  cmd->add_option("--prefill-while-decoding", args->while_decoding, "interleaving: prompt tokens per step while streams decode")
      ->check(integer_option<int>(1));
  cmd->add_option("--max-decode-slowdown", args->slowdown, "interleaving: the engine's max_decode_slowdown (0 = fixed chunks)")
      ->check(number_option(at_least(0)));
  cmd->add_flag("--forward-only", args->skip_engine, "only the model's forward pass (no Engine, no prefix cache)");
  cmd->callback([args, &status] { status = run_prefill(*args); });
}

}  // namespace ninfer::cli
