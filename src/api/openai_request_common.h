// Request fields that OpenAI Chat Completions and (legacy) Completions share: sampling, max_tokens,
// stop strings, stream / stream_options, and the body constraint (response_format or the
// structured_outputs extension, one source per request).
#pragma once

#include <optional>

#include "api/body_constraint.h"
#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

// The sampling fields (sampling_fields.h), penalties, max_tokens / max_completion_tokens, stop,
// ignore_eos, thinking_token_budget.
void map_openai_request_options(const Field& body, const ChatRequestDefaults& defaults, RequestOptions& options);
// stream and stream_options.include_usage.
void map_openai_stream(const Field& body, ChatRequest& request);
// response_format or structured_outputs, never both (DESIGN.md section 3).
std::optional<BodyConstraint> map_openai_body_constraint(const Field& body);

}  // namespace ninfer::api
