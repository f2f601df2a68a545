#include "cli/bench_chat_command.h"

#include <chrono>
#include <iostream>
#include <cmath>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/latency_stats.h"
#include "cli/mask_bits.h"
#include "cli/option_checks.h"
#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "jinja/chat_template.h"
#include "jinja/template.h"
#include "models/model_loader.h"
#include "runtime/chat_prompt.h"
#include "models/qwen3/frontend/qwen3_frontend.h"
#include "ninfer/engine.h"
#include "tokenizer/token_domain_source.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchChatArgs {
  std::string model;
  std::string chat_template;  // "" = the model's own
  std::vector<int> tool_counts{1, 5, 20};
  int repeats = 7;
  std::string format = "auto";
  int walk_tokens = 256;
  uint32_t eager_states = 1024;  // the engine's CompileOptions::eager_max_kernel_states
  uint64_t seed = 1;
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A realistic strict tool, one of six shapes (flat scalars, enums, nested objects, arrays of
// objects, optional fields as nullable unions), named uniquely by `tag` so that each set is new
// to the compile cache.
nlohmann::ordered_json make_tool(int index, const std::string& tag) {
  const std::string name = "tool_" + std::to_string(index) + "_" + tag;
  nlohmann::ordered_json params;
  switch (index % 6) {
    case 0:
      params = nlohmann::ordered_json::parse(R"({"type":"object","properties":{"city":{"type":"string","description":"City name"},
        "unit":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14}},
        "required":["city","unit","days"],"additionalProperties":false})");
      break;
    case 1:
      params = nlohmann::ordered_json::parse(R"({"type":"object","properties":{"query":{"type":"string","maxLength":200},
        "max_results":{"type":"integer","minimum":1,"maximum":50},"safe":{"type":"boolean"},
        "site":{"type":["string","null"]}},"required":["query","max_results","safe","site"],"additionalProperties":false})");
      break;
    case 2:
      params = nlohmann::ordered_json::parse(R"({"type":"object","properties":{"title":{"type":"string"},"start":{"type":"string","format":"date-time"},
        "attendees":{"type":"array","maxItems":8,"items":{"type":"object","properties":{"email":{"type":"string","format":"email"},
        "optional":{"type":"boolean"}},"required":["email","optional"],"additionalProperties":false}},
        "location":{"type":"object","properties":{"room":{"type":"string"},"floor":{"type":"integer"}},
        "required":["room","floor"],"additionalProperties":false}},
        "required":["title","start","attendees","location"],"additionalProperties":false})");
      break;
    case 3:
      params = nlohmann::ordered_json::parse(R"({"type":"object","properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"},
        "quantity":{"type":"integer","minimum":1},"price":{"type":"number","minimum":0},
        "priority":{"type":"string","enum":["low","normal","high","urgent"]}},
        "required":["sku","quantity","price","priority"],"additionalProperties":false})");
      break;
    case 4:
      params = nlohmann::ordered_json::parse(R"({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},
        "mode":{"type":"string","enum":["overwrite","append"]},"create_dirs":{"type":"boolean"}},
        "required":["path","content","mode","create_dirs"],"additionalProperties":false})");
      break;
    default:
      params = nlohmann::ordered_json::parse(R"({"type":"object","properties":{"filters":{"type":"array","items":{"type":"object","properties":{
        "field":{"type":"string","enum":["name","age","country","created"]},"op":{"type":"string","enum":["eq","lt","gt","contains"]},
        "value":{"type":["string","number"]}},"required":["field","op","value"],"additionalProperties":false}},
        "limit":{"type":"integer","minimum":1,"maximum":1000},"order":{"type":"string","enum":["asc","desc"]}},
        "required":["filters","limit","order"],"additionalProperties":false})");
      break;
  }
  // The tag also enters the schema text (an annotation), so no cache keyed by the parameters
  // text (the argument grammars', the compile cache's) has seen this tool.
  params["description"] = "Arguments of " + name;
  return {{"type", "function"},
          {"function", {{"name", name}, {"description", "Benchmark tool " + name}, {"parameters", params}, {"strict", true}}}};
}

