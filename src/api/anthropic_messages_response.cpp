#include "api/anthropic_messages_response.h"

#include "api/engine_errors.h"
#include "api/result_json.h"
#include "api/utf8_text.h"

namespace ninfer::api {

std::string anthropic_stop_reason(const GenerationResult& result, const ChatRequest& request) {
  switch (result.finish_reason) {
    case FinishReason::Stop:
      if (result.chat && !result.chat->tool_calls.empty()) return "tool_use";
      return result.stop_sequence ? "stop_sequence" : "end_turn";
    case FinishReason::Length: return "max_tokens";
    case FinishReason::Cancelled:
      // nginx's "client closed request": nobody is normally left to read it.
      throw ApiError(499, "invalid_request_error", "The request was cancelled before it finished.", "", "cancelled");
    case FinishReason::Error: break;
  }
  throw from_result_error(result, request);
}

std::string anthropic_tool_use_id(const std::string& call_id) {
  constexpr std::string_view kCall = "call_";
  if (call_id.compare(0, kCall.size(), kCall) == 0) return "toolu_" + call_id.substr(kCall.size());
  return call_id;
}

Json anthropic_tool_input(const std::string& arguments) {
  try {
    Json input = Json::parse(arguments);
    if (input.is_object()) return input;
  } catch (const Json::exception&) {
  }
  return Json::object();
}

Json anthropic_usage(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens - usage.cached_tokens},
          {"output_tokens", usage.completion_tokens},
          {"cache_creation_input_tokens", 0},
          {"cache_read_input_tokens", usage.cached_tokens}};
}

Json anthropic_start_usage(int prompt_tokens) { return {{"input_tokens", prompt_tokens}, {"output_tokens", 0}}; }

Json anthropic_message(const ChatRequest& request, const PreparedPrompt& prompt, const GenerationResult& result,
                       const std::string& id, const std::string& model) {
  const std::string stop_reason = anthropic_stop_reason(result, request);
  Json content = Json::array();
  if (prompt.chat && result.chat) {
    const ChatOutput& chat = *result.chat;
    // Blocks in the order the turn writes them; an empty part has no block (the stream opens none).
    if (!chat.reasoning.empty())
      content.push_back({{"type", "thinking"}, {"thinking", valid_utf8(chat.reasoning)}, {"signature", ""}});
    if (!chat.content.empty()) content.push_back({{"type", "text"}, {"text", valid_utf8(chat.content)}});
    for (const ToolCall& call : chat.tool_calls)
      content.push_back({{"type", "tool_use"},
                         {"id", anthropic_tool_use_id(call.id)},
                         {"name", valid_utf8(call.name)},
                         {"input", anthropic_tool_input(valid_utf8(call.arguments))}});
  } else if (!result.text.empty()) {
    content.push_back({{"type", "text"}, {"text", valid_utf8(result.text)}});
  }
  return {{"id", id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", model},
          {"content", std::move(content)},
          {"stop_reason", stop_reason},
          {"stop_sequence", result.stop_sequence ? Json(valid_utf8(*result.stop_sequence)) : Json(nullptr)},
          {"usage", anthropic_usage(result.usage)},
          {"constraint", result.constraint ? Json(constraint_report_json(*result.constraint)) : Json(nullptr)}};
}

}  // namespace ninfer::api
