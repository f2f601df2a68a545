// End-to-end tool calling for CTest `e2e_chat_tools`: every tool set of tests/frontend/tool_sets.json
// in both Qwen formats (the qwen3 template writes JSON calls, qwen3_5 XML calls), under
// tool_choice required and named, plus tool_choice none and parallel_tool_calls false, on a model
// (the default generated tiny Qwen3 model unless --model is given), many requests in flight. One
// JSONL record per request for check_chat_tools.mjs, which validates every call with Ajv.
//
// Usage: chat_tools_driver --tool-sets FILE --out FILE [--model PATH] [--max-tokens M] [--seed S]
#include <deque>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jinja/chat_template.h"
#include "ninfer/constraint_error.h"
#include "ninfer/engine.h"

namespace {

using nlohmann::json;

struct Case {
  size_t set = 0;
  std::string name, format, choice;
  int budget = -1;     // thinking cases: the thinking token budget
  std::string prefix;  // continuation cases: the continued body
  ninfer::PromptInput prompt;
  ninfer::RequestOptions options;
};

}  // namespace

int main(int argc, char** argv) {
  std::string sets_path, out_path, model;
  int max_tokens = 512;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--tool-sets") sets_path = next();
    else if (a == "--out") out_path = next();
    else if (a == "--model") model = next();
    else if (a == "--max-tokens") max_tokens = std::stoi(next());
    else if (a == "--seed") seed = std::stoull(next());
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  std::ifstream in(sets_path);
  const json sets = json::parse(in);
  std::vector<Case> cases;
  for (size_t s = 0; s < sets.size(); ++s) {
    const json& tools = sets[s].at("tools");
    for (const char* tmpl : {"qwen3", "qwen3_5"}) {
      json context = {{"messages", json::array({{{"role", "system"}, {"content", "You call tools."}},
                                                {{"role", "user"}, {"content", "Use the tools for this task."}}})},
                      {"tools", tools},
                      {"add_generation_prompt", true},
                      {"enable_thinking", false}};
      ninfer::ChatPromptInput cp;
      cp.context_json = context.dump();
      cp.template_source = std::string(*ninfer::jinja::bundled_template(tmpl));
      // Alternate the last tool-choice case between none and parallel=false to keep the run bounded.
      for (const char* choice : {"required", "named", s % 2 ? "none" : "single"}) {
        Case c;
        c.set = s;
        c.name = sets[s].value("name", "set" + std::to_string(s));
        c.format = std::string(tmpl) == "qwen3" ? "json" : "xml";
        c.choice = choice;
        c.prompt.chat_prompt = cp;
        c.options.max_tokens = max_tokens;
        c.options.sampling.seed = seed + s * 7 + cases.size();
        ninfer::ToolChoice tc;
        if (c.choice == "required") {
          tc.mode = ninfer::ToolChoiceMode::Required;
        } else if (c.choice == "named") {
          tc.mode = ninfer::ToolChoiceMode::Required;
          tc.allowed_names = {tools.back().at("function").at("name").get<std::string>()};
          tc.parallel = false;
        } else if (c.choice == "none") {
          tc.mode = ninfer::ToolChoiceMode::None;
          c.options.max_tokens = 64;
        } else {
          tc.mode = ninfer::ToolChoiceMode::Required;
          tc.parallel = false;
        }
        c.options.tool_choice = tc;
        cases.push_back(std::move(c));
      }
    }
  }

  // Thinking under a budget with a JSON Schema body (the first tool's parameters as the schema):
  // Qwen3.5's template opens <think> in the prompt.
  for (size_t s = 0; s < sets.size(); s += 5) {
    json context = {{"messages", json::array({{{"role", "user"}, {"content", "Think, then answer in JSON."}}})},
                    {"add_generation_prompt", true}};
    Case c;
    c.set = s;
    c.name = sets[s].value("name", "set" + std::to_string(s));
    c.format = "json";
    c.choice = "thinking";
    c.budget = int((s / 5) % 3) * 16;
    c.prompt.chat_prompt = ninfer::ChatPromptInput{};
    c.prompt.chat_prompt->context_json = context.dump();
    c.prompt.chat_prompt->template_source = std::string(*ninfer::jinja::bundled_template("qwen3_5"));
    c.options.max_tokens = max_tokens;
    c.options.sampling.seed = seed + 1000 + s;
    c.options.thinking_token_budget = c.budget;
    c.options.constraint = ninfer::OutputConstraint::json_schema(sets[s].at("tools")[0].at("function").at("parameters").dump());
    cases.push_back(std::move(c));
  }

  // Continuations of a JSON body: the final assistant message holds the opening of an object of
  // the first tool's parameters (its first declared key), the constraint starts after it, and the
  // checker validates prefix + suffix with Ajv.
  for (size_t s = 2; s < sets.size(); s += 5) {
    const json& params = sets[s].at("tools")[0].at("function").at("parameters");
    if (!params.contains("properties") || params["properties"].empty()) continue;
    const std::string prefix = "{" + json(params["properties"].begin().key()).dump() + ":";
    json context = {{"messages", json::array({{{"role", "user"}, {"content", "Answer in JSON."}},
                                              {{"role", "assistant"}, {"content", prefix}}})},
                    {"add_generation_prompt", false},
                    {"enable_thinking", false}};
    Case c;
    c.set = s;
    c.name = sets[s].value("name", "set" + std::to_string(s));
    c.format = "json";
    c.choice = "continuation";
    c.prompt.chat_prompt = ninfer::ChatPromptInput{};
    c.prompt.chat_prompt->context_json = context.dump();
    c.prompt.chat_prompt->template_source = std::string(*ninfer::jinja::bundled_template("qwen3"));
    c.prompt.chat_prompt->continue_final_message = true;
    c.prefix = prefix;
    c.options.max_tokens = max_tokens;
    c.options.sampling.seed = seed + 2000 + s;
    c.options.constraint = ninfer::OutputConstraint::json_schema(params.dump());
    cases.push_back(std::move(c));
  }

  ninfer::EngineOptions eo;
  eo.model = model;
  eo.max_batch_rows = 8;
  eo.max_context = 4096;
  ninfer::Engine engine(eo);
  std::ofstream out(out_path);
  struct Pending {
    const Case* c;
    ninfer::RequestHandle h;
  };
  std::deque<Pending> pending;
  size_t next_case = 0, rejected = 0;
  const auto write = [&](const Case& c, const json& fields) {
    json rec = {{"set", c.set}, {"name", c.name}, {"format", c.format}, {"choice", c.choice}, {"budget", c.budget}, {"prefix", c.prefix}};
    rec.update(fields);
    out << rec.dump() << "\n";
  };
  while (next_case < cases.size() || !pending.empty()) {
    while (next_case < cases.size() && pending.size() < 16) {
      const Case& c = cases[next_case++];
      try {
        pending.push_back({&c, engine.submit(engine.prepare(c.prompt), c.options)});
      } catch (const std::exception& e) {
        ++rejected;
        write(c, {{"rejected", e.what()}});
      }
    }
    Pending p = std::move(pending.front());
    pending.pop_front();
    const ninfer::GenerationResult r = p.h.wait();
    json calls = json::array();
    if (r.chat)
      for (const ninfer::ToolCall& call : r.chat->tool_calls)
        calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    write(*p.c, {{"finish_reason", ninfer::finish_reason_name(r.finish_reason)},
                 {"error", r.error ? r.error_message : ""},
                 {"tokens", r.usage.completion_tokens},
                 {"text", r.text},
                 {"content", r.chat ? r.chat->content : ""},
                 {"reasoning", r.chat ? r.chat->reasoning : ""},
                 {"thinking_closed", r.chat && r.chat->thinking_closed},
                 {"reasoning_tokens", r.usage.reasoning_tokens},
                 {"tool_calls", calls}});
  }
  std::cerr << "chat_tools_driver: " << cases.size() << " requests, " << rejected << " rejected at submit\n";
  return rejected ? 1 : 0;
}
