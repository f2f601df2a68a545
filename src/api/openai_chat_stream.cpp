#include "api/openai_chat_stream.h"

#include "api/api_error.h"
#include "api/result_json.h"
#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

using qwen3::ChatDelta;

class OpenAIChatStream : public ProtocolStream {
 public:
  OpenAIChatStream(const ChatRequest& request, CompletionIds ids) : request_(request), ids_(std::move(ids)) {}

  void open(std::vector<SseEvent>& out) override { out.push_back(chunk({{"role", "assistant"}, {"content", ""}})); }

  void delta(const ChatDelta& d, std::vector<SseEvent>& out) override {
    switch (d.kind) {
      case ChatDelta::Kind::Content: out.push_back(chunk({{"content", valid_utf8(d.text)}})); break;
      case ChatDelta::Kind::Reasoning: out.push_back(chunk({{"reasoning_content", valid_utf8(d.text)}})); break;
      case ChatDelta::Kind::ToolCallBegin:
        out.push_back(chunk({{"tool_calls", Json::array({{{"index", d.index},
                                                          {"id", d.id},
                                                          {"type", "function"},
                                                          {"function", {{"name", valid_utf8(d.name)}, {"arguments", ""}}}}})}}));
        break;
      case ChatDelta::Kind::ToolCallArguments:
        out.push_back(chunk(
            {{"tool_calls", Json::array({{{"index", d.index}, {"function", {{"arguments", valid_utf8(d.text)}}}}})}}));
        break;
    }
  }

  void finish(const GenerationResult& result, std::vector<SseEvent>& out) override {
    SseEvent last = chunk(Json::object(), openai_finish_reason(result, request_));
    if (request_.include_usage) {
      out.push_back(std::move(last));
      Json usage = base();
      usage["choices"] = Json::array();
      usage["usage"] = openai_usage(result.usage);
      last = {"", with_constraint(std::move(usage), result)};
    } else {
      Json j = Json::parse(last.data);
      last.data = with_constraint(std::move(j), result);
    }
    out.push_back(std::move(last));
    out.push_back({"", "[DONE]"});
  }

  void fail(const ApiError& error, std::vector<SseEvent>& out) override {
    out.push_back({"", openai_error_json(error).dump(-1, ' ', false, Json::error_handler_t::replace)});
    out.push_back({"", "[DONE]"});
  }

 private:
  Json base() const {
    return {{"id", ids_.id}, {"object", "chat.completion.chunk"}, {"created", ids_.created}, {"model", ids_.model}};
  }

  SseEvent chunk(Json delta, const std::string& finish_reason = {}) const {
    Json j = base();
    j["choices"] = Json::array({{{"index", 0},
                                 {"delta", std::move(delta)},
                                 {"logprobs", nullptr},
                                 {"finish_reason", finish_reason.empty() ? Json(nullptr) : Json(finish_reason)}}});
    // OpenAI: with include_usage every chunk carries "usage": null except the last one.
    if (request_.include_usage) j["usage"] = nullptr;
    return {"", j.dump(-1, ' ', false, Json::error_handler_t::replace)};
  }

  static std::string with_constraint(Json j, const GenerationResult& result) {
    j["constraint"] = result.constraint ? Json(constraint_report_json(*result.constraint)) : Json(nullptr);
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }

  const ChatRequest& request_;  // the exchange's request, which outlives its stream
  CompletionIds ids_;
};

}  // namespace

std::unique_ptr<ProtocolStream> make_openai_chat_stream(const ChatRequest& request, CompletionIds ids) {
  return std::make_unique<OpenAIChatStream>(request, std::move(ids));
}

}  // namespace ninfer::api
