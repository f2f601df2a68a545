#include "api/response_streamer.h"

#include "api/engine_errors.h"

namespace ninfer::api {

ResponseStreamer::ResponseStreamer(std::unique_ptr<ProtocolStream> stream, const PreparedPrompt& prompt, uint64_t seed)
    : stream_(std::move(stream)) {
  if (prompt.chat)
    parser_.emplace(prompt.start, prompt.tools, prompt.tool_format, seed, prompt.continuation.value_or(""));
}

void ResponseStreamer::open(std::vector<SseEvent>& out) { stream_->open(out); }

void ResponseStreamer::emit(const std::vector<qwen3::ChatDelta>& deltas, std::vector<SseEvent>& out) {
  for (const qwen3::ChatDelta& d : deltas) stream_->delta(d, out);
}

void ResponseStreamer::text(std::string_view piece, std::vector<SseEvent>& out) {
  if (piece.empty()) return;
  if (parser_) {
    emit(parser_->feed(piece), out);
    return;
  }
  qwen3::ChatDelta d;
  d.text = std::string(piece);
  stream_->delta(d, out);
}

void ResponseStreamer::done(const GenerationResult& result, const ChatRequest& request, std::vector<SseEvent>& out) {
  if (parser_) emit(parser_->finish(), out);
  if (result.finish_reason == FinishReason::Error) return stream_->fail(from_result_error(result, request), out);
  if (result.finish_reason == FinishReason::Cancelled)
    return stream_->fail(ApiError(499, "invalid_request_error", "The request was cancelled before it finished.", "",
                                  "cancelled"),
                         out);
  stream_->finish(result, out);
}

void ResponseStreamer::fail(const ApiError& error, std::vector<SseEvent>& out) { stream_->fail(error, out); }

}  // namespace ninfer::api