PromptInput chat_input(int tools, const std::string& tag, const BenchChatArgs& a, const std::string& template_source) {
  nlohmann::ordered_json t = nlohmann::ordered_json::array();
  for (int i = 0; i < tools; ++i) t.push_back(make_tool(i, tag));
  nlohmann::ordered_json context = {
      {"messages", nlohmann::ordered_json::array({{{"role", "system"}, {"content", "You are a helpful assistant."}},
                                          {{"role", "user"}, {"content", "Please call the right tool for my request."}}})},
      {"tools", t},
      {"add_generation_prompt", true},
      {"enable_thinking", false}};
  PromptInput in;
  ChatPromptInput cp;
  cp.context_json = context.dump();
  cp.template_source = template_source;
  cp.tool_format = a.format == "json" ? ToolCallFormat::Json : a.format == "xml" ? ToolCallFormat::Xml : ToolCallFormat::Auto;
  in.chat_prompt = std::move(cp);
  return in;
}

RequestOptions required_call() {
  RequestOptions ro;
  ro.max_tokens = 1;
  ro.sampling.seed = 1;
  ToolChoice choice;
  choice.mode = ToolChoiceMode::Required;
  ro.tool_choice = choice;
  return ro;
}

// One request's preparation, in milliseconds: Engine::prepare (render, tool parsing, tokenising)
// and Engine::submit (the output grammar from the cache or compiled, the session and its initial
// mask), and the render and tokenising alone, measured apart on the same input.
struct PrepareTimes {
  double prepare = 0, submit = 0, render = 0, tokenize = 0;
};

PrepareTimes prepare_times(Engine& engine, const PromptInput& in, const std::string& template_source,
                           const tokenizer::Tokenizer& tok) {
  PrepareTimes t;
  Clock::time_point t0 = Clock::now();
  PreparedPrompt p = engine.prepare(in);
  t.prepare = ms_since(t0);
  const std::string rendered = p.rendered;
  t0 = Clock::now();
  RequestHandle h = engine.submit(std::move(p), required_call());
  t.submit = ms_since(t0);
  h.wait();
  // Let the model's thread pool go idle: its spinning workers would otherwise take the cores from
  // the next measurement (this machine has two).
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const nlohmann::ordered_json context = nlohmann::ordered_json::parse(in.chat_prompt->context_json);
  const auto tmpl = jinja::parse_cached(template_source);
  t0 = Clock::now();
  const std::string again = tmpl->render(context);
  t.render = ms_since(t0);
  t0 = Clock::now();
  const std::vector<int32_t> ids = tok.encode(rendered);
  t.tokenize = ms_since(t0);
  if (again.empty() || ids.empty()) throw std::runtime_error("empty render");
  return t;
}

// The output grammar built and compiled outside the cache (lowering and compile timed apart, with
// the engine's compile options), then mask fill times along seeded random walks through it.
struct GrammarTimes {
  double lower_ms = 0, compile_ms = 0;
  std::vector<double> mask_us;
};

GrammarTimes grammar_times(const PreparedPrompt& p, const std::shared_ptr<const grammar::TokenDomain>& domain,
                           const BenchChatArgs& a) {
  qwen3::OutputLanguage lang;
  lang.start = p.start;
  lang.tools = &p.tools;
  lang.format = p.tool_format;
  lang.choice.mode = ToolChoiceMode::Required;
  GrammarTimes out;
  Clock::time_point t0 = Clock::now();
  grammar::Grammar g = qwen3::output_language_grammar(lang);
  out.lower_ms = ms_since(t0);
  grammar::CompileOptions co;
  co.eager_max_kernel_states = a.eager_states;  // the engine compiles with 1024
  t0 = Clock::now();
  auto compiled = grammar::compile(g, domain, co);
  out.compile_ms = ms_since(t0);
  std::vector<double>& us = out.mask_us;
  std::mt19937_64 rng(a.seed);
  for (int walk = 0; walk < 4; ++walk) {
    grammar::Matcher m(compiled);
    std::vector<uint32_t> words(m.mask_words());
    for (int step = 0; step < a.walk_tokens && !m.terminated(); ++step) {
      const Clock::time_point t0 = Clock::now();
      m.fill_mask(words.data());
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      const uint64_t legal = count_set_bits(words);
      if (legal == 0) break;
      if (!m.accept_token(kth_set_bit(words, rng() % legal))) break;
    }
  }
  return out;
}

