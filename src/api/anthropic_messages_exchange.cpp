#include "api/anthropic_messages_exchange.h"

#include <string>

#include "api/anthropic_messages_request.h"
#include "api/anthropic_messages_response.h"
#include "api/anthropic_messages_stream.h"
#include "api/random_id.h"

namespace ninfer::api {
namespace {

class AnthropicMessagesExchange : public ApiExchange {
 public:
  AnthropicMessagesExchange(ChatRequest request, std::string model)
      : request_(std::move(request)), id_(random_hex_id("msg_")), model_(std::move(model)) {}

  ChatRequest& request() override { return request_; }

  Json response(const PreparedPrompt& prompt, const GenerationResult& result) override {
    return anthropic_message(request_, prompt, result, id_, model_);
  }

  std::unique_ptr<ProtocolStream> stream(const PreparedPrompt& prompt) override {
    return make_anthropic_message_stream(request_, prompt, id_, model_);
  }

 private:
  ChatRequest request_;
  std::string id_;
  std::string model_;
};

}  // namespace

std::unique_ptr<ApiExchange> map_anthropic_messages_request(const Json& body, const ChatRequestDefaults& defaults) {
  ChatRequest request = map_anthropic_request(body, defaults);
  // `model` is required in Anthropic's API; an empty one reports the served model.
  std::string model = request.model.empty() ? defaults.served_model : request.model;
  return std::make_unique<AnthropicMessagesExchange>(std::move(request), std::move(model));
}

}  // namespace ninfer::api
