// Reads HTTP/1.1 requests from a connection's bytes with the server's limits: a head larger than
// max_header_bytes is a 431 (the head is measured whole, however the reads split it), a body larger than max_body_bytes a 413 (refused from its
// Content-Length before it is read), anything Beast's parser rejects a 400. Pure: no socket, so
// that the parsing is unit-tested and fuzzed as it runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "api/api_error.h"

namespace ninfer::server {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;

class RequestReader {
 public:
  RequestReader(size_t max_header_bytes, size_t max_body_bytes);

  enum class Status { NeedMore, Done, Failed };
  // Parses from `bytes` and returns how many it used; the rest belongs to later requests. Done:
  // take() the request; Failed: error() says why (the connection must close after answering).
  size_t feed(std::string_view bytes, Status& status);
  bool started() const { return parser_.has_value(); }
  HttpRequest take();
  const api::ApiError& error() const { return *error_; }

 private:
  size_t max_header_bytes_, max_body_bytes_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::optional<api::ApiError> error_;
};

}  // namespace ninfer::server
