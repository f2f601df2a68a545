// `ninfer serve`: listens, accepts connections onto a small fixed pool of I/O threads, loads the
// model in the background (GET /health is 503 until it is ready), and drains on request (SIGTERM or
// SIGINT under run_server): it stops accepting, lets the requests in flight finish for up to
// drain_timeout, cancels what is left, and stops.
#pragma once

#include <memory>

#include "server/server_options.h"

namespace ninfer {
class Engine;
}

namespace ninfer::server {

class HttpServer {
 public:
  // `engine`: an Engine the caller owns and keeps alive (benchmarks); null = the server loads
  // options.engine itself, in the background.
  explicit HttpServer(ServerOptions options, Engine* engine = nullptr);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, starts the I/O threads and the model load; returns the bound port. Throws
  // std::runtime_error when the address cannot be bound or the chat template cannot be loaded.
  int start();
  // Drains on SIGTERM and SIGINT.
  void drain_on_signals();
  // Starts the drain from any thread.
  void drain();
  // Blocks until the server has drained (0) or the model failed to load (1).
  int wait();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// start + drain_on_signals + wait; prints bind and template failures. Returns the exit status.
int run_server(const ServerOptions& options);

}  // namespace ninfer::server
