// A rejected API request in protocol-neutral form: the HTTP status, the error type and code, and the
// request field it is about. Every protocol prints it in its own shape (OpenAI: openai_error_json).
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace ninfer::api {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string type, std::string message, std::string param = {}, std::string code = {})
      : std::runtime_error(message),
        status(status),
        type(std::move(type)),
        message(std::move(message)),
        param(std::move(param)),
        code(std::move(code)) {}

  int status;           // 400 for a bad request, 503 while overloaded or draining, 500 for internal faults
  std::string type;     // "invalid_request_error", "server_error", ...
  std::string message;  // says what is wrong and, where it can, what would be right
  // The request field in OpenAI's path style: "messages[3].content", "tool_choice.function.name",
  // "response_format.json_schema.schema.properties.age"; empty when the request as a whole is at fault.
  std::string param;
  std::string code;  // machine-readable: "invalid_type", "unknown_parameter", "context_length_exceeded", ...
};

// A 400 invalid_request_error about `param`.
ApiError invalid_request(std::string param, std::string message, std::string code = "invalid_value");

// {"error": {"message", "type", "param", "code"}}; param and code are null when empty.
nlohmann::ordered_json openai_error_json(const ApiError& error);

}  // namespace ninfer::api
