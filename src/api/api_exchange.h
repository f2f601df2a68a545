// One HTTP request in a protocol's terms, as the server sees it: the mapped chat request, and the
// protocol's own shapes for the final object, the stream events and the errors. The server picks
// the protocol by endpoint, maps the body once here, and never looks inside a protocol's JSON.
#pragma once

#include <memory>
#include <string_view>

#include "api/api_error.h"
#include "api/chat_request.h"
#include "api/protocol_stream.h"
#include "api/request_field.h"

namespace ninfer::api {

enum class ApiProtocol {
  OpenAIChat,         // POST /v1/chat/completions
  OpenAICompletions,  // POST /v1/completions
  OpenAIResponses,    // POST /v1/responses
  AnthropicMessages,  // POST /v1/messages
};
const char* api_protocol_name(ApiProtocol protocol);  // "chat_completions", "completions", "responses", "messages"

class ApiExchange {
 public:
  virtual ~ApiExchange() = default;
  // The mapped request: prompt, options, model, stream flag, the constraint's field. The server may
  // fill in what the request left to it (the sampling seed) before prepare/submit.
  virtual ChatRequest& request() = 0;
  // The non-streamed response body. An error or cancelled result throws the ApiError it maps to.
  virtual Json response(const PreparedPrompt& prompt, const GenerationResult& result) = 0;
  // The streamed response (request().stream is true), after prepare and submit succeeded.
  virtual std::unique_ptr<ProtocolStream> stream(const PreparedPrompt& prompt) = 0;
};

// Maps a request body of `protocol`; a rejected body throws ApiError (400, param = the field).
std::unique_ptr<ApiExchange> map_api_request(ApiProtocol protocol, std::string_view body,
                                             const ChatRequestDefaults& defaults);
// The error body in the protocol's shape (OpenAI: {"error": {...}}; Anthropic: {"type": "error", ...}).
Json api_error_body(ApiProtocol protocol, const ApiError& error);

}  // namespace ninfer::api
