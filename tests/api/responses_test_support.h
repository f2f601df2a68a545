// Helpers for the Responses tests: map a body and get the request, or the rejection.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "api/openai_responses_request.h"

namespace ninfer::api::testing {

inline ResponsesRequest accept_responses(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  try {
    return map_openai_responses_body(parse_request_body(body), defaults);
  } catch (const ApiError& e) {
    ADD_FAILURE() << "rejected: " << e.message << " (param " << e.param << ")";
    return {};
  }
}

// The ApiError a body is rejected with (a test failure when it is accepted).
inline ApiError reject_responses(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  try {
    map_openai_responses_body(parse_request_body(body), defaults);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << body;
  return ApiError(0, "", "");
}

// A valid request body with `extra` members added (a JSON object's members, without braces).
inline std::string responses_with(const std::string& extra) {
  std::string body = R"({"model":"m","input":"hi"})";
  if (!extra.empty()) body.insert(body.size() - 1, "," + extra);
  return body;
}

inline Json responses_context(const ResponsesRequest& r) {
  return r.chat.prompt.chat_prompt ? Json::parse(r.chat.prompt.chat_prompt->context_json) : Json();
}

}  // namespace ninfer::api::testing
