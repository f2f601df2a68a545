#include "api/api_exchange.h"

#include "api/anthropic_error.h"
#include "api/anthropic_messages_exchange.h"
#include "api/openai_chat_request.h"
#include "api/openai_chat_response.h"
#include "api/openai_chat_stream.h"
#include "api/openai_completions.h"
#include "api/openai_responses_exchange.h"

namespace ninfer::api {
namespace {

class OpenAIChatExchange : public ApiExchange {
 public:
  OpenAIChatExchange(ChatRequest request, CompletionIds ids) : request_(std::move(request)), ids_(std::move(ids)) {}
  ChatRequest& request() override { return request_; }
  Json response(const PreparedPrompt& prompt, const GenerationResult& result) override {
    return openai_chat_completion(request_, prompt, result, ids_);
  }
  std::unique_ptr<ProtocolStream> stream(const PreparedPrompt&) override {
    return make_openai_chat_stream(request_, ids_);
  }

 private:
  ChatRequest request_;
  CompletionIds ids_;
};

std::unique_ptr<ApiExchange> map_openai_chat(const Json& body, const ChatRequestDefaults& defaults) {
  ChatRequest request = map_openai_chat_request(body, defaults);
  CompletionIds ids = new_completion_ids(request.model.empty() ? defaults.served_model : request.model);
  return std::make_unique<OpenAIChatExchange>(std::move(request), std::move(ids));
}

}  // namespace

const char* api_protocol_name(ApiProtocol protocol) {
  switch (protocol) {
    case ApiProtocol::OpenAIChat: return "chat_completions";
    case ApiProtocol::OpenAICompletions: return "completions";
    case ApiProtocol::OpenAIResponses: return "responses";
    case ApiProtocol::AnthropicMessages: return "messages";
  }
  return "unknown";
}

std::unique_ptr<ApiExchange> map_api_request(ApiProtocol protocol, std::string_view body,
                                             const ChatRequestDefaults& defaults) {
  const Json json = parse_request_body(body);  // checks UTF-8 and depth
  switch (protocol) {
    case ApiProtocol::OpenAIChat: return map_openai_chat(json, defaults);
    case ApiProtocol::OpenAICompletions: return map_openai_completions_request(json, defaults);
    case ApiProtocol::OpenAIResponses: return map_openai_responses_request(json, defaults);
    case ApiProtocol::AnthropicMessages: return map_anthropic_messages_request(json, defaults);
  }
  throw std::logic_error("map_api_request: unknown protocol");
}

Json api_error_body(ApiProtocol protocol, const ApiError& error) {
  switch (protocol) {
    case ApiProtocol::OpenAIChat:
    case ApiProtocol::OpenAICompletions:
    case ApiProtocol::OpenAIResponses: return openai_error_json(error);
    case ApiProtocol::AnthropicMessages: return anthropic_error_json(error);
  }
  return openai_error_json(error);
}

}  // namespace ninfer::api
