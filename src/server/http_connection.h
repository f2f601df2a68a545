// One client connection: HTTP/1.1 with keep-alive, on a strand of the server's small I/O pool.
// Every read goes through one path (read_more): it parses requests while the connection is idle,
// and while a request generates it watches for the client going away (EOF or reset cancels the
// request at the next engine step). Responses are written whole; streams are written as chunks
// of SSE frames, as fast as the client reads them, while the engine never waits for the socket.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include "server/api_call.h"
#include "server/request_reader.h"
#include "server/server_context.h"

namespace ninfer::server {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(boost::asio::ip::tcp::socket socket, ServerContext& ctx);
  ~HttpConnection();
  void start();

 private:
  using Request = HttpRequest;
  enum class Phase { Reading, Handling, Closing };

  void read_more();
  void on_read(boost::system::error_code ec, size_t n);
  void parse_buffer();
  void handle(Request request);
  void handle_api(const Request& request, api::ApiProtocol protocol, const std::string& endpoint);
  void on_admitted();
  void pump();  // moves the call's new events to the socket

  // Whole responses (and the stream's head and chunks) go through one write queue.
  void send(std::string bytes);
  void write_next();
  void respond(int status, const std::string& content_type, const std::string& body,
               const std::string& endpoint_for_metrics = {});
  void respond_error(int status, api::ApiProtocol protocol, const api::ApiError& error, const std::string& endpoint);
  void response_done();  // the response is queued in full: next request, or close
  void arm_timer(std::chrono::milliseconds after);
  void close();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer timer_;
  ServerContext& ctx_;
  boost::beast::flat_buffer buffer_;
  RequestReader reader_;
  Phase phase_ = Phase::Reading;
  bool reading_ = false, writing_ = false, keep_alive_ = true, peer_gone_ = false;
  std::string pending_out_, writing_out_;
  std::shared_ptr<ApiCall> call_;
  bool call_streaming_ = false, stream_head_sent_ = false, response_queued_ = false;
  std::shared_ptr<std::atomic<bool>> pump_scheduled_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace ninfer::server
