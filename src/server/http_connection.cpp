#include "server/http_connection.h"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/status.hpp>

#include "server/api_key.h"
#include "server/routes.h"

namespace ninfer::server {

namespace net = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

namespace {

constexpr size_t kReadChunk = 16 << 10;
// While a request generates, bytes of the client's next (pipelined) requests wait in the buffer up
// to this much; beyond it the connection stops reading until the response is done.
constexpr size_t kMaxPipelinedBytes = 64 << 10;

std::string status_line(int status) {
  std::string reason(http::obsolete_reason(static_cast<http::status>(status)));
  if (status == 499) reason = "Client Closed Request";
  if (reason.empty() || reason == "<unknown-status>") reason = "Status";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
}

std::string chunk(const std::string& data) {
  char size[20];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

}  // namespace

HttpConnection::HttpConnection(net::ip::tcp::socket socket, ServerContext& ctx)
    : socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      ctx_(ctx),
      reader_(ctx.options.max_header_bytes, ctx.options.max_body_bytes) {
  ctx_.metrics.open_connections++;
}

HttpConnection::~HttpConnection() {
  ctx_.metrics.open_connections--;
  if (call_ && call_->handle().valid() && !call_->finished()) ApiCall::detach(call_);
}

void HttpConnection::start() {
  net::post(socket_.get_executor(), [self = shared_from_this()] {
    error_code ec;
    self->socket_.set_option(net::ip::tcp::no_delay(true), ec);
    self->arm_timer(self->ctx_.options.keep_alive_timeout);
    self->read_more();
  });
}

void HttpConnection::arm_timer(std::chrono::milliseconds after) {
  timer_.expires_after(after);
  timer_.async_wait([weak = weak_from_this()](error_code ec) {
    if (ec) return;  // re-armed or cancelled
    auto self = weak.lock();
    if (!self) return;
    // A request that does not arrive in full gets a 408; an idle keep-alive, or a client that
    // stopped reading, is closed.
    if (self->phase_ == Phase::Reading && self->reader_.started() && !self->writing_) {
      self->keep_alive_ = false;
      self->phase_ = Phase::Handling;
      return self->respond_error(408, api::ApiProtocol::OpenAIChat,
                                 api::ApiError(408, "invalid_request_error",
                                               "The request did not arrive in full within " +
                                                   std::to_string(self->ctx_.options.request_read_timeout.count()) +
                                                   " ms.",
                                               "", "request_timeout"),
                                 "other");
    }
    if (self->call_) self->call_->cancel_for_disconnect();
    self->close();
  });
}

void HttpConnection::close() {
  if (phase_ == Phase::Closing) return;
  phase_ = Phase::Closing;
  error_code ec;
  timer_.cancel();
  socket_.shutdown(net::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
}

void HttpConnection::read_more() {
  if (reading_ || phase_ == Phase::Closing || peer_gone_) return;
  if (phase_ == Phase::Handling && buffer_.size() >= kMaxPipelinedBytes) return;
  reading_ = true;
  socket_.async_read_some(buffer_.prepare(kReadChunk),
                          [self = shared_from_this()](error_code ec, size_t n) { self->on_read(ec, n); });
}

void HttpConnection::on_read(error_code ec, size_t n) {
  reading_ = false;
  if (ec) {
    // EOF or reset: a request in flight is cancelled; an idle connection just closes.
    peer_gone_ = true;
    if (call_) {
      call_->cancel_for_disconnect();
      return;  // the call's final event ends it (its bytes go nowhere)
    }
    if (!writing_) close();
    return;
  }
  buffer_.commit(n);
  if (phase_ == Phase::Reading) {
    parse_buffer();
  } else {
    read_more();  // keep watching for the client going away
  }
}

void HttpConnection::parse_buffer() {
  if (phase_ != Phase::Reading) return;
  if (buffer_.size() == 0) return read_more();
  if (!reader_.started()) arm_timer(ctx_.options.request_read_timeout);  // from the request's first byte
  RequestReader::Status status;
  const auto data = buffer_.data();
  const size_t used = reader_.feed(std::string_view(static_cast<const char*>(data.data()), data.size()), status);
  buffer_.consume(used);
  switch (status) {
    case RequestReader::Status::NeedMore: return read_more();
    case RequestReader::Status::Failed:
      keep_alive_ = false;
      phase_ = Phase::Handling;
      return respond_error(reader_.error().status, api::ApiProtocol::OpenAIChat, reader_.error(), "other");
    case RequestReader::Status::Done: return handle(reader_.take());
  }
}

void HttpConnection::handle(Request request) {
  phase_ = Phase::Handling;
  timer_.cancel();
  keep_alive_ = request.keep_alive() && !ctx_.draining;
  const std::string path = request_path(request.target());
  const http::verb method = request.method();

  if (const auto protocol = api_route(path)) {
    if (method != http::verb::post) return respond_error(405, *protocol, method_not_allowed(path), path);
    return handle_api(request, *protocol, path);
  }

  if (path == "/health" && method == http::verb::get) {
    if (ctx_.draining) return respond(503, "application/json", R"({"status":"draining"})", path);
    if (!ctx_.engine.load()) return respond(503, "application/json", R"({"status":"loading"})", path);
    return respond(200, "application/json", R"({"status":"ok"})", path);
  }
  if (path == "/metrics" && method == http::verb::get) {
    Engine* engine = ctx_.engine.load();
    const EngineStats stats = engine ? engine->stats() : EngineStats{};
    // Counted before rendering, so that a scrape sees itself.
    ctx_.metrics.count_request(path, 200);
    return respond(200, "text/plain; version=0.0.4; charset=utf-8", ctx_.metrics.render(engine ? &stats : nullptr));
  }
  if (path == "/v1/models" && method == http::verb::get) {
    if (!ctx_.options.api_key.empty() &&
        !api_key_matches(ctx_.options.api_key, request[http::field::authorization], "", false))
      return respond_error(401, api::ApiProtocol::OpenAIChat,
                           api::ApiError(401, "invalid_request_error", "Missing or invalid API key.", "", "invalid_api_key"),
                           path);
    api::Json model = {{"id", ctx_.served_model},
                       {"object", "model"},
                       {"created", ctx_.started_at},
                       {"owned_by", "ninfer"},
                       {"max_model_len", ctx_.options.engine.max_context}};
    const api::Json body = {{"object", "list"}, {"data", api::Json::array({model})}};
    return respond(200, "application/json", body.dump(), path);
  }
  // Under /v1/messages an Anthropic client is asking (count_tokens, batches): answer in its shape.
  const api::ApiProtocol shape =
      path.rfind("/v1/messages", 0) == 0 ? api::ApiProtocol::AnthropicMessages : api::ApiProtocol::OpenAIChat;
  respond_error(404, shape, unknown_endpoint(request.method_string(), path), "other");
}

void HttpConnection::handle_api(const Request& request, api::ApiProtocol protocol, const std::string& endpoint) {
  if (!ctx_.options.api_key.empty()) {
    const bool anthropic = protocol == api::ApiProtocol::AnthropicMessages;
    if (!api_key_matches(ctx_.options.api_key, request[http::field::authorization], request["x-api-key"], anthropic)) {
      const std::string how = anthropic ? "the x-api-key header" : "an 'Authorization: Bearer' header";
      return respond_error(401, protocol,
                           api::ApiError(401, "invalid_request_error",
                                         "Missing or invalid API key: send the server's key in " + how + ".", "",
                                         "invalid_api_key"),
                           endpoint);
    }
  }
  call_ = std::make_shared<ApiCall>(ctx_, protocol, endpoint, request.body(), Clock::now());
  {
    std::lock_guard<std::mutex> lock(ctx_.calls_mu);
    ctx_.calls.insert(call_);
  }
  read_more();  // watch for the client going away while the request is mapped and runs
  net::post(ctx_.admission, [self = shared_from_this(), call = call_] {
    call->admit();
    net::post(self->socket_.get_executor(), [self] { self->on_admitted(); });
  });
}

void HttpConnection::on_admitted() {
  if (call_->error()) {
    const int status = call_->error()->status;
    std::string body = call_->error_body();
    {
      std::lock_guard<std::mutex> lock(ctx_.calls_mu);
      ctx_.calls.erase(call_);
    }
    call_.reset();
    return respond(status, "application/json", body);
  }
  call_streaming_ = call_->streaming();
  if (peer_gone_) call_->cancel_for_disconnect();
  std::weak_ptr<HttpConnection> weak = weak_from_this();
  auto executor = socket_.get_executor();
  auto scheduled = pump_scheduled_;
  call_->handle().set_notify([weak, executor, scheduled] {
    // On the engine's worker: only schedule, and only once until the connection has pumped.
    if (scheduled->exchange(true)) return;
    net::post(executor, [weak, scheduled] {
      scheduled->store(false);
      if (auto self = weak.lock()) self->pump();
    });
  });
}

void HttpConnection::pump() {
  if (!call_ || response_queued_) return;
  // A slow client: leave the events queued in the request (the engine does not wait) until the
  // socket has taken what is buffered.
  if (pending_out_.size() >= ctx_.options.max_buffered_stream_bytes) return;
  std::string frames = call_->take_events();
  if (call_streaming_ && !peer_gone_) {
    if (!stream_head_sent_) {
      stream_head_sent_ = true;
      send(status_line(200) +
           "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n"
           "Transfer-Encoding: chunked\r\nConnection: " +
           std::string(keep_alive_ ? "keep-alive" : "close") + "\r\n\r\n");
    }
    if (!frames.empty()) send(chunk(frames));
  }
  if (!call_->finished()) return;
  std::shared_ptr<ApiCall> call = std::move(call_);
  {
    std::lock_guard<std::mutex> lock(ctx_.calls_mu);
    ctx_.calls.erase(call);
  }
  if (peer_gone_) return close();
  if (call_streaming_) {
    send("0\r\n\r\n");
    response_queued_ = true;
    return response_done();
  }
  respond(call->final_status(), "application/json", call->final_body());
}

void HttpConnection::send(std::string bytes) {
  pending_out_ += bytes;
  if (!writing_) write_next();
}

void HttpConnection::write_next() {
  if (pending_out_.empty() || phase_ == Phase::Closing) {
    writing_ = false;
    return;
  }
  writing_ = true;
  writing_out_.clear();
  writing_out_.swap(pending_out_);
  arm_timer(ctx_.options.write_stall_timeout);
  net::async_write(socket_, net::buffer(writing_out_), [self = shared_from_this()](error_code ec, size_t) {
    self->writing_ = false;
    if (ec) {
      self->peer_gone_ = true;
      if (self->call_) self->call_->cancel_for_disconnect();
      return self->close();
    }
    if (!self->pending_out_.empty()) return self->write_next();
    self->timer_.cancel();
    if (self->call_) return self->pump();  // the client took what was buffered: more may be waiting
    self->response_done();
  });
}

void HttpConnection::respond(int status, const std::string& content_type, const std::string& body,
                             const std::string& endpoint_for_metrics) {
  if (!endpoint_for_metrics.empty()) ctx_.metrics.count_request(endpoint_for_metrics, status);
  std::string head = status_line(status);
  head += "Content-Type: " + content_type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  if (status == 401) head += "WWW-Authenticate: Bearer\r\n";
  head += keep_alive_ ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  response_queued_ = true;
  send(head + body);
  response_done();
}

void HttpConnection::respond_error(int status, api::ApiProtocol protocol, const api::ApiError& error,
                                   const std::string& endpoint) {
  // Replace, never throw: a message that quotes the client's bytes must not end the connection's strand.
  respond(status, "application/json",
          api::api_error_body(protocol, error).dump(-1, ' ', false, api::Json::error_handler_t::replace), endpoint);
}

void HttpConnection::response_done() {
  if (writing_ || !pending_out_.empty()) return;  // the write completion calls back here
  response_queued_ = false;
  stream_head_sent_ = false;
  if (!keep_alive_ || peer_gone_ || ctx_.draining) return close();
  phase_ = Phase::Reading;
  arm_timer(ctx_.options.keep_alive_timeout);
  parse_buffer();
}

}  // namespace ninfer::server
