// Drives one protocol's stream from the engine's published text: a chat turn's text goes through
// the Qwen ChatStreamParser (reasoning, content and tool-call deltas), a plain completion's text is
// content as it is. Protocol-neutral; the server calls it with each StreamEvent and frames the
// SseEvents it returns.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "api/api_exchange.h"
#include "models/qwen3/frontend/chat_stream_parser.h"

namespace ninfer::api {

class ResponseStreamer {
 public:
  // `options.tool_call_id_seed` (else `options.sampling.seed`) must be set: tool-call ids are a
  // function of it, as in the final result.
  ResponseStreamer(std::unique_ptr<ProtocolStream> stream, const PreparedPrompt& prompt, const RequestOptions& options);

  void open(std::vector<SseEvent>& out);
  void text(std::string_view piece, std::vector<SseEvent>& out);
  // The request finished: the held-back text, then the protocol's closing events (or its error
  // events when the result is an error or was cancelled; `request` locates that error).
  void done(const GenerationResult& result, const ChatRequest& request, std::vector<SseEvent>& out);
  // A failure outside the result (shutdown, an internal fault).
  void fail(const ApiError& error, std::vector<SseEvent>& out);

 private:
  void emit(const std::vector<qwen3::ChatDelta>& deltas, std::vector<SseEvent>& out);

  std::unique_ptr<ProtocolStream> stream_;
  std::optional<qwen3::ChatStreamParser> parser_;  // chat prompts only
};

}  // namespace ninfer::api
