// POST /v1/responses as the server sees it (api_exchange.h): the body mapped once, the response
// object, the stream, and one response id and creation time shared by both, so that a streamed
// response ends with the object a non-streamed one would get.
#pragma once

#include <memory>

#include "api/api_exchange.h"
#include "api/openai_responses_object.h"
#include "api/openai_responses_request.h"

namespace ninfer::api {

// A rejected body throws ApiError (400, param = the Responses field).
std::unique_ptr<ApiExchange> map_openai_responses_request(const Json& body, const ChatRequestDefaults& defaults);
// The exchange for an already mapped request and given ids (tests fix the ids).
std::unique_ptr<ApiExchange> make_openai_responses_exchange(ResponsesRequest request, ResponseIds ids);

}  // namespace ninfer::api
