// What `ninfer serve` is configured with: the address, the model and its engine, the served model
// name, the API key, and the limits every connection gets.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "ninfer/engine.h"

namespace ninfer::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;
  EngineOptions engine;
  std::string served_model_name;  // "" = the model's folder or file name ("ninfer-default" for the generated one)
  std::string api_key;            // "" = no authentication
  std::string chat_template;      // bundled name or file; "" = the model's own
  bool allow_request_template = false;  // accept a request's own `chat_template` (off: clients are untrusted)
  int default_max_tokens = 1024;        // chat requests that give no max_tokens

  int io_threads = 2;         // threads that run every connection (event-driven, not one per connection)
  int admission_threads = 2;  // threads that map, render and compile requests before they enter the engine
  size_t max_header_bytes = 16 << 10;
  size_t max_body_bytes = 8 << 20;
  size_t max_connections = 4096;
  std::chrono::milliseconds request_read_timeout{30'000};  // a request's head and body, from its first byte (408)
  std::chrono::milliseconds keep_alive_timeout{300'000};   // an idle connection between requests
  std::chrono::milliseconds write_stall_timeout{60'000};   // a client that stops reading its response
  std::chrono::milliseconds drain_timeout{30'000};         // SIGTERM: how long requests in flight may finish
  size_t max_buffered_stream_bytes = 1 << 20;  // per stream: beyond this, a slow client waits (the engine does not)
  bool log_requests = true;                    // one JSON line per finished request on stderr
};

}  // namespace ninfer::server
