#include "cli/bench_decode_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "cli/bench_chat_command.h"
#include "cli/bench_prefill_command.h"
#include "cli/bench_schema.h"
#include "cli/bench_spec_command.h"
#include "cli/bench_server_command.h"
#include "cli/constraint_flags.h"
#include "cli/latency_stats.h"
#include "cli/option_checks.h"
#include "cli/prompt_attention_flag.h"
#include "cli/read_loop.h"
#include "cli/error_report.h"
#include "ninfer/engine.h"

namespace ninfer::cli {
namespace {

using Clock = std::chrono::steady_clock;


struct BenchArgs {
  std::string model;
  std::vector<int> batches = {1};  // one run per B, in one process
  bool unconstrained_only = false;
  int batch = 1;                   // the B of the current run
  int tokens = 64;
  int repeats = 3;
  int threads = 0;
  PromptAttention prompt_attention = PromptAttention::Auto;
  std::string prompt = "Here is the requested JSON document:\n";
  ConstraintArgs constraint;
  uint64_t seed = 1;
  float temperature = 1.0f;
};

// One round: B client threads keep one request each in flight until each has N tokens.
struct Round {
  double wall_s = 0;
  uint64_t tokens = 0;
  std::vector<double> itl_ms;                   // gaps between consecutive token events of a request
  // Token events as (seconds from the round's start, tokens), and each row's first and last event:
  // the span in which all B rows decode, from the last row's first token to the first row's last.
  std::vector<std::pair<double, int>> events;
  double all_decoding_s = 0, first_done_s = 1e300;
  std::vector<double> constraint_cpu_ms_per_token;  // per request: (mask + accept) CPU / tokens
  std::vector<double> prepare_cpu_ms;           // per request
  int requests = 0, complete = 0, errors = 0;
  EngineStats before, after;  // worker-side split of the round's steps
};

Round run_round(Engine& engine, const PreparedPrompt& prompt, const BenchArgs& a, const std::optional<OutputConstraint>& c,
                uint64_t round_seed) {
  Round round;
  round.before = engine.stats();
  std::mutex mu;
  auto options_for = [&](int row, uint64_t n, int left) {
    RequestOptions ro;
    ro.max_tokens = left;
    ro.sampling.seed = round_seed * 1000003ull + uint64_t(row) * 7919ull + n;
    ro.sampling.temperature = a.temperature;
    ro.phase_timings = true;
    if (c)
      ro.constraint = *c;
    else
      ro.ignore_eos = true;
    return ro;
  };
  // The rows' first requests are submitted together, so that all B start in one step: submitted by
  // the clients as they started, the first often began a step alone, and the others' prompts then
  // joined a few positions a step (the limit that keeps running streams' latency bounded while long
  // prompts enter), so B rows decoded together for only part of the round.
  std::vector<PreparedPrompt> prompts(static_cast<size_t>(a.batch), prompt);
  std::vector<RequestOptions> first;
  for (int row = 0; row < a.batch; ++row) first.push_back(options_for(row, 0, a.tokens));
  const Clock::time_point t0 = Clock::now();
  std::vector<RequestHandle> handles = engine.submit_together(std::move(prompts), std::move(first));
  std::vector<std::thread> clients;
  for (int row = 0; row < a.batch; ++row) {
    clients.emplace_back([&, row] {
      int left = a.tokens;
      uint64_t n = 0;
      Round local;
      while (left > 0) {
        RequestHandle h =
            n == 0 ? std::move(handles[static_cast<size_t>(row)]) : engine.submit(prompt, options_for(row, n, left));
        ++n;
        std::optional<Clock::time_point> last;
        while (auto ev = h.next()) {
          if (ev->done) break;
          if (ev->tokens.empty()) continue;
          const auto now = Clock::now();
          if (last) local.itl_ms.push_back(std::chrono::duration<double, std::milli>(now - *last).count());
          last = now;
          local.events.emplace_back(std::chrono::duration<double>(now - t0).count(), static_cast<int>(ev->tokens.size()));
        }
        const GenerationResult r = h.wait();
        ++local.requests;
        local.tokens += r.usage.completion_tokens;
        if (r.constraint) {
          local.complete += r.constraint->complete;
          if (r.usage.completion_tokens > 0)
            local.constraint_cpu_ms_per_token.push_back(1e3 * (r.constraint->mask_cpu_s + r.constraint->accept_cpu_s) /
                                                        r.usage.completion_tokens);
          local.prepare_cpu_ms.push_back(1e3 * r.constraint->prepare_cpu_s);
        }
        if (r.finish_reason == FinishReason::Error || r.usage.completion_tokens == 0) {
          ++local.errors;
          break;
        }
        left -= r.usage.completion_tokens;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (!local.events.empty()) {
        round.all_decoding_s = std::max(round.all_decoding_s, local.events.front().first);
        round.first_done_s = std::min(round.first_done_s, local.events.back().first);
      }
      round.events.insert(round.events.end(), local.events.begin(), local.events.end());
      round.tokens += local.tokens;
      round.requests += local.requests;
      round.complete += local.complete;
      round.errors += local.errors;
      round.itl_ms.insert(round.itl_ms.end(), local.itl_ms.begin(), local.itl_ms.end());
      round.constraint_cpu_ms_per_token.insert(round.constraint_cpu_ms_per_token.end(),
                                               local.constraint_cpu_ms_per_token.begin(),
                                               local.constraint_cpu_ms_per_token.end());
      round.prepare_cpu_ms.insert(round.prepare_cpu_ms.end(), local.prepare_cpu_ms.begin(), local.prepare_cpu_ms.end());
    });
  }
  for (auto& t : clients) t.join();
  round.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  round.after = engine.stats();
  return round;
}

nlohmann::ordered_json summarize_rounds(const std::vector<Round>& rounds, const BenchArgs& a) {
  std::vector<double> ms_per_step, tps, decode_tps, itl_p50, itl_p90, cpu_p50;
  std::vector<double> all_cpu, all_prepare;
  std::vector<double> forward_ms, mask_ms, sample_ms, commit_ms, step_counts;
  int requests = 0, complete = 0, errors = 0;
  for (const Round& r : rounds) {
    std::vector<double> itl = r.itl_ms;
    std::sort(itl.begin(), itl.end());
    itl_p50.push_back(percentile(itl, 50));
    itl_p90.push_back(percentile(itl, 90));
    tps.push_back(r.tokens / r.wall_s);
    // Decode throughput: the tokens of the events after the last row's first and up to the first
    // row's last, over that span (the whole round's tokens/s also counts the rows' staggered
    // admission: while rows decode, new prompts enter a few positions a step, see EngineOptions).
    if (r.first_done_s > r.all_decoding_s) {
      uint64_t n = 0;
      for (const auto& [t, k] : r.events)
        if (t > r.all_decoding_s && t <= r.first_done_s) n += static_cast<uint64_t>(k);
      decode_tps.push_back(static_cast<double>(n) / (r.first_done_s - r.all_decoding_s));
    }
    ms_per_step.push_back(1e3 * r.wall_s * a.batch / std::max<double>(1.0, double(r.tokens)));
    if (!r.constraint_cpu_ms_per_token.empty()) cpu_p50.push_back(median_of_samples(r.constraint_cpu_ms_per_token));
    all_cpu.insert(all_cpu.end(), r.constraint_cpu_ms_per_token.begin(), r.constraint_cpu_ms_per_token.end());
    all_prepare.insert(all_prepare.end(), r.prepare_cpu_ms.begin(), r.prepare_cpu_ms.end());
    requests += r.requests, complete += r.complete, errors += r.errors;
    const double steps = std::max<double>(1.0, double(r.after.steps - r.before.steps));
    step_counts.push_back(steps);
    forward_ms.push_back(1e3 * (r.after.forward_s - r.before.forward_s) / steps);
    mask_ms.push_back(1e3 * (r.after.mask_s - r.before.mask_s) / steps);
    sample_ms.push_back(1e3 * (r.after.sample_s - r.before.sample_s) / steps);
    commit_ms.push_back(1e3 * (r.after.commit_s - r.before.commit_s) / steps);
  }
  nlohmann::ordered_json j;
  j["ms_per_token"] = median_of_samples(itl_p50);  // median over rounds of the per-round median inter-token latency
  j["itl_ms_p90"] = median_of_samples(itl_p90);
  j["wall_ms_per_step"] = median_of_samples(ms_per_step);
  j["tokens_per_s"] = median_of_samples(tps);
  if (!decode_tps.empty()) j["decode_tokens_per_s"] = median_of_samples(decode_tps);  // all B rows decoding
  j["requests"] = requests;
  j["steps_per_round"] = median_of_samples(step_counts);  // tokens per row, plus the admission's steps
  j["errors"] = errors;
  // Mean worker wall time per batch step (median over rounds), prefill steps included.
  j["step_ms"] = {{"forward", median_of_samples(forward_ms)}, {"mask", median_of_samples(mask_ms)}, {"sample", median_of_samples(sample_ms)},
                  {"commit_publish", median_of_samples(commit_ms)}};
  if (!all_cpu.empty()) {
    j["complete"] = complete;
    j["constraint_cpu_ms_per_token_p50"] = median_of_samples(cpu_p50);
    j["constraint_cpu_ms_per_token"] = summarize(all_cpu);
    j["prepare_cpu_ms"] = summarize(all_prepare);
  }
  return j;
}

// One B's rounds: a warm-up round per mode, then the timed ones.
struct BatchRounds {
  BenchArgs args;
  Round cold_free;
  std::optional<Round> cold_constrained;
  std::vector<Round> free, constrained;
  std::vector<double> read_gb_per_s;  // B=1: the read loop right before and after each of its repeats
};

// Warm-up, one full round per mode: pages the weights in, compiles the constraint and classifies the
// grammar states these documents reach (both are kept by the compile cache for later requests); its
// cold figures are reported separately.
BatchRounds warm_up(Engine& engine, const PreparedPrompt& prompt, const BenchArgs& a,
                    const std::optional<OutputConstraint>& c) {
  BatchRounds br{a, run_round(engine, prompt, a, std::nullopt, 0), std::nullopt, {}, {}, {}};
  if (!a.unconstrained_only) br.cold_constrained = run_round(engine, prompt, a, c, 0);
  return br;
}

// Repeat r of one B: its unconstrained and constrained rounds back to back, so drift hits both
// modes alike.
void run_repeat(Engine& engine, const PreparedPrompt& prompt, BatchRounds& br, const std::optional<OutputConstraint>& c,
                int r) {
  const BenchArgs& a = br.args;
  br.free.push_back(run_round(engine, prompt, a, std::nullopt, a.seed + r));
  if (!a.unconstrained_only) br.constrained.push_back(run_round(engine, prompt, a, c, a.seed + r));
}

// floor_bytes: the bytes the read loop of br.read_gb_per_s read (the weights').
nlohmann::ordered_json summarize_batch(const Engine& engine, const BatchRounds& br, const std::optional<OutputConstraint>& c,
                                       bool default_schema, size_t floor_bytes) {
  const BenchArgs& a = br.args;
  nlohmann::ordered_json out;
  out["model"] = engine.model_description();
  out["batch"] = a.batch;
  out["tokens_per_row"] = a.tokens;
  out["repeats"] = a.repeats;
  out["unconstrained"] = summarize_rounds(br.free, a);
  out["unconstrained"]["tokens_per_s_per_row"] = out["unconstrained"]["tokens_per_s"].get<double>() / a.batch;
  if (!br.read_gb_per_s.empty()) {
    // The memory-bandwidth floor: the weights' bytes at the read loop's median rate, against the
    // unconstrained rounds' median gap between tokens (and their forward pass alone).
    const double read = median_of_samples(br.read_gb_per_s);
    const double floor_ms = static_cast<double>(floor_bytes) / read * 1e-6;
    const double ms = out["unconstrained"]["ms_per_token"].get<double>();
    const double forward = out["unconstrained"]["step_ms"]["forward"].get<double>();
    out["memory_floor"] = {{"weight_bytes", floor_bytes},
                           {"read_gb_per_s", br.read_gb_per_s},
                           {"read_gb_per_s_p50", read},
                           {"floor_ms_per_token", floor_ms},
                           {"weights_gb_per_s", static_cast<double>(floor_bytes) / ms * 1e-6},
                           {"fraction_of_floor", ms > 0 ? floor_ms / ms : 0.0},
                           {"forward_fraction_of_floor", forward > 0 ? floor_ms / forward : 0.0}};
    // Each repeat against the two readings around it: the memory's rate moves within seconds here,
    // so the medians above can pair a round with readings taken in another round's phase.
    nlohmann::ordered_json repeats = nlohmann::ordered_json::array();
    std::vector<double> fractions;
    for (size_t r = 0; r < br.free.size() && 2 * r + 1 < br.read_gb_per_s.size(); ++r) {
      const double round_ms = median_of_samples(br.free[r].itl_ms);
      const double round_read = 0.5 * (br.read_gb_per_s[2 * r] + br.read_gb_per_s[2 * r + 1]);
      const double round_floor = static_cast<double>(floor_bytes) / round_read * 1e-6;
      fractions.push_back(round_ms > 0 ? round_floor / round_ms : 0.0);
      repeats.push_back({{"ms_per_token", round_ms},
                         {"read_gb_per_s", round_read},
                         {"floor_ms_per_token", round_floor},
                         {"fraction_of_floor", fractions.back()}});
    }
    out["memory_floor"]["repeats"] = repeats;
    if (!fractions.empty()) out["memory_floor"]["fraction_of_floor_by_repeat_p50"] = median_of_samples(fractions);
  }
  if (a.unconstrained_only) {
    out["cold_round"] = {{"unconstrained", summarize_rounds({br.cold_free}, a)}};
    return out;
  }
  out["constraint"] = constraint_kind_name(c->kind());
  out["default_schema"] = default_schema;
  out["cold_round"] = {{"unconstrained", summarize_rounds({br.cold_free}, a)},
                       {"constrained", summarize_rounds({*br.cold_constrained}, a)}};
  out["constrained"] = summarize_rounds(br.constrained, a);
  out["constrained"]["tokens_per_s_per_row"] = out["constrained"]["tokens_per_s"].get<double>() / a.batch;
  const double base = out["unconstrained"]["ms_per_token"].get<double>();
  const double with = out["constrained"]["ms_per_token"].get<double>();
  out["added_ms_per_token_p50"] = with - base;
  out["added_fraction_of_step"] = base > 0 ? (with - base) / base : 0.0;
  if (out["constrained"].contains("constraint_cpu_ms_per_token_p50")) {
    const double cpu = out["constrained"]["constraint_cpu_ms_per_token_p50"].get<double>();
    out["constraint_cpu_fraction_of_step"] = base > 0 ? cpu / base : 0.0;
  }
  return out;
}

int run_bench(const BenchArgs& args) {
  try {
    std::optional<OutputConstraint> c;
    const bool has_flags = has_constraint(args.constraint);
    if (has_flags)
      c = build_constraint(args.constraint);
    else  // default: a realistic schema whose documents are long, so rows stay in steady-state decode
      c = OutputConstraint::json_schema(kDefaultBenchSchema);
    EngineOptions eo;
    eo.model = args.model;
    eo.max_batch_rows = *std::max_element(args.batches.begin(), args.batches.end());
    eo.threads = args.threads;
    eo.prompt_attention = args.prompt_attention;
    eo.max_context = 4096;
    Engine engine(eo);
    PromptInput in;
    in.text = args.prompt;
    const PreparedPrompt prompt = engine.prepare(in);
    if (static_cast<int>(prompt.tokens.size()) + args.tokens + 1 > eo.max_context)
      throw std::invalid_argument("--tokens too large for a 4096-position context");
    // Every B warms up first; then each repeat runs every B in turn, so that a host whose speed drifts
    // (a shared machine's memory bandwidth moves by 20% within minutes) weighs on each B alike and
    // the ratios between them compare the same phases.
    std::vector<BatchRounds> batches;
    for (int b : args.batches) {
      BenchArgs a = args;
      a.batch = b;
      batches.push_back(warm_up(engine, prompt, a, c));
    }
    // B=1 against the memory-bandwidth floor, read right before and after each of its repeats.
    std::unique_ptr<ReadLoop> floor;
    const size_t weight_bytes = model_weight_bytes(args.model);
    if (weight_bytes > 0 && ReadLoop::affordable(weight_bytes) &&
        std::find(args.batches.begin(), args.batches.end(), 1) != args.batches.end())
      floor = std::make_unique<ReadLoop>(weight_bytes, args.threads);
    constexpr int kReadPasses = 3;
    for (int r = 0; r < args.repeats; ++r) {
      for (BatchRounds& br : batches) {
        const bool bracket = floor && br.args.batch == 1;
        if (bracket) br.read_gb_per_s.push_back(floor->gb_per_s(kReadPasses));
        run_repeat(engine, prompt, br, c, r);
        if (bracket) br.read_gb_per_s.push_back(floor->gb_per_s(kReadPasses));
      }
    }
    std::vector<nlohmann::ordered_json> runs;
    for (const BatchRounds& br : batches) runs.push_back(summarize_batch(engine, br, c, !has_flags, floor ? floor->bytes() : 0));
    if (runs.size() == 1) {
      std::cout << runs[0].dump(2) << std::endl;
      return 0;
    }
    // Several B: each run, and total throughput against the first B's.
    nlohmann::ordered_json out;
    out["model"] = engine.model_description();
    out["runs"] = runs;
    // Each B's unconstrained `field` over the first B's.
    auto ratios_of = [&](const char* field) {
      const double first = runs[0]["unconstrained"][field].get<double>();
      nlohmann::ordered_json ratios;
      for (const auto& r : runs)
        ratios["b" + std::to_string(r["batch"].get<int>())] = r["unconstrained"][field].get<double>() / first;
      return ratios;
    };
    out["unconstrained_total_tokens_per_s_vs_first"] = ratios_of("tokens_per_s");
    // The same for decode throughput alone (Round::events), where every run has it.
    if (std::all_of(runs.begin(), runs.end(), [](const auto& r) { return r["unconstrained"].contains("decode_tokens_per_s"); }))
      out["unconstrained_decode_tokens_per_s_vs_first"] = ratios_of("decode_tokens_per_s");
    std::cout << out.dump(2) << std::endl;
    return 0;
  } catch (const std::exception& e) {
    return report_request_error(e);
  }
}

}  // namespace

void register_bench_commands(CLI::App& app, int& status) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks that print JSON");
  bench->require_subcommand(1);
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = bench->add_subcommand("decode", "Unconstrained vs constrained decode speed in one process");
  cmd->add_option("--model", args->model, "HF model folder or GGUF file (default: the generated tiny model)");
  cmd->add_option("--batch", args->batches, "rows decoded together (B); a list (1,4,8,16) runs each in one process")
      ->delimiter(',')
      ->check(integer_option<int>(1, 256));
  cmd->add_flag("--unconstrained-only", args->unconstrained_only, "skip the constrained rounds");
  cmd->add_option("--tokens", args->tokens, "tokens per row (N)")->check(integer_option<int>(2, 100000));
  cmd->add_option("--repeats", args->repeats, "rounds per mode (medians are reported)")->check(integer_option<int>(1, 100));
  cmd->add_option("--threads", args->threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
  add_prompt_attention_flag(*cmd, args->prompt_attention);
  cmd->add_option("--prompt", args->prompt, "prompt text");
  cmd->add_option("--seed", args->seed, "base seed")->check(integer_option<uint64_t>(0));
  cmd->add_option("--temperature", args->temperature, "sampling temperature")->check(number_option(at_least(0)));
  add_constraint_flags(*cmd, args->constraint);
  cmd->callback([args, &status] { status = run_bench(*args); });
  register_bench_chat_command(*bench, status);
  register_bench_prefill_command(*bench, status);
  register_bench_server_command(*bench, status);
  register_bench_spec_command(*bench, status);
}

}  // namespace ninfer::cli
