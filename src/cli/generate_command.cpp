#include "cli/generate_command.h"

#include <iostream>
#include <memory>

#include "api/result_json.h"
#include "cli/constraint_flags.h"
#include "cli/error_report.h"
#include "cli/option_checks.h"
#include "cli/prompt_attention_flag.h"
#include "cli/speculative_flags.h"
#include "jinja/chat_template.h"
#include "ninfer/engine.h"

namespace ninfer::cli {
namespace {

struct GenerateArgs {
  std::string model;
  std::string prompt;
  std::string prompt_file;
  bool chat = false;
  std::string system;
  std::string chat_template;  // bundled name or file; "" = the model's own
  bool no_thinking = false;
  int thinking_budget = -1;
  ConstraintArgs constraint;
  int max_tokens = 256;
  float temperature = 1.0f;
  int top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  int64_t seed = -1;
  int threads = 0;
  bool json = false;
  bool timings = false;
  EngineOptions engine;  // the speculative-decoding flags
};

int run_generate(const GenerateArgs& a) {
  try {
    PromptInput in;
    in.text = a.prompt_file.empty() ? a.prompt : read_file(a.prompt_file);
    in.chat = a.chat;
    in.system = a.system;
    if (a.chat && (!a.chat_template.empty() || a.no_thinking)) {
      // The same single turn, with the chosen template or thinking switched off.
      nlohmann::json messages = nlohmann::json::array();
      if (!a.system.empty()) messages.push_back({{"role", "system"}, {"content", a.system}});
      messages.push_back({{"role", "user"}, {"content", in.text}});
      nlohmann::json context = {{"messages", messages}, {"add_generation_prompt", true}};
      if (a.no_thinking) context["enable_thinking"] = false;
      ChatPromptInput cp;
      cp.context_json = context.dump();
      if (!a.chat_template.empty()) {
        const jinja::ChatTemplateSource t = jinja::load_chat_template(a.chat_template);
        cp.template_source = t.source;
        cp.bos_token = t.bos_token;
        cp.eos_token = t.eos_token;
      }
      in.chat_prompt = std::move(cp);
    }
    RequestOptions ro;
    ro.max_tokens = a.max_tokens;
    ro.sampling.temperature = a.temperature;
    ro.sampling.top_k = a.top_k;
    ro.sampling.top_p = a.top_p;
    ro.sampling.min_p = a.min_p;
    ro.sampling.presence_penalty = a.presence_penalty;
    ro.sampling.frequency_penalty = a.frequency_penalty;
    if (a.seed >= 0) ro.sampling.seed = static_cast<uint64_t>(a.seed);
    ro.phase_timings = a.timings || a.json;
    if (a.thinking_budget >= 0) ro.thinking_token_budget = a.thinking_budget;
    // The constraint is read and built before the model loads: a bad schema fails fast.
    if (has_constraint(a.constraint)) ro.constraint = build_constraint(a.constraint);

    EngineOptions eo = a.engine;
    eo.model = a.model;
    eo.max_batch_rows = 1;
    eo.threads = a.threads;
    Engine engine(eo);
    RequestHandle h = engine.submit(engine.prepare(in), std::move(ro));
    if (!a.json) {
      while (auto ev = h.next()) {
        std::cout << ev->text << std::flush;
        if (ev->done) break;
      }
      std::cout << "\n";
    }
    const GenerationResult r = h.wait();
    if (a.json) {
      nlohmann::json j = api::generation_result_json(r);
      j["model"] = engine.model_description();
      std::cout << j.dump() << std::endl;
    } else {
      std::cerr << "[finish_reason=" << finish_reason_name(r.finish_reason) << " tokens=" << r.usage.completion_tokens;
      if (r.constraint) std::cerr << " complete=" << r.constraint->complete << " terminated=" << r.constraint->terminated;
      if (r.constraint && !r.constraint->ignored_keywords.empty())
        std::cerr << " ignored_keywords=" << nlohmann::json(r.constraint->ignored_keywords).dump();
      if (r.constraint && !r.constraint->suspected_typos.empty())
        std::cerr << " suspected_typos=" << api::suspected_typos_json(r.constraint->suspected_typos).dump();
      if (r.drafts.drafted > 0)
        std::cerr << " drafted=" << r.drafts.drafted << " accepted=" << r.drafts.accepted << " illegal=" << r.drafts.illegal;
      if (r.error) std::cerr << " error=" << request_error_kind_name(*r.error) << ": " << r.error_message;
      std::cerr << "]\n";
    }
    return r.finish_reason == FinishReason::Error ? 3 : 0;
  } catch (const std::exception& e) {
    return report_request_error(e);
  }
}

void add_sampling_flags(CLI::App& cmd, GenerateArgs& a) {
  cmd.add_option("--max-tokens", a.max_tokens, "maximum generated tokens")->check(integer_option<int>(1));
  cmd.add_option("--temperature", a.temperature, "sampling temperature (0 = greedy)")->check(number_option(at_least(0)));
  cmd.add_option("--top-k", a.top_k, "top-k inside the legal set (0 = off)")->check(integer_option<int>(0));
  cmd.add_option("--top-p", a.top_p, "nucleus probability (1 = off)")
      ->check(number_option(between(0, 1, true)));
  cmd.add_option("--min-p", a.min_p, "min-p relative to the most likely legal token (0 = off)")
      ->check(number_option(between(0, 1)));
  cmd.add_option("--presence-penalty", a.presence_penalty, "OpenAI presence penalty")->check(number_option(any_number()));
  cmd.add_option("--frequency-penalty", a.frequency_penalty, "OpenAI frequency penalty")->check(number_option(any_number()));
  cmd.add_option("--seed", a.seed, "sampling seed (default: random, reported with --json)")
      ->check(integer_option<int64_t>(0));
  cmd.add_option("--threads", a.threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
}

}  // namespace

void register_generate_command(CLI::App& app, int& status) {
  auto args = std::make_shared<GenerateArgs>();
  CLI::App* cmd = app.add_subcommand("generate", "Generate a continuation, optionally under an output constraint");
  cmd->add_option("--model", args->model, "HF model folder or GGUF file (default: the generated tiny Qwen3 model)");
  auto* p = cmd->add_option("--prompt", args->prompt, "prompt text");
  auto* pf = cmd->add_option("--prompt-file", args->prompt_file, "file holding the prompt");
  p->excludes(pf);
  cmd->add_flag("--chat", args->chat, "render the prompt as one user turn through the chat template");
  cmd->add_option("--system", args->system, "with --chat: a system message");
  cmd->add_option("--chat-template", args->chat_template,
                  "with --chat: bundled template name (qwen3, qwen3_5, qwen3_coder) or a .jinja / tokenizer_config.json file "
                  "(default: the model's own)");
  cmd->add_flag("--no-thinking", args->no_thinking, "with --chat: render with enable_thinking=false");
  cmd->add_option("--thinking-budget", args->thinking_budget, "with --chat: thinking tokens before the close is forced")
      ->check(integer_option<int>(0));
  add_constraint_flags(*cmd, args->constraint);
  add_sampling_flags(*cmd, *args);
  add_speculative_flags(*cmd, args->engine);
  add_prompt_attention_flag(*cmd, args->engine.prompt_attention);
  cmd->add_flag("--json", args->json, "print one JSON object: text, finish_reason, usage, constraint");
  cmd->add_flag("--timings", args->timings, "measure constraint phase CPU times");
  cmd->callback([args, &status, p, pf] {
    if (p->count() == 0 && pf->count() == 0) throw CLI::ValidationError("--prompt or --prompt-file is required");
    status = run_generate(*args);
  });
}

}  // namespace ninfer::cli
