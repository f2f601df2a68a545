#include "api/anthropic_messages_request.h"

#include <climits>
#include <optional>
#include <string>

#include "api/anthropic_error.h"
#include "api/anthropic_messages_content.h"
#include "api/anthropic_messages_tools.h"
#include "api/body_constraint.h"
#include "api/one_constraint_source.h"
#include "api/request_conflicts.h"
#include "api/template_context.h"

namespace ninfer::api {
namespace {

// Every top-level member a request may hold; anything else is "Unrecognized request argument".
void check_known_members(const Field& body) {
  body.only_members({
    // Anthropic Messages
    "model", "max_tokens", "messages", "system", "metadata", "stop_sequences", "stream", "temperature", "top_p",
    "top_k", "tools", "tool_choice", "thinking", "output_config", "output_format", "service_tier", "container",
    "mcp_servers", "context_management", "cache_control", "diagnostics", "inference_geo", "speed", "user_profile_id",
    "workspace_id",
    // NInfer / vLLM extensions
    "structured_outputs", "tool_enforcement", "tool_call_format", "seed"});
}

// Anthropic fields this server knows but cannot honour: a 400 naming them, never silently ignored.
void reject_unsupported(const Field& body) {
  for (std::string_view key : {"service_tier", "container", "mcp_servers", "context_management", "diagnostics",
                               "inference_geo", "speed", "user_profile_id", "workspace_id"}) {
    if (auto f = body.optional_member(key))
      f->fail("'" + f->path() + "' is not supported by this server.", "unsupported_parameter");
  }
}

// Accepted and without effect here: metadata.user_id (no per-user accounting), cache_control
// (prompt caching is a billing hint).
void check_ignored(const Field& body) {
  if (auto f = body.optional_member("metadata")) {
    f->object();
    f->only_members({"user_id"});
    if (auto u = f->optional_member("user_id")) u->string();
  }
  if (auto f = body.optional_member("cache_control")) f->object();
}

void map_sampling(const Field& body, RequestOptions& ro) {
  SamplingOptions& s = ro.sampling;
  if (auto f = body.optional_member("temperature")) s.temperature = static_cast<float>(f->number(0, 1));
  if (auto f = body.optional_member("top_p")) s.top_p = static_cast<float>(f->number(0, 1, true));
  if (auto f = body.optional_member("top_k")) s.top_k = static_cast<int>(f->integer(0, INT_MAX));  // 0 = off
  if (auto f = body.optional_member("seed")) s.seed = static_cast<uint64_t>(f->integer(INT64_MIN, INT64_MAX));
  ro.max_tokens = static_cast<int>(body.required_member("max_tokens").integer(1, INT_MAX));
  if (auto f = body.optional_member("stop_sequences")) {
    for (size_t i = 0; i < f->array().size(); ++i) {
      const Field s = f->element(i);
      if (s.string().empty()) s.fail("Invalid value for '" + s.path() + "': a stop sequence may not be empty.");
      ro.stop.push_back(s.string());
    }
  }
}

// thinking -> the template's enable_thinking (nullopt: the template decides) and the budget.
std::optional<bool> map_thinking(const Field& body, RequestOptions& ro) {
  const auto thinking = body.optional_member("thinking");
  if (!thinking) return false;  // Anthropic's default: no thinking
  thinking->object();
  const std::string& type = thinking->required_member("type").one_of({"enabled", "disabled", "adaptive"});
  if (type == "disabled") {
    thinking->only_members({"type"});
    return false;
  }
  thinking->only_members({"type", "budget_tokens", "display"});
  if (auto d = thinking->optional_member("display"); d && d->one_of({"summarized", "omitted"}) == "omitted")
    d->fail("Invalid value for '" + d->path() + "': 'omitted' is not supported; this server returns the thinking text.",
            "unsupported_value");
  if (type == "adaptive") {
    if (auto b = thinking->optional_member("budget_tokens"))
      b->fail("Invalid '" + b->path() + "': 'budget_tokens' is only allowed with thinking of type 'enabled'.");
    return std::nullopt;
  }
  const Field budget = thinking->required_member("budget_tokens");
  const int64_t tokens = budget.integer(1, INT_MAX);
  // As Anthropic: the thinking budget is part of max_tokens and must leave room for the answer.
  if (tokens >= ro.max_tokens)
    budget.fail("Invalid value for '" + budget.path() + "': it must be less than 'max_tokens' (" +
                std::to_string(ro.max_tokens) + ").");
  ro.thinking_token_budget = static_cast<int>(tokens);
  return true;
}

// {type: "json_schema", schema}: output_config.format, or the deprecated beta output_format.
BodyConstraint json_schema_format(const Field& format) {
  format.object();
  format.only_members({"type", "schema"});
  format.required_member("type").one_of({"json_schema"});
  const Field schema = format.required_member("schema");
  JsonFormatOptions options;
  // Anthropic rejects a schema feature it cannot guarantee rather than ignore it.
  options.schema_strictness = SchemaStrictness::Strict;
  return BodyConstraint{OutputConstraint::json_schema(schema.object().dump(), options), schema.path()};
}

std::optional<BodyConstraint> map_output_config(const Field& config) {
  config.object();
  config.only_members({"format", "effort"});
  if (auto e = config.optional_member("effort"))
    e->fail("'" + e->path() + "' is not supported by this server (use 'thinking' with a 'budget_tokens').",
            "unsupported_parameter");
  if (auto f = config.optional_member("format")) return json_schema_format(*f);
  return std::nullopt;
}

// output_config.format, output_format or structured_outputs: one source (DESIGN.md section 3).
std::optional<BodyConstraint> map_body_constraint(const Field& body) {
  const auto output_format = [](const Field& f) { return std::optional(json_schema_format(f)); };
  return one_constraint_source(body, {{"output_config", map_output_config},
                                      {"output_format", output_format},
                                      {"structured_outputs", map_structured_outputs}});
}

ChatRequest map_parsed_body(const Json& json, const ChatRequestDefaults& defaults) {
  const Field body = body_field(json);
  check_known_members(body);
  reject_unsupported(body);
  check_ignored(body);

  ChatRequest req;
  // Engine errors name the template's OpenAI fields; these put them in the request's own terms.
  req.translate_param = anthropic_param;
  req.translate_message = anthropic_field_path;
  req.model = body.required_member("model").string();
  if (auto f = body.optional_member("stream")) req.stream = f->boolean();
  map_sampling(body, req.options);
  const std::optional<bool> enable_thinking = map_thinking(body, req.options);

  const AnthropicTools tools = map_anthropic_tools(body);
  req.options.tool_choice = tools.tool_choice;

  const Field messages = body.required_member("messages");
  const AnthropicConversation conv = map_anthropic_messages(body.optional_member("system"), messages);
  req.message_paths = conv.paths;
  ChatPromptInput chat = default_chat_prompt(defaults);
  chat.continue_final_message = conv.ends_with_assistant;
  // A prefill is continued, and text cannot continue a turn that already ended in tool calls.
  if (conv.ends_with_assistant && conv.messages.back().contains("tool_calls")) {
    const Field content = messages.element(messages.json().size() - 1).member("content");
    content.fail("Invalid '" + content.path() + "': a final assistant message is continued (prefill), so it cannot end "
                 "with tool_use blocks; send their tool_result blocks in a user message.");
  }
  TemplateContextWriter context(conv.messages, tools.tools.is_null() ? nullptr : &tools.tools,
                                !conv.ends_with_assistant);
  if (enable_thinking) context.add("enable_thinking", *enable_thinking);
  chat.context_json = context.finish();
  map_tool_call_format(body, chat);

  const ConflictWording wording{.stop_field = "stop_sequences", .stop_noun = "stop sequence",
                                .none_choice = R"({"type": "none"})"};
  apply_body_constraint(map_body_constraint(body), tools.active(), wording, req);
  req.prompt.chat_prompt = std::move(chat);
  return req;
}

}  // namespace

ChatRequest map_anthropic_request(std::string_view body, const ChatRequestDefaults& defaults) {
  return map_parsed_body(parse_request_body(body), defaults);  // parse_request_body checked the depth
}

ChatRequest map_anthropic_request(const Json& json, const ChatRequestDefaults& defaults) {
  check_request_depth(json);
  return map_parsed_body(json, defaults);
}

}  // namespace ninfer::api
