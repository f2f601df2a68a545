#include "api/openai_chat_response.h"

#include "api/engine_errors.h"
#include "api/random_id.h"
#include "api/result_json.h"
#include "api/utf8_text.h"

namespace ninfer::api {

CompletionIds new_completion_ids(std::string model) {
  return {random_hex_id("chatcmpl-"), unix_seconds_now(), std::move(model)};
}

std::string openai_finish_reason(const GenerationResult& result, const ChatRequest& request) {
  switch (result.finish_reason) {
    case FinishReason::Stop: return result.chat && !result.chat->tool_calls.empty() ? "tool_calls" : "stop";
    case FinishReason::Length: return "length";
    case FinishReason::Cancelled:
      // nginx's "client closed request": nobody is normally left to read it.
      throw ApiError(499, "invalid_request_error", "The request was cancelled before it finished.", "", "cancelled");
    case FinishReason::Error: break;
  }
  throw from_result_error(result, request);
}

Json openai_tool_call(const ToolCall& call) {
  return {{"id", call.id},
          {"type", "function"},
          {"function", {{"name", valid_utf8(call.name)}, {"arguments", valid_utf8(call.arguments)}}}};
}

Json openai_chat_message(const PreparedPrompt& prompt, const GenerationResult& result) {
  Json message = {{"role", "assistant"}};
  if (!prompt.chat || !result.chat) {
    message["content"] = valid_utf8(result.text);
    return message;
  }
  const ChatOutput& chat = *result.chat;
  const bool only_other = chat.content.empty() && (!chat.tool_calls.empty() || !chat.reasoning.empty());
  message["content"] = only_other ? Json(nullptr) : Json(valid_utf8(chat.content));
  if (!chat.reasoning.empty()) message["reasoning_content"] = valid_utf8(chat.reasoning);
  if (!chat.tool_calls.empty()) {
    Json calls = Json::array();
    for (const ToolCall& c : chat.tool_calls) calls.push_back(openai_tool_call(c));
    message["tool_calls"] = std::move(calls);
  }
  return message;
}

Json openai_usage(const Usage& usage) {
  Json j = {{"prompt_tokens", usage.prompt_tokens},
            {"completion_tokens", usage.completion_tokens},
            {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
  // OpenAI's place for thinking tokens (the thinking block, its close included).
  if (usage.reasoning_tokens > 0) j["completion_tokens_details"] = {{"reasoning_tokens", usage.reasoning_tokens}};
  // Prompt tokens the prefix cache restored instead of computing (OpenAI's field for cache hits).
  if (usage.cached_tokens > 0) j["prompt_tokens_details"] = {{"cached_tokens", usage.cached_tokens}};
  return j;
}

Json openai_chat_completion(const ChatRequest& request, const PreparedPrompt& prompt, const GenerationResult& result,
                            const CompletionIds& ids) {
  const std::string finish = openai_finish_reason(result, request);
  Json choice = {{"index", 0},
                 {"message", openai_chat_message(prompt, result)},
                 {"finish_reason", finish},
                 {"logprobs", nullptr}};
  return {{"id", ids.id},
          {"object", "chat.completion"},
          {"created", ids.created},
          {"model", ids.model},
          {"choices", Json::array({std::move(choice)})},
          {"usage", openai_usage(result.usage)},
          {"constraint", result.constraint ? Json(constraint_report_json(*result.constraint)) : Json(nullptr)}};
}

}  // namespace ninfer::api
