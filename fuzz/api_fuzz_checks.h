// What http_request_fuzz and api_mapping_fuzz require of a client's request body and of every
// error the server answers with. A body either maps (and its template context is a JSON object)
// or is rejected with an api::ApiError of status 4xx: the client controls the body, so a 5xx or
// any other exception is a bug. Every error must print in its protocol's shape and dump as JSON
// with valid UTF-8 (nlohmann's strict dump throws on anything else). A failed check prints what
// it saw and aborts, so that libFuzzer keeps the input. With NINFER_FUZZ_VERBOSE set, each mapping
// prints its outcome (to see which seeds map).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/api_exchange.h"

namespace ninfer::fuzz {

[[noreturn]] inline void fail(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "FUZZ CHECK FAILED: %s\n  input (%zu bytes): %.*s\n", what.c_str(), input.size(),
               static_cast<int>(input.size() > 600 ? 600 : input.size()), input.data());
  std::abort();
}

inline bool is_string_or_null(const nlohmann::json& v) { return v.is_string() || v.is_null(); }

// The protocol's error object, independently of how src/api builds it:
// OpenAI {"error": {"message": str, "type": str, "param": str|null, "code": str|null}};
// Anthropic {"type": "error", "error": {"type": str, "message": str}}.
inline void check_error_shape(api::ApiProtocol protocol, const nlohmann::json& body, std::string_view input) {
  const std::string text = body.dump();
  if (!body.is_object()) fail("error body is not an object: " + text, input);
  if (protocol == api::ApiProtocol::AnthropicMessages) {
    if (body.size() != 2 || body.value("type", "") != "error" || !body.contains("error"))
      fail("Anthropic error body has the wrong members: " + text, input);
    const nlohmann::json& e = body["error"];
    if (!e.is_object() || e.size() != 2 || !e.contains("type") || !e["type"].is_string() || !e.contains("message") ||
        !e["message"].is_string() || e["message"].get<std::string>().empty())
      fail("Anthropic error object has the wrong members: " + text, input);
    return;
  }
  if (body.size() != 1 || !body.contains("error")) fail("OpenAI error body has the wrong members: " + text, input);
  const nlohmann::json& e = body["error"];
  if (!e.is_object() || e.size() != 4 || !e.contains("message") || !e["message"].is_string() ||
      e["message"].get<std::string>().empty() || !e.contains("type") || !e["type"].is_string() ||
      !e.contains("param") || !is_string_or_null(e["param"]) || !e.contains("code") || !is_string_or_null(e["code"]))
    fail("OpenAI error object has the wrong members: " + text, input);
}

// An error the server answers a client with: a status in [lowest, highest], a message, and a body
// in the protocol's shape that dumps strictly (valid UTF-8) and parses back.
inline void check_client_error(api::ApiProtocol protocol, const api::ApiError& error, int lowest, int highest,
                               std::string_view input) {
  if (error.status < lowest || error.status > highest)
    fail("status " + std::to_string(error.status) + " outside " + std::to_string(lowest) + ".." +
             std::to_string(highest) + " (" + error.type + "): " + error.message,
         input);
  if (error.message.empty() || error.type.empty()) fail("an error without a message or a type", input);
  const api::Json body = api::api_error_body(protocol, error);
  std::string text;
  try {
    text = body.dump();
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("the error body does not dump as UTF-8 JSON: ") + e.what() + "; message: " + error.message,
         input);
  }
  nlohmann::json reread;
  try {
    reread = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("the dumped error body does not parse: ") + e.what(), input);
  }
  check_error_shape(protocol, reread, input);
}

// map_api_request on a client's body: it maps, or throws a 4xx ApiError (checked as above).
inline void check_mapping(api::ApiProtocol protocol, std::string_view body, std::string_view input) {
  static const api::ChatRequestDefaults defaults;
  try {
    const std::unique_ptr<api::ApiExchange> exchange = api::map_api_request(protocol, body, defaults);
    if (!exchange) fail("map_api_request returned no exchange", input);
    if (std::getenv("NINFER_FUZZ_VERBOSE")) std::fprintf(stderr, "%s: maps\n", api::api_protocol_name(protocol));
    const api::ChatRequest& request = exchange->request();
    if (request.prompt.chat_prompt) {
      const auto context = nlohmann::json::parse(request.prompt.chat_prompt->context_json, nullptr, false);
      if (!context.is_object()) fail("the template context is not a JSON object", input);
    }
  } catch (const api::ApiError& e) {
    if (std::getenv("NINFER_FUZZ_VERBOSE"))
      std::fprintf(stderr, "%s: %d %s\n", api::api_protocol_name(protocol), e.status, e.message.c_str());
    check_client_error(protocol, e, 400, 499, input);
  } catch (const std::exception& e) {
    fail(std::string("map_api_request(") + api::api_protocol_name(protocol) +
             ") threw something other than ApiError: " + e.what(),
         input);
  }
}

}  // namespace ninfer::fuzz
