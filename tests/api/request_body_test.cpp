// The request body as JSON text, before any protocol reads it: a body that is not JSON is a 400
// whose error body is JSON in every protocol's shape, whatever bytes the client sent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/api_exchange.h"

namespace ninfer::api {
namespace {

// Found by api_mapping_fuzz: nlohmann's parse error quotes the bytes it last read ("last read:
// '\"Answer\xBE'"), and with invalid UTF-8 among them the error body's strict dump threw
// (type_error 316) instead of printing the 400.
TEST(RequestBody, ABodyThatIsNotJsonIsA400WhoseErrorBodyDumpsWhateverItsBytes) {
  for (ApiProtocol p : {ApiProtocol::OpenAIChat, ApiProtocol::OpenAICompletions, ApiProtocol::OpenAIResponses,
                        ApiProtocol::AnthropicMessages}) {
    for (const std::string& body : {std::string("{\"prompt\":\"Answer\xBE\"}"), std::string("\xFF\xFE{}"),
                                   std::string("{\"a\":\"caf\xC3\xA9\", x}")}) {
      try {
        map_api_request(p, body, {});
        ADD_FAILURE() << "mapped: " << body;
      } catch (const ApiError& e) {
        EXPECT_EQ(e.status, 400);
        EXPECT_EQ(e.code, "invalid_json");
        std::string text;
        ASSERT_NO_THROW(text = api_error_body(p, e).dump()) << e.message;
        EXPECT_TRUE(nlohmann::json::accept(text)) << text;
        EXPECT_NE(text.find("The request body is not valid JSON"), std::string::npos) << text;
      }
    }
  }
}

}  // namespace
}  // namespace ninfer::api
