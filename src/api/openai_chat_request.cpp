#include "api/openai_chat_request.h"

#include <climits>
#include <string>
#include <vector>

#include "api/body_constraint.h"
#include "api/openai_request_common.h"
#include "api/openai_chat_messages.h"
#include "api/openai_chat_tools.h"
#include "api/request_conflicts.h"
#include "api/template_context.h"

namespace ninfer::api {
namespace {

// Every top-level member a request may hold; anything else is "Unrecognized request argument".
void check_known_members(const Field& body) {
  body.only_members({
    // OpenAI Chat Completions
    "messages", "model", "tools", "tool_choice", "parallel_tool_calls", "response_format", "max_tokens",
    "max_completion_tokens", "temperature", "top_p", "seed", "stop", "n", "stream", "stream_options",
    "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "user", "metadata", "store", "service_tier",
    "prompt_cache_key", "safety_identifier", "logit_bias", "modalities", "audio", "prediction", "web_search_options",
    "functions", "function_call", "reasoning_effort", "verbosity",
    // vLLM extras
    "top_k", "min_p", "structured_outputs", "chat_template", "chat_template_kwargs", "continue_final_message",
    "add_generation_prompt", "thinking_token_budget", "ignore_eos",
    // NInfer extensions
    "tool_enforcement", "tool_call_format"});
}

// OpenAI fields this server knows but cannot honour: a 400 naming them, never silently ignored.
void reject_unsupported(const Field& body) {
  for (std::string_view key : {"logit_bias", "top_logprobs", "audio", "prediction", "web_search_options", "functions",
                               "function_call", "reasoning_effort", "verbosity"}) {
    if (auto f = body.optional_member(key))
      f->fail("'" + f->path() + "' is not supported by this server.", "unsupported_parameter");
  }
  if (auto f = body.optional_member("logprobs"); f && f->boolean())
    f->fail("'logprobs' is not supported by this server.", "unsupported_parameter");
  if (auto f = body.optional_member("n"); f && f->integer(1, INT_MAX) != 1)
    f->fail("Invalid value for 'n': this server returns one choice per request (n = 1).", "unsupported_value");
  if (auto f = body.optional_member("modalities")) {
    for (size_t i = 0; i < f->array().size(); ++i)
      if (f->element(i).string() != "text")
        f->element(i).fail("Invalid value for '" + f->element(i).path() + "': this server outputs text only.",
                           "unsupported_value");
  }
}

// Accepted and without effect here (documented in docs/api.md); their types are still checked.
void check_ignored(const Field& body) {
  if (auto f = body.optional_member("user")) f->string();
  if (auto f = body.optional_member("metadata")) f->object();
  if (auto f = body.optional_member("store")) f->boolean();
  if (auto f = body.optional_member("service_tier")) f->string();
  if (auto f = body.optional_member("prompt_cache_key")) f->string();
  if (auto f = body.optional_member("safety_identifier")) f->string();
}

ChatRequest map_parsed_body(const Json& json, const ChatRequestDefaults& defaults) {
  const Field body = body_field(json);
  check_known_members(body);
  reject_unsupported(body);
  check_ignored(body);

  ChatRequest req;
  if (auto f = body.optional_member("model")) req.model = f->string();
  map_openai_stream(body, req);
  map_openai_request_options(body, defaults, req.options);

  const ChatTools tools = map_openai_tools(body);
  req.options.tool_choice = tools.tool_choice;

  ChatPromptInput chat = default_chat_prompt(defaults);
  bool add_generation_prompt = true;
  if (auto f = body.optional_member("add_generation_prompt")) add_generation_prompt = f->boolean();
  if (auto f = body.optional_member("continue_final_message")) chat.continue_final_message = f->boolean();
  const Json messages = map_openai_messages(body.required_member("messages"));
  if (chat.continue_final_message) {
    const Field cfm = body.member("continue_final_message");
    if (add_generation_prompt)
      cfm.fail("Invalid value for 'continue_final_message': it cannot be combined with 'add_generation_prompt' true "
               "(set 'add_generation_prompt' to false).",
               "conflicting_parameters");
    if (messages.back()["role"] != "assistant")
      cfm.fail("Invalid value for 'continue_final_message': the final message (messages[" +
               std::to_string(messages.size() - 1) + "]) must be an assistant message to continue.");
  }
  TemplateContextWriter context(messages, tools.tools, add_generation_prompt);
  add_chat_template_kwargs(body, "the request's own field", context);
  chat.context_json = context.finish();

  if (auto f = body.optional_member("chat_template")) {
    if (!defaults.allow_request_template)
      f->fail("'chat_template' is not accepted by this server (it renders with its own template).",
              "unsupported_parameter");
    if (f->string().empty()) f->fail("Invalid value for 'chat_template': the template source is empty.");
    chat.template_source = f->string();
    req.request_template = true;
  }
  map_tool_call_format(body, chat);

  apply_body_constraint(map_openai_body_constraint(body), tools.active(), ConflictWording{}, req);
  req.prompt.chat_prompt = std::move(chat);
  return req;
}

}  // namespace

ChatRequest map_openai_chat_request(std::string_view body, const ChatRequestDefaults& defaults) {
  return map_parsed_body(parse_request_body(body), defaults);  // parse_request_body checked the depth
}

ChatRequest map_openai_chat_request(const Json& json, const ChatRequestDefaults& defaults) {
  check_request_depth(json);
  return map_parsed_body(json, defaults);
}

}  // namespace ninfer::api
