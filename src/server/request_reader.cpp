#include "server/request_reader.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

namespace ninfer::server {

namespace http = boost::beast::http;

RequestReader::RequestReader(size_t max_header_bytes, size_t max_body_bytes)
    : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {}

size_t RequestReader::feed(std::string_view bytes, Status& status) {
  if (error_) {
    status = Status::Failed;
    return 0;
  }
  if (!parser_) {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(max_header_bytes_));
    parser_->body_limit(max_body_bytes_);
    parser_->eager(true);
  }
  size_t used = 0;
  boost::system::error_code ec;
  // put() stops after the head; a second call parses the body that came with it.
  while (used < bytes.size() && !parser_->is_done()) {
    const size_t n = parser_->put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    used += n;
    if (ec || n == 0) break;
  }
  if (ec == http::error::need_more || (!ec && !parser_->is_done())) {
    // A head that never ends: Beast reports header_limit only once it has the bytes; count them here.
    if (!parser_->is_header_done() && used == 0 && bytes.size() > max_header_bytes_)
      ec = http::error::header_limit;
    else {
      status = Status::NeedMore;
      return used;
    }
  }
  if (ec) {
    status = Status::Failed;
    parser_.reset();
    if (ec == http::error::body_limit)
      error_ = api::ApiError(413, "invalid_request_error",
                             "The request body exceeds this server's limit of " + std::to_string(max_body_bytes_) +
                                 " bytes.",
                             "", "request_too_large");
    else if (ec == http::error::header_limit)
      error_ = api::ApiError(431, "invalid_request_error",
                             "The request head exceeds this server's limit of " + std::to_string(max_header_bytes_) +
                                 " bytes.",
                             "", "header_too_large");
    else
      error_ = api::ApiError(400, "invalid_request_error", "Malformed HTTP request: " + ec.message() + ".", "",
                             "bad_http");
    return used;
  }
  status = Status::Done;
  return used;
}

HttpRequest RequestReader::take() {
  HttpRequest request = parser_->release();
  parser_.reset();
  return request;
}

}  // namespace ninfer::server