int run_bench_chat(const BenchChatArgs& a) {
  try {
    EngineOptions eo;
    eo.model = a.model;
    eo.max_batch_rows = 1;
    eo.max_context = 8192;
    Engine engine(eo);
    std::string source;
    if (!a.chat_template.empty()) source = jinja::load_chat_template(a.chat_template, true).source;
    // The template the engine renders with when none is given: the model's own.
    const std::string render_source =
        source.empty() ? runtime::ModelChatTemplates(runtime::model_tokenizer_config(
                                                         a.model.empty() ? models::ensure_default_model() : a.model),
                                                     "model")
                             .select(true)
                             .source
                       : source;
    nlohmann::ordered_json out;
    out["bench"] = "chat-prepare";
    out["model"] = engine.model_description();
    out["repeats"] = a.repeats;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    // Mask walks over the Qwen3 vocabulary (the default model's and every Qwen3 checkpoint's).
    std::shared_ptr<const tokenizer::Tokenizer> tok = tokenizer::Tokenizer::load("qwen3");
    std::shared_ptr<const grammar::TokenDomain> domain = tokenizer::build_token_domain(*tok);
    for (int n : a.tool_counts) {
      // Cold: a tool set the cache has never seen; warm: the same request again.
      std::vector<PrepareTimes> cold, warm;
      for (int r = 0; r < a.repeats; ++r) {
        const PromptInput in = chat_input(n, "r" + std::to_string(r) + "n" + std::to_string(n), a, source);
        cold.push_back(prepare_times(engine, in, render_source, *tok));
        warm.push_back(prepare_times(engine, in, render_source, *tok));
      }
      const auto column = [](const std::vector<PrepareTimes>& v, double PrepareTimes::*f) {
        std::vector<double> out;
        for (const PrepareTimes& t : v) out.push_back(t.*f);
        return summarize(out);
      };
      const auto grammar_cost = [](const std::vector<PrepareTimes>& v) {
        std::vector<double> out;  // render + tool grammar: the issue's prepare target
        for (const PrepareTimes& t : v) out.push_back(t.render + t.submit);
        return summarize(out);
      };
      const PreparedPrompt p = engine.prepare(chat_input(n, "walk", a, source));
      nlohmann::ordered_json row;
      row["tools"] = n;
      row["format"] = tool_call_format_name(p.tool_format);
      row["prompt_tokens"] = p.tokens.size();
      for (const auto& [name, v] : {std::pair{"cold", &cold}, std::pair{"warm", &warm}}) {
        nlohmann::ordered_json j;
        j["render_plus_grammar_ms"] = grammar_cost(*v);
        j["render_ms"] = column(*v, &PrepareTimes::render);
        j["submit_ms"] = column(*v, &PrepareTimes::submit);
        j["prepare_ms"] = column(*v, &PrepareTimes::prepare);
        j["tokenize_ms"] = column(*v, &PrepareTimes::tokenize);
        row[name] = j;
      }
      const GrammarTimes g = grammar_times(p, domain, a);
      row["lower_ms"] = std::round(g.lower_ms * 1000) / 1000;
      row["compile_ms"] = std::round(g.compile_ms * 1000) / 1000;
      row["mask_us"] = summarize(g.mask_us);
      rows.push_back(row);
    }
    out["results"] = rows;
    std::cout << out.dump() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cout << nlohmann::json{{"error", {{"kind", "bench"}, {"message", e.what()}}}}.dump() << std::endl;
    return 2;
  }
}

}  // namespace

void register_bench_chat_command(CLI::App& bench, int& status) {
  auto args = std::make_shared<BenchChatArgs>();
  CLI::App* cmd = bench.add_subcommand("chat-prepare", "Chat prepare time (render + tool grammar), cold and warm, and tool-grammar mask time");
  cmd->add_option("--model", args->model, "HF model folder or GGUF file (default: the generated tiny model)");
  cmd->add_option("--chat-template", args->chat_template, "bundled name (qwen3, qwen3_5, qwen3_coder) or template file");
  cmd->add_option("--tools", args->tool_counts, "strict tool counts to measure")->delimiter(',');
  cmd->add_option("--repeats", args->repeats, "requests per count (medians are reported)")->check(integer_option<int>(1, 1000));
  cmd->add_option("--format", args->format, "tool-call format")->check(CLI::IsMember({"auto", "json", "xml"}));
  cmd->add_option("--walk-tokens", args->walk_tokens, "tokens per mask-timing walk")->check(integer_option<int>(1, 100000));
  cmd->add_option("--eager-states", args->eager_states,
                  "walk grammars: classify every state at compile up to this many kernel states (engine: 1024; 0 = lazy)");
  cmd->add_option("--seed", args->seed, "walk seed")->check(integer_option<uint64_t>(0));
  cmd->callback([args, &status] { status = run_bench_chat(*args); });
}

}  // namespace ninfer::cli
