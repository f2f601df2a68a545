// Helpers for the Responses tests: map a body and get the request, or the rejection.
#pragma once

#include <string>

#include "api/openai_responses_request.h"
#include "request_test_support.h"

namespace ninfer::api::testing {

inline ResponsesRequest map_responses_text(const std::string& body, const ChatRequestDefaults& defaults) {
  return map_openai_responses_body(parse_request_body(body), defaults);
}

inline ResponsesRequest accept_responses(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  return accept_with<ResponsesRequest>(map_responses_text, body, defaults);
}

// The ApiError a body is rejected with (a test failure when it is accepted).
inline ApiError reject_responses(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  return reject_with(map_responses_text, body, defaults);
}

// A valid request body with `extra` members added (a JSON object's members, without braces).
inline std::string responses_with(const std::string& extra) { return with_members(R"({"model":"m","input":"hi"})", extra); }

inline Json responses_context(const ResponsesRequest& r) { return context_of(r.chat); }

}  // namespace ninfer::api::testing
