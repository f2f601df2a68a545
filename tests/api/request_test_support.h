// What the request-mapping tests of every protocol share: map a body and get the request, or the
// rejection; a valid body with members added.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "api/chat_request.h"

namespace ninfer::api::testing {

// What `map(body, defaults)` makes of `body` (a test failure, and Request{}, when it rejects it).
template <typename Request, typename Map>
Request accept_with(Map map, const std::string& body, const ChatRequestDefaults& defaults) {
  try {
    return map(body, defaults);
  } catch (const ApiError& e) {
    ADD_FAILURE() << "rejected: " << e.message << " (param " << e.param << ")";
    return {};
  }
}

// The ApiError `map(body, defaults)` rejects `body` with (a test failure when it is accepted).
template <typename Map>
ApiError reject_with(Map map, const std::string& body, const ChatRequestDefaults& defaults) {
  try {
    map(body, defaults);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << body;
  return ApiError(0, "", "");
}

// A 400 at `param` with `code`, as a rejection table expects; `what` names the case.
inline void expect_rejected_at(const ApiError& e, const std::string& param, const std::string& code,
                               const std::string& what) {
  EXPECT_EQ(e.status, 400) << what;
  EXPECT_EQ(e.param, param) << what << ": " << e.message;
  EXPECT_EQ(e.code, code) << what << ": " << e.message;
}

// `body` (a JSON object's text) with `extra` members added (members without braces).
inline std::string with_members(std::string body, const std::string& extra) {
  if (!extra.empty()) body.insert(body.size() - 1, "," + extra);
  return body;
}

// The template context a chat request renders.
inline Json context_of(const ChatRequest& r) {
  return r.prompt.chat_prompt ? Json::parse(r.prompt.chat_prompt->context_json) : Json();
}

}  // namespace ninfer::api::testing
