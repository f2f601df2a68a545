#include "cli/chat_commands.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/chat_request_command.h"
#include "jinja/chat_template.h"
#include "jinja/template.h"

namespace ninfer::cli {
namespace {

using ojson = nlohmann::ordered_json;

struct RenderArgs {
  std::string template_spec;
  std::string context_file;
  int bench = 0;  // > 0: render that many times and print timings as JSON instead of the text
};

double us_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

// Cold = first parse (uncached) + render; warm = cached parse + render, as a server sees a repeated template.
int run_bench(const jinja::ChatTemplateSource& source, const ojson& context, int n) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto parsed = jinja::Template::parse(source.source);
  const auto t1 = Clock::now();
  const std::string first = parsed->render(context);
  const auto t2 = Clock::now();
  std::vector<double> warm;
  warm.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto a = Clock::now();
    const std::string out = jinja::parse_cached(source.source)->render(context);
    warm.push_back(us_between(a, Clock::now()));
  }
  std::sort(warm.begin(), warm.end());
  auto pct = [&](double p) { return warm[std::min(warm.size() - 1, static_cast<size_t>(p * static_cast<double>(warm.size())))]; };
  ojson r{{"template", source.origin},
          {"output_bytes", first.size()},
          {"parse_us", us_between(t0, t1)},
          {"cold_render_us", us_between(t1, t2)},
          {"warm_us", {{"runs", n}, {"p50", pct(0.5)}, {"p99", pct(0.99)}, {"max", warm.back()}}}};
  std::cout << r.dump() << "\n";
  return 0;
}

// Exit status 2 with {"error":{"kind","message","location":{"line","column"}}} on stdout.
int report_error(const std::string& kind, const std::string& message, int line = 0, int column = 0) {
  ojson err{{"error", {{"kind", kind}, {"message", message}, {"location", {{"line", line}, {"column", column}}}}}};
  std::cout << err.dump() << "\n";
  return 2;
}

int run_render(const RenderArgs& args) {
  std::ifstream in(args.context_file, std::ios::binary);
  if (!in) return report_error("invalid_input", "cannot read context file " + args.context_file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  ojson context;
  try {
    // ordered_json keeps the file's key order, which Python keeps too (tojson of tools, arguments).
    context = ojson::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    int line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return report_error("invalid_input", args.context_file + ": " + e.what(), line, column);
  }
  if (!context.is_object()) return report_error("invalid_input", args.context_file + ": the context must be a JSON object");
  const bool has_tools = context.contains("tools") && context["tools"].is_array() && !context["tools"].empty();
  jinja::ChatTemplateSource source;
  try {
    source = jinja::load_chat_template(args.template_spec, has_tools);
  } catch (const std::exception& e) {
    return report_error("invalid_input", e.what());
  }
  // A tokenizer config's special tokens are template variables, unless the context sets them.
  if (!source.bos_token.empty() && !context.contains("bos_token")) context["bos_token"] = source.bos_token;
  if (!source.eos_token.empty() && !context.contains("eos_token")) context["eos_token"] = source.eos_token;
  try {
    if (args.bench > 0) return run_bench(source, context, args.bench);
    const std::string out = jinja::parse_cached(source.source)->render(context);
    std::cout.write(out.data(), static_cast<std::streamsize>(out.size()));
    std::cout.flush();
    return 0;
  } catch (const jinja::TemplateError& e) {
    return report_error(jinja::template_error_kind_name(e.kind()), e.what(), e.line(), e.column());
  }
}

}  // namespace

struct ChatRequestArgs {
  std::string request, model, chat_template;
  ChatRequestCommandOptions options;
};

CLI::App* register_chat_commands(CLI::App& app, int& status) {
  auto* chat = app.add_subcommand("chat", "Chat: answer an OpenAI Chat Completions request (--request), or render chat templates");
  auto request_args = std::make_shared<ChatRequestArgs>();
  chat->add_option("--request", request_args->request, "OpenAI Chat Completions request body (JSON file); prints the chat.completion object");
  chat->add_option("--model", request_args->model, "HF model folder or GGUF file (default: the generated tiny Qwen3 model)");
  chat->add_option("--chat-template", request_args->chat_template,
                   "bundled name (qwen3, qwen3_5, qwen3_coder), .jinja file, tokenizer config .json or model folder (default: the model's own)");
  chat->add_option("--threads", request_args->options.threads, "model threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  chat->add_option("--max-context", request_args->options.max_context, "positions per request")->check(CLI::Range(16, 1 << 20));
  chat->require_subcommand(0, 1);
  chat->callback([chat, request_args, &status] {
    if (!chat->get_subcommands().empty()) return;
    if (request_args->request.empty()) throw CLI::RequiredError("--request (or the subcommand render)");
    status = run_chat_request(request_args->request, request_args->model, request_args->chat_template, request_args->options);
  });
  auto* render = chat->add_subcommand("render", "Render a chat template with a context of variables, exactly as Python Jinja2 (HF) does");
  auto render_args = std::make_shared<RenderArgs>();
  render->add_option("--template", render_args->template_spec,
                     "Bundled name (qwen3, qwen3_5, qwen3_coder), .jinja file, tokenizer config .json, or model folder")
      ->required();
  render->add_option("--context", render_args->context_file, "JSON object whose members are the template's variables")->required();
  render->add_option("--bench", render_args->bench,
                     "Render N times and print parse / cold / warm timings as JSON instead of the text")
      ->check(CLI::Range(1, 1000000));
  render->callback([render_args, &status] { status = run_render(*render_args); });
  return chat;
}

}  // namespace ninfer::cli
