// One generation request on a connection, from body to response: map (src/api) -> prepare and
// submit (Engine, on the admission pool) -> the engine's events -> the protocol's final object or
// its SSE stream. The connection owns the socket and calls this on its strand; this owns the
// request's metrics, its log line and its cancel.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/api_exchange.h"
#include "api/response_streamer.h"
#include "ninfer/engine.h"
#include "server/server_context.h"

namespace ninfer::server {

using Clock = std::chrono::steady_clock;

class ApiCall {
 public:
  ApiCall(ServerContext& ctx, api::ApiProtocol protocol, std::string endpoint, std::string body, Clock::time_point arrival);
  ~ApiCall();

  // On the admission pool: maps the body, prepares and submits. Returns false with error() set when
  // the request is rejected.
  bool admit();
  const std::optional<api::ApiError>& error() const { return error_; }
  // The rejection as a whole HTTP response body in the protocol's shape (after admit() failed).
  std::string error_body() const;

  bool streaming() const { return exchange_ && exchange_->request().stream; }
  RequestHandle& handle() { return handle_; }

  // Takes the engine's queued events. Streaming: returns the SSE frames they make (the stream's
  // opening events first). Either way, finished() is true once the final event was taken.
  std::string take_events();
  bool finished() const { return finished_; }
  // Non-streaming, once finished: the status and body of the response.
  int final_status() const { return final_status_; }
  const std::string& final_body() const { return final_body_; }

  // The client went away: stop generating at the next step.
  void cancel_for_disconnect();
  // The connection is gone before the request finished: cancels it, and lets the admission pool
  // take its last events (so that it ends, counts and logs as any other) and drop it from the
  // server's calls.
  static void detach(const std::shared_ptr<ApiCall>& call);

 private:
  void on_result(const GenerationResult& result);
  void log_line(int status, const GenerationResult* result);

  ServerContext& ctx_;
  api::ApiProtocol protocol_;
  std::string endpoint_;
  std::string body_;
  Clock::time_point arrival_;
  std::unique_ptr<api::ApiExchange> exchange_;
  PreparedPrompt prepared_;
  RequestHandle handle_;
  std::optional<api::ApiError> error_;
  std::unique_ptr<api::ResponseStreamer> streamer_;
  bool opened_ = false, finished_ = false, counted_pending_ = false, first_output_ = false;
  bool disconnected_ = false;
  Clock::time_point last_output_{};
  std::optional<double> ttft_s_;
  int final_status_ = 200;
  std::string final_body_;
  std::mutex detached_mu_;  // a detached call's events are taken on the admission pool, one thread at a time
};

// `data: ...\n\n` with the `event:` line when the event has a name.
void append_sse(const api::SseEvent& event, std::string& out);

}  // namespace ninfer::server
