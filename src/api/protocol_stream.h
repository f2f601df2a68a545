// One protocol's streamed response as Server-Sent Events: the events that open the stream, those
// that carry each delta of the chat turn, and those that close it (with the result, its usage and
// the constraint report) or report a failure. The server only frames and writes them.
#pragma once

#include <string>
#include <vector>

#include "api/chat_request.h"
#include "api/request_field.h"
#include "models/qwen3/frontend/chat_stream_parser.h"
#include "ninfer/engine.h"

namespace ninfer::api {

// `event:` line (empty: none, as OpenAI Chat writes) and the `data:` payload (JSON text, or
// "[DONE]"). The payload never holds a newline (JSON dumped compactly).
struct SseEvent {
  std::string event;
  std::string data;
};

class ProtocolStream {
 public:
  virtual ~ProtocolStream() = default;
  // The events before any output (OpenAI Chat: the role chunk; Responses: response.created, ...).
  virtual void open(std::vector<SseEvent>& out) = 0;
  // One certain piece of the turn (a plain completion gets Content deltas only).
  virtual void delta(const qwen3::ChatDelta& delta, std::vector<SseEvent>& out) = 0;
  // The request finished (after the last delta): finish reason, usage, constraint report, the end
  // marker. A result that ended in an error is reported through fail() by the caller instead.
  virtual void finish(const GenerationResult& result, std::vector<SseEvent>& out) = 0;
  // The request failed after the stream opened (generation error, cancel, shutdown).
  virtual void fail(const ApiError& error, std::vector<SseEvent>& out) = 0;
};

}  // namespace ninfer::api
