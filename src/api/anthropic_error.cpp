#include "api/anthropic_error.h"

#include <cctype>

namespace ninfer::api {
namespace {

bool starts_with_at(const std::string& text, size_t pos, std::string_view prefix) {
  return text.compare(pos, prefix.size(), prefix) == 0;
}

}  // namespace

const char* anthropic_error_type(int status) {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 500: return "api_error";
    case 503:
    case 529: return "overloaded_error";
    case 504: return "timeout_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

std::string anthropic_field_path(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (starts_with_at(text, i, "tool_choice.function.name")) {
      out += "tool_choice.name";
      i += std::string_view("tool_choice.function.name").size();
      continue;
    }
    // "tools[" digits "].function" (not a longer name such as "my_tools[").
    const bool word_start = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
    if (word_start && starts_with_at(text, i, "tools[")) {
      size_t j = i + 6;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j > i + 6 && starts_with_at(text, j, "].function")) {
        out.append(text, i, j + 1 - i);  // "tools[N]"
        size_t k = j + std::string_view("].function").size();
        if (starts_with_at(text, k, ".parameters")) {
          out += ".input_schema";
          k += std::string_view(".parameters").size();
        }
        i = k;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::string anthropic_param(const std::string& param) {
  if (param == "stop") return "stop_sequences";
  if (param == "thinking_token_budget") return "thinking.budget_tokens";
  // A prefill is the request's final assistant turn; the template context has no such field.
  if (param == "continue_final_message" || param == "add_generation_prompt") return "messages";
  return anthropic_field_path(param);
}

Json anthropic_error_json(const ApiError& error) {
  std::string message = error.message;
  const std::string& param = error.param;
  if (!param.empty() && message.find(param) == std::string::npos) message = param + ": " + message;
  return {{"type", "error"}, {"error", {{"type", anthropic_error_type(error.status)}, {"message", message}}}};
}

}  // namespace ninfer::api
