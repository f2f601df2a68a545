// The server's routes as pure functions, so that routing is unit-tested and fuzzed as it runs:
// the path a target names, the API protocol of each generation endpoint, and the errors for a
// wrong method or an unknown path. HttpConnection::handle dispatches with these.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/api_error.h"
#include "api/api_exchange.h"

namespace ninfer::server {

// The request target without its query ("/v1/messages?beta=true" -> "/v1/messages").
std::string request_path(std::string_view target);

// The protocol of a generation endpoint (POST /v1/chat/completions, /v1/completions,
// /v1/responses, /v1/messages); none for any other path.
std::optional<api::ApiProtocol> api_route(std::string_view path);

// 405 for an API path requested with another method than POST.
api::ApiError method_not_allowed(std::string_view path);
// 404 naming the method and path. The path is the client's bytes (Beast accepts any octet above
// 0x7F in a target), so invalid UTF-8 in it is replaced: the message goes into a JSON body.
api::ApiError unknown_endpoint(std::string_view method, std::string_view path);

}  // namespace ninfer::server
