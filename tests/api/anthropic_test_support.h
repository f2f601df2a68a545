// Helpers for the Anthropic Messages tests: map a body and get the request, or the rejection.
#pragma once

#include <string>

#include "api/anthropic_messages_request.h"
#include "request_test_support.h"

namespace ninfer::api::testing {

inline ChatRequest map_anthropic_body(const std::string& body, const ChatRequestDefaults& defaults) {
  return map_anthropic_request(std::string_view(body), defaults);
}

inline ChatRequest accept_anthropic(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  return accept_with<ChatRequest>(map_anthropic_body, body, defaults);
}

// The ApiError a body is rejected with (a test failure when it is accepted).
inline ApiError reject_anthropic(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  return reject_with(map_anthropic_body, body, defaults);
}

// A valid Messages request with `extra` members added (a JSON object's members, without braces).
inline std::string anthropic_with(const std::string& extra) {
  return with_members(R"({"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]})", extra);
}

}  // namespace ninfer::api::testing
