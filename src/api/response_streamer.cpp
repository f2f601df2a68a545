#include "api/response_streamer.h"

#include "api/engine_errors.h"
#include "models/qwen3/frontend/output_language.h"

namespace ninfer::api {

namespace {

// Calls stream as they are written when the chat output grammar shapes them (the engine decodes
// under it, with tools active: DESIGN.md section 6); otherwise a call is published whole once it
// closes and parses, which is exact for any text.
qwen3::CallStreaming call_streaming(const PreparedPrompt& prompt, const RequestOptions& options) {
  if (prompt.tools.empty()) return qwen3::CallStreaming::Buffered;
  qwen3::OutputLanguage lang;
  lang.choice = options.tool_choice.value_or(ToolChoice{});  // absent with tools: Auto, Basic
  if (lang.choice.mode == ToolChoiceMode::None) return qwen3::CallStreaming::Buffered;
  lang.start = prompt.start;
  lang.body = options.constraint ? &*options.constraint : nullptr;
  lang.tools = &prompt.tools;
  lang.format = prompt.tool_format;
  const bool forced_close = options.thinking_token_budget.has_value() && prompt.start != OutputStart::Body;
  return qwen3::needs_grammar(lang, forced_close) ? qwen3::CallStreaming::Progressive : qwen3::CallStreaming::Buffered;
}

}  // namespace

ResponseStreamer::ResponseStreamer(std::unique_ptr<ProtocolStream> stream, const PreparedPrompt& prompt,
                                   const RequestOptions& options)
    : stream_(std::move(stream)) {
  if (prompt.chat)
    parser_.emplace(prompt.start, prompt.tools, prompt.tool_format,
                    options.tool_call_id_seed.value_or(options.sampling.seed.value_or(0)),
                    prompt.continuation.value_or(""), call_streaming(prompt, options));
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
