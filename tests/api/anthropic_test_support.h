// Helpers for the Anthropic Messages tests: map a body and get the request, or the rejection.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "api/anthropic_messages_request.h"

namespace ninfer::api::testing {

inline ChatRequest accept_anthropic(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  try {
    return map_anthropic_request(std::string_view(body), defaults);
  } catch (const ApiError& e) {
    ADD_FAILURE() << "rejected: " << e.message << " (param " << e.param << ")";
    return {};
  }
}

// The ApiError a body is rejected with (a test failure when it is accepted).
inline ApiError reject_anthropic(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  try {
    map_anthropic_request(std::string_view(body), defaults);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << body;
  return ApiError(0, "", "");
}

// A valid Messages request with `extra` members added (a JSON object's members, without braces).
inline std::string anthropic_with(const std::string& extra) {
  std::string body = R"({"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}]})";
  if (!extra.empty()) body.insert(body.size() - 1, "," + extra);
  return body;
}

}  // namespace ninfer::api::testing
