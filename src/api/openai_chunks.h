// The chunks of OpenAI's streams (Chat's chat.completion.chunk, Completions' text_completion): every
// chunk repeats id, object, created and model, and holds one choice (index 0, logprobs null); with
// stream_options.include_usage every chunk carries "usage": null except the usage chunk that ends
// the stream. The last JSON chunk carries the constraint report, then `data: [DONE]`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/openai_chat_response.h"
#include "api/protocol_stream.h"

namespace ninfer::api {

class OpenAIChunks {
 public:
  OpenAIChunks(std::string object, CompletionIds ids, bool include_usage)
      : object_(std::move(object)), ids_(std::move(ids)), include_usage_(include_usage) {}

  // A chunk whose choice holds `member` (Chat: "delta", Completions: "text") and finish_reason
  // (null when empty).
  SseEvent chunk(std::string_view member, Json value, const std::string& finish_reason = {}) const;
  // The end of the stream: the chunk with the finish reason, the usage chunk when asked for, [DONE].
  void finish(std::string_view member, Json value, const std::string& finish_reason, const GenerationResult& result,
              std::vector<SseEvent>& out) const;
  // A failure after the stream opened: OpenAI's error object, then [DONE].
  static void fail(const ApiError& error, std::vector<SseEvent>& out);

 private:
  Json base() const;
  Json chunk_json(std::string_view member, Json value, const std::string& finish_reason) const;

  std::string object_;
  CompletionIds ids_;
  bool include_usage_;
};

}  // namespace ninfer::api
