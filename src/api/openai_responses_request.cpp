#include "api/openai_responses_request.h"

#include <climits>
#include <optional>
#include <string_view>

#include "api/body_constraint.h"
#include "api/one_constraint_source.h"
#include "api/openai_responses_input.h"
#include "api/openai_responses_tools.h"
#include "api/request_conflicts.h"
#include "api/sampling_fields.h"
#include "api/template_context.h"

namespace ninfer::api {
namespace {

// Every top-level member a request may hold; anything else is "Unrecognized request argument".
void check_known_members(const Field& body) {
  body.only_members({
    // OpenAI Responses
    "input", "model", "instructions", "tools", "tool_choice", "parallel_tool_calls", "text", "max_output_tokens",
    "temperature", "top_p", "reasoning", "stream", "stream_options", "store", "metadata", "user", "service_tier",
    "prompt_cache_key", "prompt_cache_retention", "safety_identifier", "truncation", "top_logprobs", "include",
    "background", "previous_response_id", "conversation", "prompt", "max_tool_calls", "context_management",
    "background_options", "access_programs", "image", "moderation", "prompt_cache_options",
    // vLLM extras and NInfer extensions (as in the Chat mapping)
    "top_k", "min_p", "seed", "structured_outputs", "chat_template_kwargs", "thinking_token_budget", "tool_enforcement",
    "tool_call_format"});
}

[[noreturn]] void unsupported(const Field& f, const std::string& why) {
  f.fail("'" + f.path() + "' is not supported by this server: " + why, "unsupported_parameter");
}

// OpenAI fields this server knows but cannot honour: a 400 naming them, never silently ignored.
void reject_unsupported(const Field& body) {
  const std::string stateless = "it stores no responses or conversations; send the whole input.";
  for (std::string_view key : {"previous_response_id", "conversation", "prompt", "context_management"})
    if (auto f = body.optional_member(key)) unsupported(*f, stateless);
  for (std::string_view key : {"background_options", "access_programs", "image", "moderation", "prompt_cache_options"})
    if (auto f = body.optional_member(key)) unsupported(*f, "it has no such feature.");
  if (auto f = body.optional_member("max_tool_calls")) unsupported(*f, "it runs no tools itself.");
  if (auto f = body.optional_member("background"); f && f->boolean())
    unsupported(*f, "responses are only streamed or returned when done.");
  if (auto f = body.optional_member("include"); f && !f->array().empty())
    unsupported(f->element(0), "it has no extra output to include.");
  if (auto f = body.optional_member("top_logprobs"); f && f->integer(0, 20) != 0)
    unsupported(*f, "it returns no log probabilities.");
  if (auto f = body.optional_member("truncation"); f && f->one_of({"auto", "disabled"}) == "auto")
    unsupported(*f, "it never drops input; a prompt that does not fit is an error ('disabled').");
}

// Accepted and without effect here (documented in docs/api.md); their types are still checked.
void check_ignored(const Field& body) {
  if (auto f = body.optional_member("store")) f->boolean();
  if (auto f = body.optional_member("service_tier")) f->string();
  if (auto f = body.optional_member("prompt_cache_key")) f->string();
  if (auto f = body.optional_member("prompt_cache_retention")) f->one_of({"in_memory", "24h"});
  if (auto f = body.optional_member("safety_identifier")) f->string();
}

// text {format, verbosity}: the format is a body constraint (text gives none).
std::optional<BodyConstraint> map_text(const Field& text, ResponsesEcho& echo) {
  text.object();
  text.only_members({"format", "verbosity"});
  if (auto v = text.optional_member("verbosity"); v && v->one_of({"low", "medium", "high"}) != "medium")
    v->fail("Invalid value for '" + v->path() + "': this server cannot steer verbosity; only 'medium' is accepted.",
            "unsupported_value");
  const auto format = text.optional_member("format");
  if (!format) return std::nullopt;
  format->object();
  echo.text = {{"format", format->json()}};
  const std::string& type = format->required_member("type").one_of({"text", "json_object", "json_schema"});
  if (type == "text") {
    format->only_members({"type"});
    return std::nullopt;
  }
  if (type == "json_object") {
    format->only_members({"type"});
    return BodyConstraint{OutputConstraint::json_object(), format->path()};
  }
  format->only_members({"type", "name", "description", "schema", "strict"});
  format->required_member("schema").object();  // required in Responses (Chat makes it optional)
  return map_openai_json_schema(*format);
}

// The body constraint: text.format or structured_outputs, never both (DESIGN.md section 3).
std::optional<BodyConstraint> map_body_constraint(const Field& body, ResponsesEcho& echo) {
  return one_constraint_source(body, {{"text", [&echo](const Field& text) { return map_text(text, echo); }},
                                      {"structured_outputs", map_structured_outputs}});
}

// reasoning {effort, summary}: effort "none" turns the template's thinking off; any other effort
// leaves thinking as the template has it (this server has no budget per effort). Summaries are
// never written: the reasoning comes back whole as reasoning_text.
bool map_reasoning(const Field& body, ResponsesEcho& echo) {
  const auto r = body.optional_member("reasoning");
  if (!r) return false;
  r->object();
  r->only_members({"effort", "summary", "generate_summary"});
  bool thinking_off = false;
  if (auto e = r->optional_member("effort")) {
    thinking_off = e->one_of({"none", "minimal", "low", "medium", "high", "xhigh", "max"}) == "none";
    echo.reasoning["effort"] = e->string();
  }
  if (auto s = r->optional_member("summary")) echo.reasoning["summary"] = s->one_of({"auto", "concise", "detailed"});
  if (auto s = r->optional_member("generate_summary")) s->one_of({"auto", "concise", "detailed"});
  return thinking_off;
}

// The chat template's variables as JSON text: messages, tools, add_generation_prompt, the
// chat_template_kwargs, and enable_thinking=false for reasoning effort "none".
std::string template_context(const Json& messages, const ResponsesTools& tools, bool thinking_off, const Field& body) {
  TemplateContextWriter context(messages, tools.template_tools.is_null() ? nullptr : &tools.template_tools, true);
  bool thinking_set = false;
  add_chat_template_kwargs(body, "the request's own fields", context, [&](const std::string& key, const Field& f) {
    if (key != "enable_thinking" || !thinking_off) return;
    if (f.json() != Json(false))
      f.fail("Invalid '" + f.path() + "': it contradicts 'reasoning.effort' \"none\", which turns thinking off.",
             "conflicting_parameters");
    thinking_set = true;
  });
  if (thinking_off && !thinking_set) context.add("enable_thinking", false);
  return context.finish();
}

ResponsesRequest map_parsed_body(const Json& json, const ChatRequestDefaults& defaults) {
  const Field body = body_field(json);
  check_known_members(body);
  reject_unsupported(body);
  check_ignored(body);

  ResponsesRequest out;
  ChatRequest& req = out.chat;
  ResponsesEcho& echo = out.echo;
  req.translate_param = responses_param;
  if (auto f = body.optional_member("model")) req.model = f->string();
  echo.model = req.model.empty() ? defaults.served_model : req.model;
  if (auto f = body.optional_member("metadata")) echo.metadata = f->object();
  if (auto f = body.optional_member("user")) echo.user = f->string();

  if (auto f = body.optional_member("stream")) req.stream = f->boolean();
  if (auto f = body.optional_member("stream_options")) {
    if (!req.stream)
      f->fail("Invalid value for 'stream_options': 'stream_options' is only allowed when 'stream' is true.");
    f->object();
    f->only_members({"include_obfuscation"});
    if (auto o = f->optional_member("include_obfuscation")) o->boolean();  // no obfuscation here
  }

  RequestOptions& ro = req.options;
  map_openai_sampling(body, ro.sampling);
  echo.temperature = ro.sampling.temperature;
  echo.top_p = ro.sampling.top_p;
  // Echoed as the request wrote them where they fit a float exactly (0.7 stays 0.7, not 0.699999988).
  if (auto f = body.optional_member("temperature")) echo.temperature = f->json().get<double>();
  if (auto f = body.optional_member("top_p")) echo.top_p = f->json().get<double>();
  ro.max_tokens = defaults.max_tokens;
  if (auto f = body.optional_member("max_output_tokens")) ro.max_tokens = static_cast<int>(f->integer(1, INT_MAX));
  echo.max_output_tokens = ro.max_tokens;
  // As in Chat: reasoning.effort has no budget per effort, so this is how a client bounds thinking.
  if (auto f = body.optional_member("thinking_token_budget"))
    ro.thinking_token_budget = static_cast<int>(f->integer(1, INT_MAX));

  const ResponsesTools tools = map_responses_tools(body);
  ro.tool_choice = tools.tool_choice;
  echo.tools = tools.echo;
  echo.tool_choice = tools.tool_choice_echo;
  echo.parallel_tool_calls = tools.parallel_tool_calls;

  const bool thinking_off = map_reasoning(body, echo);
  const auto instructions = body.optional_member("instructions");
  if (instructions) echo.instructions = instructions->string();
  const Json messages = map_responses_input(body.required_member("input"), instructions);

  ChatPromptInput chat = default_chat_prompt(defaults);
  chat.context_json = template_context(messages, tools, thinking_off, body);
  map_tool_call_format(body, chat);

  // Responses has no stop strings or ignore_eos: only a free-form constraint with tools can conflict.
  apply_body_constraint(map_body_constraint(body, echo), tools.active(), ConflictWording{}, req);
  req.prompt.chat_prompt = std::move(chat);
  return out;
}

}  // namespace

std::string responses_param(const std::string& p) {
  if (p.rfind("tools[", 0) == 0) {
    const size_t close = p.find(']');
    if (close != std::string::npos && p.compare(close + 1, 9, ".function") == 0)
      return p.substr(0, close + 1) + p.substr(close + 10);
    return p;
  }
  if (p.rfind("tool_choice.function", 0) == 0) return "tool_choice" + p.substr(20);
  if (p == "messages" || p.rfind("messages[", 0) == 0 || p.rfind("messages.", 0) == 0) return "input";
  return p;
}

ResponsesRequest map_openai_responses_body(const Json& json, const ChatRequestDefaults& defaults) {
  check_request_depth(json);
  return map_parsed_body(json, defaults);
}

}  // namespace ninfer::api
