#include "cli/bench_prefill_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/error_report.h"
#include "cli/latency_stats.h"
#include "cli/option_checks.h"
#include "cli/prompt_attention_flag.h"
#include "models/model_loader.h"
#include "models/qwen3/qwen3_model.h"
#include "tokenizer/tokenizer.h"
#include "ninfer/engine.h"

namespace ninfer::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct PrefillArgs {
  std::string model;
  std::vector<int> lengths = {512};  // --tokens; several only with --forward-only
  int threads = 0;
  PromptAttention prompt_attention = PromptAttention::Auto;
  int repeats = 3;
  int suffix = 16;  // new tokens after the shared prefix in the prefix-cache measurement
  bool skip_engine = false;
  int streams = 0;               // interleaving: decoding streams running while the prompt is admitted
  int while_decoding = 0;        // EngineOptions::prefill_tokens_while_decoding (0 = the default)
  int baseline_gaps = 24;        // inter-token gaps per stream measured before the prompt arrives
  double slowdown = -1;          // EngineOptions::max_decode_slowdown (-1 = the default)
  int tokens() const { return lengths.front(); }  // the prompt's length where there is one
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

// One prompt length's forward passes: the median and the rates it makes.
nlohmann::ordered_json length_figures(const models::qwen3::Qwen3Model* qwen, int tokens, const std::vector<double>& seconds) {
  const double s = median_of(seconds);
  nlohmann::ordered_json j;
  j["tokens"] = tokens;
  j["seconds_p50"] = s;
  j["seconds"] = seconds;
  j["tokens_per_s"] = tokens / s;
  if (qwen) {
    const double flops = prefill_flops(qwen->config(), tokens);
    j["gflop"] = flops * 1e-9;
    j["gflop_per_s"] = flops * 1e-9 / s;
  }
  return j;
}

// The model's prefill alone, at each of a.lengths. Several lengths alternate within every round (in
// turn, the order reversed every other round), so that their ratio is measured in the same moments:
// on a shared machine whose memory and cores change speed from minute to minute, lengths measured one
// after the other minutes apart gave 2,048 / 512 ratios 10 points apart (q8_0, 74-84%).
nlohmann::ordered_json forward_only(const PrefillArgs& a, const std::string& path) {
  models::ModelLoadOptions lo;
  lo.slots = 1;
  lo.max_context = *std::max_element(a.lengths.begin(), a.lengths.end()) + 8;
  lo.threads = a.threads;
  lo.prompt_attention = a.prompt_attention;
  std::unique_ptr<models::LanguageModel> model = models::load_model(path, lo);
  const auto* qwen = dynamic_cast<const models::qwen3::Qwen3Model*>(model.get());
  std::vector<float> logits(static_cast<size_t>(model->vocab_size()));
  const int32_t ids = model->tokenizer() ? model->tokenizer()->vocab_size() : model->vocab_size();
  const size_t n = a.lengths.size();
  std::vector<std::vector<double>> seconds(n);
  for (int r = 0; r <= a.repeats; ++r) {  // round 0 pages the weights in and is not counted
    for (size_t k = 0; k < n; ++k) {
      const size_t i = r % 2 == 0 ? k : n - 1 - k;
      const std::vector<int32_t> tokens = bench_prompt_tokens(a.lengths[i], 100 + r, ids);
      model->truncate_slot(0, 0);
      models::ForwardRow row{0, tokens, 1, true};  // a prompt: the prefill kernels
      const auto t0 = Clock::now();
      model->forward({&row, 1}, logits);
      if (r > 0) seconds[i].push_back(seconds_since(t0));
    }
  }
  nlohmann::ordered_json j;
  j["model"] = model->description();
  if (qwen) j["threads"] = qwen->threads();
  if (n == 1) {  // the figures beside the model's (the prompt's length is the output's "tokens")
    nlohmann::ordered_json one = length_figures(qwen, a.lengths[0], seconds[0]);
    one.erase("tokens");
    j.update(one);
    return j;
  }
  const double first_tokens_per_s = a.lengths[0] / median_of(seconds[0]);
  nlohmann::ordered_json lengths = nlohmann::ordered_json::array();
  for (size_t i = 0; i < n; ++i) {
    nlohmann::ordered_json l = length_figures(qwen, a.lengths[i], seconds[i]);
    l["tokens_per_s_vs_first"] = l["tokens_per_s"].get<double>() / first_tokens_per_s;
    lengths.push_back(std::move(l));
  }
  j["alternated"] = true;
  j["lengths"] = std::move(lengths);
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
  eo.prompt_attention = a.prompt_attention;
  eo.max_context = a.tokens() + a.suffix + 16;
  Engine engine(eo);
  const int32_t ids = engine.vocab_size();
  nlohmann::ordered_json j;
  // Time to first token of prompts seen for the first time (distinct prompts: no prefix reuse).
  std::vector<double> cold;
  for (int r = 0; r <= a.repeats; ++r) {
    const double s = first_token(engine, bench_prompt_tokens(a.tokens(), 200 + r, ids), 1).seconds;
    if (r > 0) cold.push_back(s);
  }
  j["ttft_s_p50"] = median_of(cold);
  j["ttft_s"] = cold;
  j["tokens_per_s"] = a.tokens() / median_of(cold);

  // The prefix cache: a shared prompt of N tokens, then requests that add their own suffix.
  const std::vector<int32_t> shared = bench_prompt_tokens(a.tokens(), 300, ids);
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
  j["prefix_cache"] = {{"shared_tokens", a.tokens()},
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

// S decoding streams (fixed seeds, so every run of them decodes the same tokens), each token's arrival
// time recorded, until stop() cancels them.
class Streams {
 public:
  Streams(Engine& engine, int count, int max_tokens) : times_(static_cast<size_t>(count)) {
    const int32_t ids = engine.vocab_size();
    for (int i = 0; i < count; ++i) {
      PreparedPrompt p;
      p.tokens = bench_prompt_tokens(8, 500 + i, ids);
      RequestOptions ro;
      ro.sampling.seed = 7 + i;
      ro.max_tokens = max_tokens;
      ro.ignore_eos = true;
      handles_.push_back(engine.submit(std::move(p), ro));
      readers_.emplace_back([this, i, h = handles_.back()]() mutable {
        while (auto ev = h.next()) {
          if (ev->done) break;
          std::lock_guard<std::mutex> lock(mu_);
          for (size_t t = 0; t < ev->tokens.size(); ++t) times_[static_cast<size_t>(i)].push_back(Clock::now());
        }
      });
    }
  }
  ~Streams() { stop(); }
  // Tokens that every stream has produced.
  size_t least() const {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = SIZE_MAX;
    for (const auto& t : times_) n = std::min(n, t.size());
    return n;
  }
  void wait_for(size_t tokens) const {
    while (least() < tokens) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  void stop() {
    for (RequestHandle& h : handles_) h.cancel();
    for (std::thread& t : readers_)
      if (t.joinable()) t.join();
  }
  const std::vector<std::vector<Clock::time_point>>& times() const { return times_; }

 private:
  mutable std::mutex mu_;
  std::vector<std::vector<Clock::time_point>> times_;
  std::vector<RequestHandle> handles_;
  std::vector<std::thread> readers_;
};

// Chunked prefill interleaved with decode: S streams decode; then an N-token prompt arrives. The
// streams' inter-token gaps while it is prefilled (until its first token) against their gaps without
// it: before it arrived, and, in a second run of the same streams alone, over the same tokens (their
// contexts grow while the prompt is prefilled, and so does their own decode step).
nlohmann::ordered_json interleaving(const PrefillArgs& a, const std::string& path) {
  EngineOptions eo;
  eo.model = path;
  eo.max_batch_rows = a.streams + 1;
  eo.threads = a.threads;
  eo.prompt_attention = a.prompt_attention;
  eo.max_context = a.tokens() + 64;
  eo.prefix_cache_bytes = 0;
  if (a.while_decoding > 0) eo.prefill_tokens_while_decoding = a.while_decoding;
  if (a.slowdown >= 0) eo.max_decode_slowdown = a.slowdown;
  Engine engine(eo);
  const int max_tokens = eo.max_context - 16;
  constexpr size_t kWarmup = 4;  // gaps after admission that no figure counts

  // With the prompt: which token of each stream came first after it arrived and before its first token.
  std::vector<std::pair<size_t, size_t>> range(static_cast<size_t>(a.streams));
  std::vector<double> before, during;
  double ttft = 0;
  {
    Streams with(engine, a.streams, max_tokens);
    with.wait_for(static_cast<size_t>(a.baseline_gaps) + kWarmup);
    const auto arrival = Clock::now();
    const Ttft big = first_token(engine, bench_prompt_tokens(a.tokens(), 600, engine.vocab_size()), 1);
    ttft = big.seconds;
    const auto first = arrival + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(big.seconds));
    with.stop();
    for (size_t i = 0; i < with.times().size(); ++i) {
      const auto& times = with.times()[i];
      range[i] = {SIZE_MAX, 0};
      for (size_t k = kWarmup; k < times.size(); ++k) {
        const double ms = std::chrono::duration<double, std::milli>(times[k] - times[k - 1]).count();
        if (times[k] <= arrival) {
          before.push_back(ms);
        } else if (times[k - 1] >= arrival && times[k] <= first) {
          during.push_back(ms);
          range[i] = {std::min(range[i].first, k), k + 1};
        }
      }
    }
  }
  // Without it: the same streams again, alone, over the same tokens.
  std::vector<double> same_tokens;
  {
    size_t last = 0;
    for (const auto& r : range) last = std::max(last, r.second);
    Streams alone(engine, a.streams, max_tokens);
    alone.wait_for(last);
    alone.stop();
    for (size_t i = 0; i < alone.times().size(); ++i) {
      const auto& times = alone.times()[i];
      for (size_t k = range[i].first; k < range[i].second && k < times.size(); ++k)
        same_tokens.push_back(std::chrono::duration<double, std::milli>(times[k] - times[k - 1]).count());
    }
  }
  std::sort(before.begin(), before.end());
  std::sort(during.begin(), during.end());
  std::sort(same_tokens.begin(), same_tokens.end());
  const double base = percentile(before, 50), same = percentile(same_tokens, 50), p99 = percentile(during, 99);
  return {{"streams", a.streams},
          {"prompt_tokens", a.tokens()},
          {"prefill_tokens_while_decoding", eo.prefill_tokens_while_decoding},
          {"max_decode_slowdown", eo.max_decode_slowdown},
          {"prompt_ttft_s", ttft},
          {"itl_ms_without_p50", base},
          {"itl_ms_without", summarize(before)},
          {"itl_ms_without_same_tokens", summarize(same_tokens)},
          {"itl_ms_during", summarize(during)},
          {"p99_during_over_median_without", base > 0 ? p99 / base : 0.0},
          {"p99_during_over_median_without_same_tokens", same > 0 ? p99 / same : 0.0},
          {"p50_during_over_median_without_same_tokens", same > 0 ? percentile(during, 50) / same : 0.0}};
}

int run_prefill(const PrefillArgs& a) {
  try {
    const std::string path = a.model.empty() ? models::ensure_default_model() : a.model;
    nlohmann::ordered_json out;
    if (a.lengths.size() == 1) {
      out["tokens"] = a.tokens();
    } else {
      out["tokens"] = a.lengths;
    }
    out["repeats"] = a.repeats;
    out["prompt_attention"] = prompt_attention_name(a.prompt_attention);  // as asked; "model" says what ran
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
  cmd->add_option("--tokens", args->lengths,
                  "prompt tokens (N); with --forward-only a list (512,2048) measures each, alternated in every round")
      ->delimiter(',')
      ->check(integer_option<int>(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
  add_prompt_attention_flag(*cmd, args->prompt_attention);
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
  cmd->callback([args, &status] {
    if (args->lengths.size() > 1 && (!args->skip_engine || args->streams > 0))
      throw CLI::ValidationError("--tokens: a list needs --forward-only (and no --streams)");
    status = run_prefill(*args);
  });
}

}  // namespace ninfer::cli
