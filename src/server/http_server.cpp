#include "server/http_server.h"

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <iostream>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "api/random_id.h"
#include "jinja/chat_template.h"
#include "server/http_connection.h"

namespace ninfer::server {
namespace {

namespace net = boost::asio;
using net::ip::tcp;
using boost::system::error_code;

void log_event(ServerContext& ctx, const api::Json& line) {
  std::lock_guard<std::mutex> lock(ctx.log_mu);
  std::cerr << line.dump(-1, ' ', false, api::Json::error_handler_t::replace) << std::endl;
}

std::string default_served_name(const std::string& model) {
  if (model.empty()) return "ninfer-default";
  std::filesystem::path p(model);
  while (!p.empty() && p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

api::ChatRequestDefaults template_defaults(const ServerOptions& o, bool has_tools, const std::string& served) {
  api::ChatRequestDefaults d;
  d.allow_request_template = o.allow_request_template;
  d.max_tokens = o.default_max_tokens;
  d.served_model = served;
  if (!o.chat_template.empty()) {
    const jinja::ChatTemplateSource t = jinja::load_chat_template(o.chat_template, has_tools);
    d.template_source = t.source;
    d.bos_token = t.bos_token;
    d.eos_token = t.eos_token;
  }
  return d;
}

}  // namespace

struct HttpServer::Impl {
  Impl(ServerOptions o, Engine* external)
      : ctx(std::move(o)), io(ctx.options.io_threads), acceptor(io), signals(io), drain_timer(io), external(external) {}

  ServerContext ctx;
  net::io_context io;
  tcp::acceptor acceptor;
  net::signal_set signals;
  net::steady_timer drain_timer;
  Engine* external;
  std::unique_ptr<Engine> owned;
  std::thread loader;
  std::vector<std::thread> threads;
  std::atomic<bool> load_failed{false};
  bool cancelled_rest = false, stopped = false;
  Clock::time_point drain_deadline{};

  void accept() {
    // Each connection gets its own strand: its handlers never run concurrently.
    acceptor.async_accept(net::make_strand(io), [this](error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) {
        if (size_t(ctx.metrics.open_connections.load()) >= ctx.options.max_connections) {
          error_code ignored;
          socket.close(ignored);  // over the limit: refuse rather than degrade everyone
        } else {
          std::make_shared<HttpConnection>(std::move(socket), ctx)->start();
        }
      }
      accept();
    });
  }

  // On the I/O threads (through the acceptor's executor).
  void begin_drain() {
    if (ctx.draining.exchange(true)) return;
    error_code ec;
    acceptor.close(ec);
    drain_deadline = Clock::now() + ctx.options.drain_timeout;
    check_drained();
  }

  void check_drained() {
    size_t in_flight;
    {
      std::lock_guard<std::mutex> lock(ctx.calls_mu);
      in_flight = ctx.calls.size();
    }
    if (in_flight == 0) {
      log_event(ctx, {{"event", "drained"}});
      return io.stop();
    }
    if (!cancelled_rest && Clock::now() >= drain_deadline) {
      // Past the grace period: cancel what is left; each ends at its next step with its final event.
      cancelled_rest = true;
      std::lock_guard<std::mutex> lock(ctx.calls_mu);
      for (const auto& call : ctx.calls) call->handle().cancel();
      drain_deadline = Clock::now() + std::chrono::seconds(5);
    } else if (cancelled_rest && Clock::now() >= drain_deadline) {
      return io.stop();
    }
    drain_timer.expires_after(std::chrono::milliseconds(20));
    drain_timer.async_wait([this](error_code ec) {
      if (!ec) check_drained();
    });
  }
};

HttpServer::HttpServer(ServerOptions options, Engine* engine) : impl_(std::make_unique<Impl>(std::move(options), engine)) {}

HttpServer::~HttpServer() {
  if (!impl_->stopped) {
    impl_->io.stop();
    wait();
  }
}

int HttpServer::start() {
  Impl& s = *impl_;
  const ServerOptions& o = s.ctx.options;
  s.ctx.served_model = o.served_model_name.empty() ? default_served_name(o.engine.model) : o.served_model_name;
  s.ctx.started_at = api::unix_seconds_now();
  s.ctx.defaults = template_defaults(o, false, s.ctx.served_model);
  s.ctx.tools_defaults = template_defaults(o, true, s.ctx.served_model);

  const tcp::endpoint endpoint(net::ip::make_address(o.host), static_cast<unsigned short>(o.port));
  s.acceptor.open(endpoint.protocol());
  s.acceptor.set_option(net::socket_base::reuse_address(true));
  s.acceptor.bind(endpoint);
  s.acceptor.listen(net::socket_base::max_listen_connections);
  const int port = s.acceptor.local_endpoint().port();
  s.accept();
  log_event(s.ctx, {{"event", "listening"}, {"host", o.host}, {"port", port}});

  if (s.external) {
    s.ctx.engine.store(s.external);
  } else {
    // The model loads while the server already answers /health (503) and /metrics.
    s.loader = std::thread([&s] {
      try {
        s.owned = std::make_unique<Engine>(s.ctx.options.engine);
        s.ctx.engine.store(s.owned.get());
        log_event(s.ctx, {{"event", "ready"}, {"model", s.ctx.served_model}, {"description", s.owned->model_description()}});
      } catch (const std::exception& e) {
        log_event(s.ctx, {{"event", "load_failed"}, {"error", e.what()}});
        s.load_failed = true;
        net::post(s.io, [&s] { s.io.stop(); });
      }
    });
  }
  for (int i = 0; i < o.io_threads; ++i) s.threads.emplace_back([&s] { s.io.run(); });
  return port;
}

void HttpServer::drain_on_signals() {
  Impl& s = *impl_;
  s.signals.add(SIGTERM);
  s.signals.add(SIGINT);
  s.signals.async_wait([&s](error_code ec, int signal) {
    if (ec) return;
    log_event(s.ctx, {{"event", "draining"}, {"signal", signal}});
    s.begin_drain();
  });
}

void HttpServer::drain() {
  Impl& s = *impl_;
  net::post(s.acceptor.get_executor(), [&s] { s.begin_drain(); });
}

int HttpServer::wait() {
  Impl& s = *impl_;
  if (s.stopped) return s.load_failed ? 1 : 0;
  for (std::thread& t : s.threads) t.join();
  s.threads.clear();
  if (s.loader.joinable()) s.loader.join();
  s.ctx.admission.join();
  {
    std::lock_guard<std::mutex> lock(s.ctx.calls_mu);
    s.ctx.calls.clear();
  }
  s.ctx.engine.store(nullptr);
  s.owned.reset();  // stops the worker; callbacks it posts land in the stopped io_context
  s.stopped = true;
  return s.load_failed ? 1 : 0;
}

int run_server(const ServerOptions& options) {
  // Every connection is a descriptor: take the hard limit, not the shell's soft default.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  HttpServer server(options);
  try {
    server.start();
  } catch (const std::exception& e) {
    std::cerr << "ninfer serve: cannot start on " << options.host << ":" << options.port << ": " << e.what()
              << std::endl;
    return 1;
  }
  server.drain_on_signals();
  return server.wait();
}

}  // namespace ninfer::server
