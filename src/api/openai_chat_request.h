// OpenAI Chat Completions request body (plus vLLM's extras and NInfer's extensions) -> ChatRequest.
// Shared by `ninfer chat --request` and the HTTP server's POST /v1/chat/completions; docs/api.md
// lists every field. A request this rejects throws ApiError (400) whose param names the field.
#pragma once

#include <string_view>

#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

ChatRequest map_openai_chat_request(std::string_view body, const ChatRequestDefaults& defaults);
ChatRequest map_openai_chat_request(const Json& body, const ChatRequestDefaults& defaults);

}  // namespace ninfer::api
