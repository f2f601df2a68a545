#include "api/anthropic_messages_stream.h"

#include <optional>

#include "api/anthropic_error.h"
#include "api/anthropic_messages_response.h"
#include "api/result_json.h"
#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

using qwen3::ChatDelta;

class AnthropicMessageStream : public ProtocolStream {
 public:
  AnthropicMessageStream(const ChatRequest& request, const PreparedPrompt& prompt, std::string id, std::string model)
      : id_(std::move(id)), model_(std::move(model)), input_tokens_(static_cast<int>(prompt.tokens.size())) {
    // Only what errors are located by: the prompt and the constraint's source stay with the caller.
    request_.constraint_param = request.constraint_param;
    request_.request_template = request.request_template;
  }

  void open(std::vector<SseEvent>& out) override {
    emit(out, {{"type", "message_start"},
               {"message",
                {{"id", id_},
                 {"type", "message"},
                 {"role", "assistant"},
                 {"model", model_},
                 {"content", Json::array()},
                 {"stop_reason", nullptr},
                 {"stop_sequence", nullptr},
                 {"usage", anthropic_start_usage(input_tokens_)}}}});
  }

  void delta(const ChatDelta& d, std::vector<SseEvent>& out) override {
    switch (d.kind) {
      case ChatDelta::Kind::Reasoning:
        if (d.text.empty()) return;
        if (open_ != Open::Thinking) start(out, Open::Thinking, {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}});
        block_delta(out, {{"type", "thinking_delta"}, {"thinking", valid_utf8(d.text)}});
        return;
      case ChatDelta::Kind::Content:
        if (d.text.empty()) return;
        if (open_ != Open::Text) start(out, Open::Text, {{"type", "text"}, {"text", ""}});
        block_delta(out, {{"type", "text_delta"}, {"text", valid_utf8(d.text)}});
        return;
      case ChatDelta::Kind::ToolCallBegin:
        start(out, Open::ToolUse,
              {{"type", "tool_use"},
               {"id", anthropic_tool_use_id(d.id)},
               {"name", valid_utf8(d.name)},
               {"input", Json::object()}});
        call_ = d.index;
        return;
      case ChatDelta::Kind::ToolCallArguments:
        // The parser sends a call's arguments right after its begin, before the next call opens.
        if (d.text.empty() || open_ != Open::ToolUse || call_ != d.index) return;
        block_delta(out, {{"type", "input_json_delta"}, {"partial_json", valid_utf8(d.text)}});
        return;
    }
  }

  void finish(const GenerationResult& result, std::vector<SseEvent>& out) override {
    std::string stop_reason;
    try {
      stop_reason = anthropic_stop_reason(result, request_);
    } catch (const ApiError& e) {
      fail(e, out);
      return;
    }
    close(out);
    emit(out, {{"type", "message_delta"},
               {"delta",
                {{"stop_reason", stop_reason},
                 {"stop_sequence", result.stop_sequence ? Json(valid_utf8(*result.stop_sequence)) : Json(nullptr)}}},
               {"usage", anthropic_usage(result.usage)}});
    emit(out, {{"type", "message_stop"},
               {"constraint", result.constraint ? Json(constraint_report_json(*result.constraint)) : Json(nullptr)}});
  }

  void fail(const ApiError& error, std::vector<SseEvent>& out) override { emit(out, anthropic_error_json(error)); }

 private:
  enum class Open { None, Thinking, Text, ToolUse };

  static void emit(std::vector<SseEvent>& out, const Json& data) {
    out.push_back({data["type"].get<std::string>(), data.dump()});
  }

  void close(std::vector<SseEvent>& out) {
    if (open_ == Open::None) return;
    emit(out, {{"type", "content_block_stop"}, {"index", index_}});
    open_ = Open::None;
  }

  void start(std::vector<SseEvent>& out, Open kind, Json block) {
    close(out);
    if (started_) ++index_;
    started_ = true;
    open_ = kind;
    emit(out, {{"type", "content_block_start"}, {"index", index_}, {"content_block", std::move(block)}});
  }

  void block_delta(std::vector<SseEvent>& out, Json delta) {
    emit(out, {{"type", "content_block_delta"}, {"index", index_}, {"delta", std::move(delta)}});
  }

  ChatRequest request_;
  std::string id_, model_;
  int input_tokens_;
  Open open_ = Open::None;
  bool started_ = false;  // a block was started: the next one takes the next index
  size_t index_ = 0;      // the current (or last) block's index
  size_t call_ = 0;       // the tool call the open tool_use block carries
};

}  // namespace

std::unique_ptr<ProtocolStream> make_anthropic_message_stream(const ChatRequest& request,
                                                              const PreparedPrompt& prompt, std::string id,
                                                              std::string model) {
  return std::make_unique<AnthropicMessageStream>(request, prompt, std::move(id), std::move(model));
}

}  // namespace ninfer::api
