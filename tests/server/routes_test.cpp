// The server's routes: API paths by protocol (the query ignored), and the 405 and 404 errors as
// JSON bodies that dump, whatever bytes the client put in the target.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/routes.h"

namespace ninfer::server {
namespace {

TEST(Routes, EachApiPathNamesItsProtocolWithOrWithoutAQuery) {
  EXPECT_EQ(api_route(request_path("/v1/chat/completions")), api::ApiProtocol::OpenAIChat);
  EXPECT_EQ(api_route(request_path("/v1/completions?x=1")), api::ApiProtocol::OpenAICompletions);
  EXPECT_EQ(api_route(request_path("/v1/responses?")), api::ApiProtocol::OpenAIResponses);
  EXPECT_EQ(api_route(request_path("/v1/messages?beta=true")), api::ApiProtocol::AnthropicMessages);
  EXPECT_EQ(api_route(request_path("/v1/messages/")), std::nullopt);
  EXPECT_EQ(api_route(request_path("/v1/models")), std::nullopt);
  EXPECT_EQ(request_path("/a?b?c"), "/a");
}

TEST(Routes, WrongMethodAndUnknownPathAreA405AndA404) {
  const api::ApiError wrong = method_not_allowed("/v1/messages");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.message, "Use POST for /v1/messages.");
  const api::ApiError unknown = unknown_endpoint("GET", "/v2/chat");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.code, "unknown_url");
  EXPECT_EQ(unknown.message, "Unknown endpoint: GET /v2/chat.");
}

// Found by http_request_fuzz: Beast accepts any octet above 0x7F in a target, and the 404 message
// that named the raw path made the strict JSON dump of the error body throw (type_error 316) on
// the connection's strand, which ended the server.
TEST(Routes, AnUnknownPathOfInvalidUtf8GivesAnErrorBodyThatDumps) {
  const api::ApiError unknown = unknown_endpoint("GET", "/\xFF\xC3(caf\xC3\xA9");
  for (api::ApiProtocol p : {api::ApiProtocol::OpenAIChat, api::ApiProtocol::AnthropicMessages}) {
    std::string text;
    ASSERT_NO_THROW(text = api::api_error_body(p, unknown).dump());
    EXPECT_NE(text.find("/\xEF\xBF\xBD\xEF\xBF\xBD(caf\xC3\xA9"), std::string::npos) << text;
    EXPECT_TRUE(nlohmann::json::accept(text));
  }
  EXPECT_NO_THROW(api::api_error_body(api::ApiProtocol::OpenAIChat, method_not_allowed("/\xE2\x82")).dump());
}

}  // namespace
}  // namespace ninfer::server
