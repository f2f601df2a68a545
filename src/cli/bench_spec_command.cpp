#include "cli/bench_spec_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/bench_schema.h"
#include "cli/constraint_flags.h"
#include "cli/error_report.h"
#include "cli/latency_stats.h"
#include "cli/option_checks.h"
#include "cli/prompt_attention_flag.h"
#include "cli/speculative_flags.h"
#include "ninfer/engine.h"

namespace ninfer::cli {
namespace {
namespace spec {  // the CLI compiles in unity batches: names here must not meet other benches'

using Clock = std::chrono::steady_clock;

struct SpecArgs {
  EngineOptions engine;  // model, proposer, K
  int batch = 1;
  int tokens = 128;
  int repeats = 3;
  float temperature = 0.0f;
  std::string prompt = "Here is the requested JSON document:\n";
  ConstraintArgs constraint;
  bool constrained_only = false;
};

// One round: B rows, one request each, all in flight together.
struct Round {
  double wall_s = 0;
  uint64_t tokens = 0;
  std::vector<std::vector<int32_t>> outputs;  // per row
  EngineStats before, after;
};

Round run_round(Engine& engine, const PreparedPrompt& prompt, const SpecArgs& a, const std::optional<OutputConstraint>& c,
                bool speculative, uint64_t seed) {
  Round round;
  round.outputs.resize(static_cast<size_t>(a.batch));
  round.before = engine.stats();
  std::mutex mu;
  const auto t0 = Clock::now();
  std::vector<std::thread> rows;
  for (int row = 0; row < a.batch; ++row) {
    rows.emplace_back([&, row] {
      RequestOptions ro;
      ro.max_tokens = a.tokens;
      ro.sampling.temperature = a.temperature;
      ro.sampling.seed = seed * 7919 + static_cast<uint64_t>(row);
      if (!speculative) ro.max_draft_tokens = 0;
      if (c)
        ro.constraint = *c;
      else
        ro.ignore_eos = true;
      const GenerationResult r = engine.submit(prompt, ro).wait();
      std::lock_guard<std::mutex> lock(mu);
      round.tokens += r.tokens.size();
      round.outputs[static_cast<size_t>(row)] = r.tokens;
    });
  }
  for (auto& t : rows) t.join();
  round.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  round.after = engine.stats();
  return round;
}

nlohmann::ordered_json summarize(const std::vector<Round>& rounds, int batch) {
  std::vector<double> tps, mask_ms, exposed_ms, forward_ms, tokens_per_row_step;
  uint64_t drafted = 0, accepted = 0, illegal = 0, draft_rows = 0;
  for (const Round& r : rounds) {
    tps.push_back(r.tokens / r.wall_s);
    const double steps = std::max<double>(1.0, double(r.after.steps - r.before.steps));
    mask_ms.push_back(1e3 * (r.after.mask_s - r.before.mask_s) / steps);
    exposed_ms.push_back(1e3 * (r.after.mask_exposed_s - r.before.mask_exposed_s) / steps);
    forward_ms.push_back(1e3 * (r.after.forward_s - r.before.forward_s) / steps);
    const double rows = std::max<double>(1.0, double(r.after.rows_decoded - r.before.rows_decoded));
    tokens_per_row_step.push_back(double(r.tokens) / rows);
    drafted += r.after.draft_tokens - r.before.draft_tokens;
    accepted += r.after.draft_tokens_accepted - r.before.draft_tokens_accepted;
    illegal += r.after.draft_tokens_illegal - r.before.draft_tokens_illegal;
    draft_rows += r.after.draft_rows - r.before.draft_rows;
  }
  nlohmann::ordered_json j;
  j["tokens_per_s"] = median_of_samples(tps);
  j["ms_per_token"] = 1e3 * batch / j["tokens_per_s"].get<double>();  // of the same median round
  j["tokens_per_row_step"] = median_of_samples(tokens_per_row_step);
  j["forward_ms_per_step"] = median_of_samples(forward_ms);
  // The masks are filled on the mask thread during the forward pass; exposed is what the step
  // waited for them after it.
  j["mask_ms_per_step"] = median_of_samples(mask_ms);
  j["exposed_mask_ms_per_step"] = median_of_samples(exposed_ms);
  if (drafted > 0) {
    j["drafted"] = drafted;
    j["accepted"] = accepted;
    j["illegal"] = illegal;
    j["acceptance_rate"] = double(accepted) / double(drafted);
    j["accepted_per_verification"] = double(accepted) / double(std::max<uint64_t>(draft_rows, 1));
  }
  return j;
}

nlohmann::ordered_json run_mode(Engine& engine, const PreparedPrompt& prompt, const SpecArgs& a,
                                const std::optional<OutputConstraint>& c) {
  run_round(engine, prompt, a, c, false, 0);  // warm-up: pages the weights in, compiles the constraint
  run_round(engine, prompt, a, c, true, 0);
  std::vector<Round> plain, spec;
  int identical = 0, compared = 0;
  for (int r = 0; r < a.repeats; ++r) {  // interleaved, so drift hits both alike
    plain.push_back(run_round(engine, prompt, a, c, false, 1 + r));
    spec.push_back(run_round(engine, prompt, a, c, true, 1 + r));
    for (size_t row = 0; row < plain.back().outputs.size(); ++row) {
      ++compared;
      identical += plain.back().outputs[row] == spec.back().outputs[row];
    }
  }
  nlohmann::ordered_json j;
  j["plain"] = summarize(plain, a.batch);
  const EngineStats end = engine.stats();
  j["measured_costs_ms"] = {{"decode_step", 1e3 * end.decode_step_cost_s},
                            {"draft_position", 1e3 * end.draft_position_cost_s}};
  // The forward by a decode step's positions, as the draft cost check sees it.
  nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
  for (size_t n = 1; n < end.step_cost_s.size(); ++n)
    if (end.step_cost_s[n] > 0) shapes[std::to_string(n)] = 1e3 * end.step_cost_s[n];
  j["step_cost_ms_by_positions"] = shapes;
  j["speculative"] = summarize(spec, a.batch);
  j["speedup"] = j["speculative"]["tokens_per_s"].get<double>() / j["plain"]["tokens_per_s"].get<double>();
  // At temperature 0 speculative decoding must give plain decoding's tokens (same seeds otherwise
  // give different draws of the same distribution, so nothing is compared).
  if (a.temperature == 0.0f) j["identical_outputs"] = std::to_string(identical) + "/" + std::to_string(compared);
  return j;
}

int run_spec(const SpecArgs& a) {
  try {
    std::optional<OutputConstraint> c = has_constraint(a.constraint) ? build_constraint(a.constraint)
                                                                     : OutputConstraint::json_schema(kDefaultBenchSchema);
    EngineOptions eo = a.engine;
    eo.max_batch_rows = a.batch;
    if (eo.speculative == SpeculativeMethod::None) throw std::invalid_argument("--proposer is required (grammar, ngram or draft)");
    Engine engine(eo);
    PromptInput in;
    in.text = a.prompt;
    const PreparedPrompt prompt = engine.prepare(in);
    nlohmann::ordered_json out;
    out["model"] = engine.model_description();
    out["proposer"] = speculative_method_name(eo.speculative);
    if (eo.speculative == SpeculativeMethod::Draft) {
      out["draft_model"] = eo.draft_model;
      out["draft_q"] = eo.draft_q == DraftDistribution::Sparse16 ? "sparse16" : "one-hot";
    }
    out["batch"] = a.batch;
    out["tokens_per_row"] = a.tokens;
    out["draft_tokens"] = eo.max_draft_tokens == 0 ? 4 : eo.max_draft_tokens;
    out["adaptive_draft_tokens"] = eo.adaptive_draft_tokens;
    out["draft_cost_check"] = eo.draft_cost_check;
    out["temperature"] = a.temperature;
    out["repeats"] = a.repeats;
    out["constraint"] = has_constraint(a.constraint) ? constraint_kind_name(c->kind()) : "default_schema";
    out["constrained"] = run_mode(engine, prompt, a, c);
    if (!a.constrained_only) {
      out["unconstrained"] = run_mode(engine, prompt, a, std::nullopt);
      const auto& cs = out["constrained"]["speculative"];
      const auto& us = out["unconstrained"]["speculative"];
      if (cs.contains("accepted_per_verification") && us.contains("accepted_per_verification") &&
          us["accepted_per_verification"].get<double>() > 0)
        out["constrained_vs_unconstrained_accepted_length"] =
            cs["accepted_per_verification"].get<double>() / us["accepted_per_verification"].get<double>();
    }
    std::cout << out.dump(2) << std::endl;
    return 0;
  } catch (const std::exception& e) {
    return report_request_error(e);
  }
}

}  // namespace spec
}  // namespace

void register_bench_spec_command(CLI::App& bench, int& status) {
  auto args = std::make_shared<spec::SpecArgs>();
  CLI::App* cmd = bench.add_subcommand("spec", "Speculative vs plain decoding, constrained and unconstrained, in one process");
  cmd->add_option("--model", args->engine.model, "HF model folder or GGUF file (default: the generated tiny model)");
  add_speculative_flags(*cmd, args->engine, "--proposer,--speculative");
  add_prompt_attention_flag(*cmd, args->engine.prompt_attention);
  cmd->add_option("--batch", args->batch, "rows decoded together (B)")->check(integer_option<int>(1, 256));
  cmd->add_option("--tokens", args->tokens, "tokens per row (N)")->check(integer_option<int>(2, 100000));
  cmd->add_option("--repeats", args->repeats, "rounds per mode (medians are reported)")->check(integer_option<int>(1, 100));
  cmd->add_option("--threads", args->engine.threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
  cmd->add_option("--temperature", args->temperature, "sampling temperature (0: outputs are compared too)")
      ->check(number_option(at_least(0)));
  cmd->add_option("--prompt", args->prompt, "prompt text");
  cmd->add_flag("--constrained-only", args->constrained_only, "skip the unconstrained rounds");
  add_constraint_flags(*cmd, args->constraint);
  cmd->callback([args, &status] { status = spec::run_spec(*args); });
}

}  // namespace ninfer::cli
