#include "server/routes.h"

#include "api/utf8_text.h"

namespace ninfer::server {
namespace {

struct ApiRoute {
  std::string_view path;
  api::ApiProtocol protocol;
};
constexpr ApiRoute kApiRoutes[] = {
    {"/v1/chat/completions", api::ApiProtocol::OpenAIChat},
    {"/v1/completions", api::ApiProtocol::OpenAICompletions},
    {"/v1/responses", api::ApiProtocol::OpenAIResponses},
    {"/v1/messages", api::ApiProtocol::AnthropicMessages},
};

}  // namespace

std::string request_path(std::string_view target) { return std::string(target.substr(0, target.find('?'))); }

std::optional<api::ApiProtocol> api_route(std::string_view path) {
  for (const ApiRoute& route : kApiRoutes)
    if (path == route.path) return route.protocol;
  return std::nullopt;
}

api::ApiError method_not_allowed(std::string_view path) {
  return api::ApiError(405, "invalid_request_error", "Use POST for " + api::valid_utf8(path) + ".", "",
                       "method_not_allowed");
}

api::ApiError unknown_endpoint(std::string_view method, std::string_view path) {
  return api::ApiError(404, "invalid_request_error",
                       "Unknown endpoint: " + api::valid_utf8(method) + " " + api::valid_utf8(path) + ".", "",
                       "unknown_url");
}

}  // namespace ninfer::server
