// Anthropic Messages request body (POST /v1/messages, plus NInfer's extensions) -> ChatRequest.
// docs/api.md lists every field. A request this rejects throws ApiError (400) whose param names the
// field in the Anthropic request ("messages[2].content[0].tool_use_id", "output_config.format.schema").
//
// Thinking: Anthropic's default is no thinking, so a request without `thinking` (or with
// {type: "disabled"}) renders with enable_thinking = false; {type: "enabled", budget_tokens} turns it
// on with that budget (RequestOptions::thinking_token_budget); {type: "adaptive"} leaves the choice
// to the template's own default.
// A final assistant turn is Anthropic's prefill: it is continued, and only the new text is returned.
#pragma once

#include <string_view>

#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

ChatRequest map_anthropic_request(std::string_view body, const ChatRequestDefaults& defaults);
ChatRequest map_anthropic_request(const Json& body, const ChatRequestDefaults& defaults);

}  // namespace ninfer::api
