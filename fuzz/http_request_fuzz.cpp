// libFuzzer target: a connection's bytes -> server::RequestReader -> the server's routes -> the
// protocol mappings. The first 4 input bytes are piece sizes (1 + byte, used in turn); the rest is
// what the client sends, delivered in pieces of those sizes and parsed from a growing buffer the
// way HttpConnection::parse_buffer does (pipelined requests, keep-alive, close after a failure).
// The limits are small (2 KiB head, 4 KiB body) so that 431 and 413 are reached by short inputs.
//
// Checks, each a crash when it fails:
// - feed() never uses more bytes than it was given; a failure is 400, 413 or 431 with a message
//   and an OpenAI error body (the server answers reader failures in that shape), and it stays
//   failed; a completed request's body is within the limit.
// - the same bytes delivered in one piece give the same requests and the same final state.
// - every request is routed with src/server/routes.h: an API path with another method than POST
//   is a 405 and an unknown path a 404, each with a well-formed error body that dumps as UTF-8
//   JSON; a POST to an API path goes through api::map_api_request with the checks of
//   fuzz/api_fuzz_checks.h (maps, or a 4xx ApiError in the protocol's shape).
//
// Build: CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DNINFER_FUZZ=ON -DNINFER_BUILD_TESTS=OFF
//        -DNINFER_BUILD_BENCH=OFF && ninja -C build-fuzz http_request_fuzz
// Run:   build-fuzz/http_request_fuzz WORK_DIR fuzz/corpus/http_request -dict=fuzz/api_mapping.dict
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api_fuzz_checks.h"
#include "server/request_reader.h"
#include "server/routes.h"

namespace {

using ninfer::fuzz::fail;
using ninfer::server::RequestReader;
namespace http = boost::beast::http;

constexpr size_t kMaxHeaderBytes = 2 << 10, kMaxBodyBytes = 4 << 10;
constexpr size_t kSizeBytes = 4;

// What a connection saw: each request read, and how reading ended.
struct Transcript {
  std::vector<std::string> requests;  // method, target and body of each
  int final_status = 0;               // the reader's error status, 0 when the bytes just ran out
  bool operator==(const Transcript&) const = default;
};

void route(const ninfer::server::HttpRequest& request, std::string_view input) {
  using namespace ninfer;
  const std::string path = server::request_path(request.target());
  if (const auto protocol = server::api_route(path)) {
    if (request.method() != http::verb::post)
      return fuzz::check_client_error(*protocol, server::method_not_allowed(path), 405, 405, input);
    return fuzz::check_mapping(*protocol, request.body(), input);
  }
  const bool get = request.method() == http::verb::get;
  if (get && (path == "/health" || path == "/metrics" || path == "/v1/models")) return;
  fuzz::check_client_error(api::ApiProtocol::OpenAIChat, server::unknown_endpoint(request.method_string(), path),
                           404, 404, input);
}

// Delivers `stream` in pieces of `sizes` (cycled; empty = all at once) and reads requests from it.
Transcript serve(std::string_view stream, const std::vector<size_t>& sizes, bool route_requests,
                 std::string_view input) {
  Transcript transcript;
  RequestReader reader(kMaxHeaderBytes, kMaxBodyBytes);
  std::string buffer;
  size_t delivered = 0, piece = 0;
  const auto deliver = [&] {
    const size_t n = sizes.empty() ? stream.size() : sizes[piece++ % sizes.size()];
    const std::string_view next = stream.substr(delivered, n);
    buffer += next;
    delivered += next.size();
  };
  while (true) {
    if (buffer.empty()) {
      if (delivered == stream.size()) break;
      deliver();
      continue;
    }
    RequestReader::Status status;
    const size_t used = reader.feed(buffer, status);
    if (used > buffer.size()) fail("feed() used more bytes than it was given", input);
    buffer.erase(0, used);
    if (status == RequestReader::Status::NeedMore) {
      if (delivered == stream.size()) break;
      deliver();
      continue;
    }
    if (status == RequestReader::Status::Failed) {
      const ninfer::api::ApiError& error = reader.error();
      if (error.status != 400 && error.status != 413 && error.status != 431)
        fail("a reader failure with status " + std::to_string(error.status), input);
      ninfer::fuzz::check_client_error(ninfer::api::ApiProtocol::OpenAIChat, error, 400, 431, input);
      RequestReader::Status again;
      if (reader.feed("GET / HTTP/1.1\r\n\r\n", again) != 0 || again != RequestReader::Status::Failed)
        fail("a failed reader read on", input);
      transcript.final_status = error.status;
      break;
    }
    const ninfer::server::HttpRequest request = reader.take();
    if (request.body().size() > kMaxBodyBytes) fail("a body over the limit was read", input);
    transcript.requests.push_back(std::string(request.method_string()) + " " + std::string(request.target()) + "\n" +
                                  request.body());
    if (route_requests) route(request, input);
    if (!request.keep_alive()) break;  // the server closes the connection after answering
  }
  return transcript;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kSizeBytes) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<size_t> sizes;
  for (size_t i = 0; i < kSizeBytes; ++i) sizes.push_back(size_t{1} + data[i]);
  const std::string_view stream = input.substr(kSizeBytes);
  const Transcript pieces = serve(stream, sizes, true, input);
  const Transcript whole = serve(stream, {}, false, input);
  if (!(pieces == whole))
    fail("delivered in pieces: " + std::to_string(pieces.requests.size()) + " requests, final status " +
             std::to_string(pieces.final_status) + "; whole: " + std::to_string(whole.requests.size()) +
             " requests, final status " + std::to_string(whole.final_status),
         input);
  return 0;
}
