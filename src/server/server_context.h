// What every connection of one server shares: its options, metrics and request defaults, the
// Engine (null until the model has loaded), the admission pool, and the drain state.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <boost/asio/thread_pool.hpp>

#include "api/chat_request.h"
#include "ninfer/engine.h"
#include "server/metrics.h"
#include "server/server_options.h"

namespace ninfer::server {

class ApiCall;

struct ServerContext {
  explicit ServerContext(ServerOptions o) : options(std::move(o)), admission(size_t(options.admission_threads)) {}

  ServerOptions options;
  ServerMetrics metrics;
  std::string served_model;  // the name /v1/models lists and requests must use
  int64_t started_at = 0;    // Unix seconds
  // The chat template with and without tools (they differ only for a list-form template).
  api::ChatRequestDefaults defaults, tools_defaults;

  std::atomic<Engine*> engine{nullptr};  // set once the model has loaded
  std::atomic<bool> draining{false};
  boost::asio::thread_pool admission;  // map + prepare + submit: never on an I/O thread

  // Requests in flight (admitted, not yet answered): the drain waits for them and cancels the rest.
  std::mutex calls_mu;
  std::set<std::shared_ptr<ApiCall>> calls;

  std::mutex log_mu;  // one request-log line at a time
};

}  // namespace ninfer::server
