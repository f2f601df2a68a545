// POST /v1/messages as an ApiExchange: the mapped request (anthropic_messages_request), the
// `message` object (anthropic_messages_response), its stream (anthropic_messages_stream) and the
// error shape (anthropic_error). The message id ("msg_<32 hex>") is drawn once per exchange, so the
// response and the stream of one request name the same message.
#pragma once

#include <memory>

#include "api/api_exchange.h"

namespace ninfer::api {

// Throws ApiError (400, param = the field) for a rejected body.
std::unique_ptr<ApiExchange> map_anthropic_messages_request(const Json& body, const ChatRequestDefaults& defaults);

}  // namespace ninfer::api
