#include "api/openai_chunks.h"

#include "api/result_json.h"

namespace ninfer::api {
namespace {

SseEvent data_event(const Json& j) { return {"", j.dump(-1, ' ', false, Json::error_handler_t::replace)}; }

}  // namespace

Json OpenAIChunks::base() const {
  return {{"id", ids_.id}, {"object", object_}, {"created", ids_.created}, {"model", ids_.model}};
}

Json OpenAIChunks::chunk_json(std::string_view member, Json value, const std::string& finish_reason) const {
  Json j = base();
  Json choice = {{"index", 0}};
  choice[std::string(member)] = std::move(value);
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish_reason.empty() ? Json(nullptr) : Json(finish_reason);
  j["choices"] = Json::array({std::move(choice)});
  if (include_usage_) j["usage"] = nullptr;
  return j;
}

SseEvent OpenAIChunks::chunk(std::string_view member, Json value, const std::string& finish_reason) const {
  return data_event(chunk_json(member, std::move(value), finish_reason));
}

void OpenAIChunks::finish(std::string_view member, Json value, const std::string& finish_reason,
                          const GenerationResult& result, std::vector<SseEvent>& out) const {
  Json last = chunk_json(member, std::move(value), finish_reason);
  if (include_usage_) {
    out.push_back(data_event(last));
    last = base();
    last["choices"] = Json::array();
    last["usage"] = openai_usage(result.usage);
  }
  last["constraint"] = result.constraint ? Json(constraint_report_json(*result.constraint)) : Json(nullptr);
  out.push_back(data_event(last));
  out.push_back({"", "[DONE]"});
}

void OpenAIChunks::fail(const ApiError& error, std::vector<SseEvent>& out) {
  out.push_back(data_event(openai_error_json(error)));
  out.push_back({"", "[DONE]"});
}

}  // namespace ninfer::api
