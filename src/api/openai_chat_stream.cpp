#include "api/openai_chat_stream.h"

#include "api/openai_chunks.h"
#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

using qwen3::ChatDelta;

class OpenAIChatStream : public ProtocolStream {
 public:
  OpenAIChatStream(const ChatRequest& request, CompletionIds ids)
      : request_(request), chunks_("chat.completion.chunk", std::move(ids), request.include_usage) {}

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
    chunks_.finish("delta", Json::object(), openai_finish_reason(result, request_), result, out);
  }

  void fail(const ApiError& error, std::vector<SseEvent>& out) override { OpenAIChunks::fail(error, out); }

 private:
  SseEvent chunk(Json delta) const { return chunks_.chunk("delta", std::move(delta)); }

  const ChatRequest& request_;  // the exchange's request, which outlives its stream
  OpenAIChunks chunks_;
};

}  // namespace

std::unique_ptr<ProtocolStream> make_openai_chat_stream(const ChatRequest& request, CompletionIds ids) {
  return std::make_unique<OpenAIChatStream>(request, std::move(ids));
}

}  // namespace ninfer::api
