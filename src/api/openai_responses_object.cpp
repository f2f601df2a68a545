#include "api/openai_responses_object.h"

#include <cmath>
#include <cstdio>

#include "api/openai_chat_response.h"
#include "api/random_id.h"
#include "api/result_json.h"
#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

const char* status_name(ResponseItem::Status s) {
  switch (s) {
    case ResponseItem::Status::InProgress: return "in_progress";
    case ResponseItem::Status::Completed: return "completed";
    case ResponseItem::Status::Incomplete: return "incomplete";
  }
  return "completed";
}

const char* status_name(ResponseStatus s) {
  switch (s) {
    case ResponseStatus::InProgress: return "in_progress";
    case ResponseStatus::Completed: return "completed";
    case ResponseStatus::Incomplete: return "incomplete";
    case ResponseStatus::Failed: return "failed";
  }
  return "completed";
}

}  // namespace

ResponseIds new_response_ids() { return {random_hex_id("resp_"), unix_seconds_now()}; }

std::string output_item_id(std::string_view prefix, const ResponseIds& ids, size_t index) {
  const size_t underscore = ids.id.find('_');
  char position[8];
  std::snprintf(position, sizeof position, "%04zx", index & 0xffff);
  return std::string(prefix) + (underscore == std::string::npos ? ids.id : ids.id.substr(underscore + 1)) + position;
}

std::vector<ResponseItem> response_items(const GenerationResult& result, const ResponseIds& ids) {
  std::vector<ResponseItem> items;
  auto add = [&](ResponseItem::Kind kind, const char* prefix, std::string text) -> ResponseItem& {
    ResponseItem item;
    item.kind = kind;
    item.id = output_item_id(prefix, ids, items.size());
    item.text = std::move(text);
    item.status = ResponseItem::Status::Completed;
    items.push_back(std::move(item));
    return items.back();
  };
  if (!result.chat) {
    add(ResponseItem::Kind::Message, "msg_", result.text);
  } else {
    const ChatOutput& chat = *result.chat;
    if (!chat.reasoning.empty()) add(ResponseItem::Kind::Reasoning, "rs_", chat.reasoning);
    // A turn that produced nothing still answers with an (empty) message.
    if (!chat.content.empty() || (chat.reasoning.empty() && chat.tool_calls.empty()))
      add(ResponseItem::Kind::Message, "msg_", chat.content);
    for (const ToolCall& call : chat.tool_calls) {
      ResponseItem& item = add(ResponseItem::Kind::FunctionCall, "fc_", call.arguments);
      item.call_id = call.id;
      item.name = call.name;
    }
  }
  if (result.finish_reason == FinishReason::Length) items.back().status = ResponseItem::Status::Incomplete;
  return items;
}

Json output_text_part(const std::string& text) {
  return {{"type", "output_text"}, {"text", valid_utf8(text)}, {"annotations", Json::array()}};
}

Json reasoning_text_part(const std::string& text) { return {{"type", "reasoning_text"}, {"text", valid_utf8(text)}}; }

Json response_item_json(const ResponseItem& item) {
  const bool done = item.status != ResponseItem::Status::InProgress;
  switch (item.kind) {
    case ResponseItem::Kind::Reasoning:
      // Summaries are never written: the reasoning itself is the content.
      return {{"id", item.id},
              {"type", "reasoning"},
              {"summary", Json::array()},
              {"content", done ? Json::array({reasoning_text_part(item.text)}) : Json::array()}};
    case ResponseItem::Kind::Message:
      return {{"id", item.id},
              {"type", "message"},
              {"status", status_name(item.status)},
              {"role", "assistant"},
              {"content", done ? Json::array({output_text_part(item.text)}) : Json::array()}};
    case ResponseItem::Kind::FunctionCall: break;
  }
  return {{"id", item.id},
          {"type", "function_call"},
          {"status", status_name(item.status)},
          {"call_id", item.call_id},
          {"name", valid_utf8(item.name)},
          {"arguments", done ? valid_utf8(item.text) : std::string()}};
}

Json responses_usage(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens},
          {"input_tokens_details", {{"cached_tokens", usage.cached_tokens}}},
          {"output_tokens", usage.completion_tokens},
          {"output_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

Json response_json(const ResponsesEcho& echo, const ResponseIds& ids, ResponseStatus status,
                   const std::vector<ResponseItem>& items, const GenerationResult* result, const ApiError* error) {
  Json output = Json::array();
  for (const ResponseItem& item : items) output.push_back(response_item_json(item));
  Json j = {{"id", ids.id},
            {"object", "response"},
            {"created_at", ids.created_at},
            {"status", status_name(status)},
            {"background", false},
            // created_at is taken when the request is mapped, just before submit; total_s runs from submit.
            {"completed_at", result ? Json(ids.created_at + std::llround(result->total_s)) : Json(nullptr)},
            {"error", nullptr},
            {"incomplete_details", nullptr},
            {"instructions", echo.instructions},
            {"max_output_tokens", echo.max_output_tokens},
            {"model", echo.model},
            {"output", std::move(output)},
            {"parallel_tool_calls", echo.parallel_tool_calls},
            {"previous_response_id", nullptr},
            {"reasoning", echo.reasoning},
            {"temperature", echo.temperature},
            {"text", echo.text},
            {"tool_choice", echo.tool_choice},
            {"tools", echo.tools},
            {"top_p", echo.top_p},
            {"truncation", "disabled"},
            {"usage", result ? responses_usage(result->usage) : Json(nullptr)},
            {"user", echo.user},
            {"metadata", echo.metadata},
            {"access_programs", nullptr},
            {"constraint", result && result->constraint ? Json(constraint_report_json(*result->constraint))
                                                          : Json(nullptr)}};
  if (status == ResponseStatus::Incomplete) j["incomplete_details"] = {{"reason", "max_output_tokens"}};
  if (error) j["error"] = {{"code", error->code.empty() ? "server_error" : error->code}, {"message", error->message}};
  return j;
}

ResponseStatus finished_status(const GenerationResult& result, const ChatRequest& request) {
  // The chat mapping's reading of the finish: it throws for an error or a cancel.
  return openai_finish_reason(result, request) == "length" ? ResponseStatus::Incomplete : ResponseStatus::Completed;
}

Json openai_response(const ResponsesRequest& request, const ResponseIds& ids, const GenerationResult& result) {
  const ResponseStatus status = finished_status(result, request.chat);
  return response_json(request.echo, ids, status, response_items(result, ids), &result);
}

}  // namespace ninfer::api
