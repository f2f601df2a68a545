// Helpers for the request-mapping tests: map a body and get the request, or the rejection.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "api/openai_chat_request.h"

namespace ninfer::api::testing {

inline ChatRequest accept(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  try {
    return map_openai_chat_request(std::string_view(body), defaults);
  } catch (const ApiError& e) {
    ADD_FAILURE() << "rejected: " << e.message << " (param " << e.param << ")";
    return {};
  }
}

// The ApiError a body is rejected with (a test failure when it is accepted).
inline ApiError reject(const std::string& body, const ChatRequestDefaults& defaults = {}) {
  try {
    map_openai_chat_request(std::string_view(body), defaults);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << body;
  return ApiError(0, "", "");
}

// The body of a valid request with `extra` members added (a JSON object's members, without braces).
inline std::string with(const std::string& extra) {
  std::string body = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
  if (!extra.empty()) body.insert(body.size() - 1, "," + extra);
  return body;
}

inline Json context_of(const ChatRequest& r) {
  return r.prompt.chat_prompt ? Json::parse(r.prompt.chat_prompt->context_json) : Json();
}

}  // namespace ninfer::api::testing
