// ApiError -> Anthropic's error object, {"type": "error", "error": {"type", "message"}}, for
// responses and for the stream's `error` event. Anthropic has no `param`, so the field path leads
// the message ("tools[0].input_schema.properties.x: ..."). Engine errors name the template's OpenAI
// shape (tools[i].function.parameters); the Anthropic mapping sets ChatRequest::translate_param and
// translate_message to the rewriting below, so that engine_errors builds them in the Anthropic
// request's own terms (tools[i].input_schema).
#pragma once

#include <string>

#include "api/api_error.h"
#include "api/request_field.h"

namespace ninfer::api {

// By status: 400 invalid_request_error, 401 authentication_error, 402 billing_error, 403
// permission_error, 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 500
// api_error, 503 and 529 overloaded_error, 504 timeout_error; other 4xx invalid_request_error,
// other 5xx api_error.
const char* anthropic_error_type(int status);

// Paths into the template's tools, anywhere in `text`, rewritten as the Anthropic request wrote them:
// tools[i].function.parameters -> tools[i].input_schema, tools[i].function.name -> tools[i].name,
// tool_choice.function.name -> tool_choice.name. Other text is unchanged.
std::string anthropic_field_path(const std::string& text);

// A param the Engine or from_exception reports, in the Anthropic request's terms: the OpenAI-named
// fields they use (stop, thinking_token_budget, continue_final_message) become Anthropic's
// (stop_sequences, thinking.budget_tokens, messages), and tool paths as anthropic_field_path.
std::string anthropic_param(const std::string& param);

Json anthropic_error_json(const ApiError& error);

}  // namespace ninfer::api
