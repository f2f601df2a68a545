#include "api/api_error.h"

namespace ninfer::api {

ApiError invalid_request(std::string param, std::string message, std::string code) {
  return ApiError(400, "invalid_request_error", std::move(message), std::move(param), std::move(code));
}

nlohmann::ordered_json openai_error_json(const ApiError& error) {
  auto or_null = [](const std::string& s) { return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s); };
  return {{"error",
           {{"message", error.message}, {"type", error.type}, {"param", or_null(error.param)}, {"code", or_null(error.code)}}}};
}

}  // namespace ninfer::api
