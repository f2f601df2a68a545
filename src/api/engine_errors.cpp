#include "api/engine_errors.h"

#include <string>
#include <string_view>
#include <vector>

#include "api/json_pointer_param.h"

namespace ninfer::api {
namespace {

// The parsed JSON text, or null when it does not parse (the pointer is then read from its text alone).
Json parse_or_null(const std::string& text) {
  try {
    Json j = Json::parse(text);
    check_request_depth(j);
    return j;
  } catch (const std::exception&) {
    return Json();
  }
}

// The schema a tool error points into: tools[i].function.parameters of the template context.
Json tool_parameters(const ChatRequest& request, int tool) {
  if (!request.prompt.chat_prompt) return Json();
  const Json context = parse_or_null(request.prompt.chat_prompt->context_json);
  if (!context.is_object() || !context.contains("tools") || !context["tools"].is_array()) return Json();
  const Json& tools = context["tools"];
  if (tool < 0 || static_cast<size_t>(tool) >= tools.size()) return Json();
  const Json& t = tools[static_cast<size_t>(tool)];
  if (!t.is_object() || !t.contains("function") || !t["function"].is_object()) return Json();
  const Json& f = t["function"];
  return f.contains("parameters") ? f["parameters"] : Json();
}

bool points_into_schema(const ConstraintError& e) {
  switch (e.kind()) {
    case ConstraintErrorKind::InvalidJsonSchema:
    case ConstraintErrorKind::UnsupportedSchema:
    case ConstraintErrorKind::Unsatisfiable: return true;
    case ConstraintErrorKind::LimitExceeded: return e.line() == 0 && e.offset() < 0;
    default: return false;
  }
}

// "InvalidJsonSchema" -> "invalid_json_schema": codes are snake_case, as OpenAI's are.
std::string snake_case(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

// "messages[k]..." -> the request path of template message k, where the mapping recorded one.
std::string request_message_path(std::string param, const std::vector<std::string>& message_paths) {
  if (message_paths.empty() || param.rfind("messages[", 0) != 0) return param;
  const size_t close = param.find(']');
  if (close == std::string::npos || close == 9) return param;
  size_t k = 0;
  for (size_t i = 9; i < close; ++i) {
    if (param[i] < '0' || param[i] > '9' || k > message_paths.size()) return param;
    k = k * 10 + static_cast<size_t>(param[i] - '0');
  }
  return k < message_paths.size() ? message_paths[k] + param.substr(close + 1) : param;
}

std::string in_request_layout(std::string param, const ChatRequest& request) {
  if (param.empty()) return param;
  param = request_message_path(std::move(param), request.message_paths);
  return request.translate_param ? request.translate_param(param) : param;
}

std::string message_in_request_layout(std::string message, const ChatRequest& request) {
  return request.translate_message ? request.translate_message(message) : message;
}

std::string error_code(RequestErrorKind kind) {
  // OpenAI's own code for a prompt that does not fit.
  if (kind == RequestErrorKind::PromptTooLong) return "context_length_exceeded";
  return request_error_kind_name(kind);
}

ApiError from_kind(RequestErrorKind kind, std::string message, std::string param, const ChatRequest& request) {
  message = message_in_request_layout(std::move(message), request);
  switch (kind) {
    case RequestErrorKind::Overloaded:
    case RequestErrorKind::ShuttingDown:
    case RequestErrorKind::DeadlineExceeded:
      return ApiError(503, "server_error", std::move(message), "", error_code(kind));
    case RequestErrorKind::NonFiniteLogits:  // the model's numbers, not the request
    case RequestErrorKind::Internal: return ApiError(500, "server_error", std::move(message), "", error_code(kind));
    default: break;
  }
  if (param.empty()) {
    // Where the Engine does not say, the field the kind is about.
    switch (kind) {
      case RequestErrorKind::PromptTooLong: param = "messages"; break;
      case RequestErrorKind::InvalidTemplate: param = request.request_template ? "chat_template" : ""; break;
      case RequestErrorKind::InvalidContinuation: param = "continue_final_message"; break;
      case RequestErrorKind::EmptyInitialMask:
      case RequestErrorKind::ConstraintDeadEnd: param = request.constraint_param; break;
      default: break;
    }
  }
  return invalid_request(in_request_layout(std::move(param), request), std::move(message), error_code(kind));
}

}  // namespace

ApiError from_constraint_error(const ConstraintError& e, const ChatRequest& request) {
  std::string param;
  if (e.tool() >= 0) {
    param = "tools[" + std::to_string(e.tool()) + "].function.parameters";
    if (points_into_schema(e)) {
      const Json schema = tool_parameters(request, e.tool());
      param += json_pointer_param(e.pointer(), schema.is_null() ? nullptr : &schema);
    }
  } else {
    param = request.constraint_param;
    const auto& c = request.options.constraint;
    if (!param.empty() && c && c->kind() == OutputConstraint::Kind::JsonSchema && points_into_schema(e)) {
      const Json schema = parse_or_null(c->source());
      param += json_pointer_param(e.pointer(), schema.is_null() ? nullptr : &schema);
    }
  }
  return invalid_request(in_request_layout(std::move(param), request), message_in_request_layout(e.what(), request),
                         snake_case(constraint_error_kind_name(e.kind())));
}

ApiError from_request_error(const RequestError& e, const ChatRequest& request) {
  std::string message = e.what();
  if (e.line() > 0)
    message += " (chat template line " + std::to_string(e.line()) + ", column " + std::to_string(e.column()) + ")";
  return from_kind(e.kind(), std::move(message), e.param(), request);
}

ApiError from_result_error(const GenerationResult& result, const ChatRequest& request) {
  return from_kind(result.error.value_or(RequestErrorKind::Internal), result.error_message, "", request);
}

ApiError from_exception(const std::exception& e, const ChatRequest& request) {
  if (auto* ce = dynamic_cast<const ConstraintError*>(&e)) return from_constraint_error(*ce, request);
  if (auto* re = dynamic_cast<const RequestError*>(&e)) return from_request_error(*re, request);
  if (auto* ae = dynamic_cast<const ApiError*>(&e)) return *ae;
  return ApiError(500, "server_error", e.what(), "", "internal");
}

}  // namespace ninfer::api
