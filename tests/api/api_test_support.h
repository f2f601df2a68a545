// Helpers for the OpenAI Chat request-mapping tests: map a body and get the request, or the rejection.
#pragma once

#include <string>

#include "api/openai_chat_request.h"
#include "request_test_support.h"

namespace ninfer::api::testing {

inline ChatRequest map_chat_body(const std::string& body, const ChatRequestDefaults& defaults) {
  return map_openai_chat_request(std::string_view(body), defaults);
}

inline ChatRequest accept(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  return accept_with<ChatRequest>(map_chat_body, body, defaults);
}

// The ApiError a body is rejected with (a test failure when it is accepted).
inline ApiError reject(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  return reject_with(map_chat_body, body, defaults);
}

// The body of a valid request with `extra` members added (a JSON object's members, without braces).
inline std::string with(const std::string& extra) {
  return with_members(R"({"model":"m","messages":[{"role":"user","content":"hi"}]})", extra);
}

}  // namespace ninfer::api::testing
