#include "api/openai_responses_exchange.h"

#include <utility>

#include "api/openai_responses_stream.h"

namespace ninfer::api {
namespace {

class ResponsesExchange final : public ApiExchange {
 public:
  ResponsesExchange(ResponsesRequest request, ResponseIds ids)
      : request_(std::make_shared<ResponsesRequest>(std::move(request))), ids_(std::move(ids)) {}

  ChatRequest& request() override { return request_->chat; }

  Json response(const PreparedPrompt&, const GenerationResult& result) override {
    return openai_response(*request_, ids_, result);
  }

  // The stream shares the request (the server may still set the seed on it) and the ids.
  std::unique_ptr<ProtocolStream> stream(const PreparedPrompt&) override {
    return make_openai_responses_stream(request_, ids_);
  }

 private:
  std::shared_ptr<ResponsesRequest> request_;
  ResponseIds ids_;
};

}  // namespace

std::unique_ptr<ApiExchange> map_openai_responses_request(const Json& body, const ChatRequestDefaults& defaults) {
  return make_openai_responses_exchange(map_openai_responses_body(body, defaults), new_response_ids());
}

std::unique_ptr<ApiExchange> make_openai_responses_exchange(ResponsesRequest request, ResponseIds ids) {
  return std::make_unique<ResponsesExchange>(std::move(request), std::move(ids));
}

}  // namespace ninfer::api
