#include "cli/bench_server_command.h"

#include <chrono>
#include <iostream>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

#include "api/api_exchange.h"
#include "cli/latency_stats.h"
#include "cli/option_checks.h"
#include "ninfer/engine.h"
#include "server/http_server.h"

namespace ninfer::cli {
namespace {

namespace net = boost::asio;
using net::ip::tcp;
using Clock = std::chrono::steady_clock;
using OJson = nlohmann::ordered_json;

struct BenchServerArgs {
  std::string model;
  int tokens = 64;
  int repeats = 10;
  int threads = 0;
  std::vector<int> concurrency{1, 16, 64};
};

// One streamed request's timing: from the request leaving the client to its first and last token.
struct StreamTiming {
  double ttft_ms = 0;
  double per_token_ms = 0;  // (last - first) / (tokens - 1)
  int tokens = 0;
  double total_ms = 0;
};

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// A raw-prompt completion: every step publishes one token, so both paths time the same events
// (a chat turn's parser may hold text back, which is the protocol's, not the wire's).
std::string request_body(int tokens, uint64_t seed) {
  OJson body = {{"prompt", "Tell me a long story."},
                {"max_tokens", tokens},
                {"ignore_eos", true},
                {"seed", seed},
                {"stream", true},
                {"stream_options", {{"include_usage", true}}}};
  return body.dump();
}

StreamTiming in_process(Engine& engine, int tokens, uint64_t seed) {
  const Clock::time_point t0 = Clock::now();
  std::unique_ptr<api::ApiExchange> exchange =
      api::map_api_request(api::ApiProtocol::OpenAICompletions, request_body(tokens, seed), api::ChatRequestDefaults{});
  PreparedPrompt prepared = engine.prepare(exchange->request().prompt);
  RequestHandle handle = engine.submit(prepared, exchange->request().options);
  Clock::time_point first{}, last{};
  StreamTiming t;
  while (auto e = handle.next()) {
    if (!e->tokens.empty()) {
      const Clock::time_point now = Clock::now();
      if (t.tokens == 0) first = now;
      last = now;
      t.tokens += int(e->tokens.size());
    }
    if (e->done) break;
  }
  t.ttft_ms = ms(first - t0);
  t.per_token_ms = t.tokens > 1 ? ms(last - first) / (t.tokens - 1) : 0;
  t.total_ms = ms(Clock::now() - t0);
  return t;
}

// A minimal HTTP/1.1 client for one chunked SSE response: times the arrival of the text chunks.
StreamTiming over_http(int port, int tokens, uint64_t seed) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
  socket.set_option(tcp::no_delay(true));
  const std::string body = request_body(tokens, seed);
  const std::string request = "POST /v1/completions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                              "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  const Clock::time_point t0 = Clock::now();
  net::write(socket, net::buffer(request));
  std::string in;
  size_t scan = 0;
  bool head_done = false;
  Clock::time_point first{}, last{};
  StreamTiming t;
  int text_chunks = 0;
  char buf[16384];
  for (;;) {
    boost::system::error_code ec;
    const size_t n = socket.read_some(net::buffer(buf), ec);
    const Clock::time_point now = Clock::now();
    if (n > 0) in.append(buf, n);
    if (!head_done) {
      const size_t end = in.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (ec) throw std::runtime_error("bench server: connection closed before the response head");
        continue;
      }
      if (in.compare(0, 12, "HTTP/1.1 200") != 0) throw std::runtime_error("bench server: " + in.substr(0, in.find("\r\n")));
      head_done = true;
      scan = end + 4;
    }
    // SSE frames (the chunk-size lines never contain "data: {").
    for (size_t at; (at = in.find("data: ", scan)) != std::string::npos;) {
      const size_t end = in.find("\n\n", at);
      if (end == std::string::npos) break;
      const std::string data = in.substr(at + 6, end - at - 6);
      scan = end + 2;
      if (data == "[DONE]") continue;
      const auto j = nlohmann::json::parse(data, nullptr, false);
      if (j.is_discarded()) continue;
      if (j.contains("usage") && j["usage"].is_object()) t.tokens = j["usage"].value("completion_tokens", 0);
      if (j.contains("choices") && !j["choices"].empty() && j["choices"][0]["finish_reason"].is_null()) {
        if (text_chunks++ == 0) first = now;
        last = now;
      }
    }
    if (ec) break;  // the server closes after the last chunk (Connection: close)
  }
  t.ttft_ms = ms(first - t0);
  t.per_token_ms = t.tokens > 1 ? ms(last - first) / (t.tokens - 1) : 0;
  t.total_ms = ms(Clock::now() - t0);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// `streams` clients, each with one request in flight at a time, for `per_client` requests.
OJson throughput(int streams, int tokens, const std::function<StreamTiming(uint64_t)>& run) {
  std::vector<std::thread> clients;
  std::vector<int> produced(size_t(streams), 0);
  const Clock::time_point t0 = Clock::now();
  for (int c = 0; c < streams; ++c)
    clients.emplace_back([&, c] { produced[size_t(c)] = run(uint64_t(1000 + c)).tokens; });
  for (std::thread& t : clients) t.join();
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  int total = 0;
  for (int p : produced) total += p;
  return {{"streams", streams}, {"tokens", total}, {"wall_s", wall_s}, {"tokens_per_s", total / wall_s},
          {"complete", total == streams * tokens}};
}

int run_bench_server(const BenchServerArgs& a) {
  EngineOptions eo;
  eo.model = a.model;
  eo.threads = a.threads;
  int max_streams = 1;
  for (int c : a.concurrency) max_streams = std::max(max_streams, c);
  eo.max_batch_rows = std::min(max_streams, 64);
  Engine engine(eo);

  server::ServerOptions so;
  so.port = 0;
  so.log_requests = false;
  server::HttpServer http(so, &engine);
  const int port = http.start();

  // Warm-up: both paths once (first-use allocations, the connection path).
  in_process(engine, a.tokens, 1);
  over_http(port, a.tokens, 1);

  std::vector<double> in_ttft, http_ttft, in_tok, http_tok, in_total, http_total;
  for (int r = 0; r < a.repeats; ++r) {  // alternating, so that drift on a shared machine hits both
    const StreamTiming i = in_process(engine, a.tokens, uint64_t(10 + r));
    const StreamTiming h = over_http(port, a.tokens, uint64_t(10 + r));
    in_ttft.push_back(i.ttft_ms), in_tok.push_back(i.per_token_ms), in_total.push_back(i.total_ms);
    http_ttft.push_back(h.ttft_ms), http_tok.push_back(h.per_token_ms), http_total.push_back(h.total_ms);
  }
  OJson out;
  out["benchmark"] = "server";
  out["model"] = engine.model_description();
  out["tokens_per_request"] = a.tokens;
  out["repeats"] = a.repeats;
  out["in_process"] = {{"ttft_ms", summarize(in_ttft)}, {"per_token_ms", summarize(in_tok)}, {"total_ms", summarize(in_total)}};
  out["http"] = {{"ttft_ms", summarize(http_ttft)}, {"per_token_ms", summarize(http_tok)}, {"total_ms", summarize(http_total)}};
  out["added"] = {{"ttft_ms_p50", median(http_ttft) - median(in_ttft)},
                  {"per_token_us_p50", 1000 * (median(http_tok) - median(in_tok))}};
  OJson tp = OJson::array();
  for (int c : a.concurrency) {
    OJson row = {{"streams", c}};
    row["in_process"] = throughput(c, a.tokens, [&](uint64_t seed) { return in_process(engine, a.tokens, seed); });
    row["http"] = throughput(c, a.tokens, [&](uint64_t seed) { return over_http(port, a.tokens, seed); });
    row["http_over_in_process"] = row["http"]["tokens_per_s"].get<double>() / row["in_process"]["tokens_per_s"].get<double>();
    tp.push_back(row);
  }
  out["throughput"] = tp;
  http.drain();
  http.wait();
  std::cout << out.dump(2) << std::endl;
  return 0;
}

}  // namespace

void register_bench_server_command(CLI::App& bench, int& status) {
  auto a = std::make_shared<BenchServerArgs>();
  CLI::App* cmd = bench.add_subcommand("server", "The HTTP server's added latency over the Engine API, and streaming throughput");
  cmd->add_option("--model", a->model, "HF model folder or GGUF file (default: the generated tiny model)");
  cmd->add_option("--tokens", a->tokens, "tokens per request")->check(integer_option<int>(2, 100000));
  cmd->add_option("--repeats", a->repeats, "alternating in-process / HTTP rounds")->check(integer_option<int>(1, 1000));
  cmd->add_option("--threads", a->threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
  cmd->add_option("--concurrency", a->concurrency, "concurrent streams for the throughput rows")->delimiter(',');
  cmd->callback([a, &status] {
    try {
      status = run_bench_server(*a);
    } catch (const std::exception& e) {
      std::cerr << "bench server: " << e.what() << std::endl;
      status = 1;
    }
  });
}

}  // namespace ninfer::cli
