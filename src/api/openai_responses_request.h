// OpenAI Responses request body (POST /v1/responses, plus NInfer's and vLLM's extensions) ->
// ChatRequest, and what the response object repeats of the request. docs/api.md lists every field.
// A request this rejects throws ApiError (400) whose param names the field; a field this server
// cannot honour (previous_response_id, conversation, background, hosted tools, include, ...) is a
// 400 naming it, never silently ignored.
#pragma once

#include <string>

#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

// The request fields a Response object repeats (the SDK types declare them required), as this
// server applies them.
struct ResponsesEcho {
  std::string model;                  // the request's model, else ChatRequestDefaults::served_model
  Json instructions;                  // string or null
  Json tools = Json::array();         // flat function tools, `strict` resolved
  Json tool_choice = "auto";          // as the request wrote it
  bool parallel_tool_calls = true;
  double temperature = 1.0, top_p = 1.0;  // the values sampling uses
  Json text = {{"format", {{"type", "text"}}}};
  int max_output_tokens = 0;          // the cap applied (the request's, else the server's default)
  Json reasoning = {{"effort", nullptr}, {"summary", nullptr}};
  Json metadata = Json::object();
  Json user;                          // string or null
};

struct ResponsesRequest {
  ChatRequest chat;  // translate_param set: Engine errors name Responses fields
  ResponsesEcho echo;
};

ResponsesRequest map_openai_responses_body(const Json& body, const ChatRequestDefaults& defaults);

// A field path in OpenAI Chat's layout, as the Engine reports it, -> the Responses field:
// "tools[2].function.parameters.x" -> "tools[2].parameters.x", "tool_choice.function.name" ->
// "tool_choice.name", "messages[3].content" -> "input" (messages do not map one to one onto items).
std::string responses_param(const std::string& chat_param);

}  // namespace ninfer::api
