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
  // The head goes to Beast only once it is whole. Beast consumes a head in parts (the request line
  // and complete fields as they come) and applies its header limit to each part, so that a head
  // fed in pieces could pass the limit, and a malformed request line was reported early or late
  // depending on where the reads split it. Here the head is measured whole, whatever the reads.
  if (!parser_->is_header_done()) {
    const size_t head_end = bytes.substr(0, max_header_bytes_).find("\r\n\r\n");
    if (head_end == std::string_view::npos) {
      if (bytes.size() < max_header_bytes_) {
        status = Status::NeedMore;
        return 0;
      }
      ec = http::error::header_limit;  // no end within the limit: too large, or never ending
    }
  }
  // put() stops after the head; a second call parses the body that came with it.
  while (!ec && used < bytes.size() && !parser_->is_done()) {
    const size_t n = parser_->put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    used += n;
    if (ec || n == 0) break;
  }
  // A whole head that Beast still reads as unfinished is malformed (a request line cut short before
  // its version: Beast waits for the 8 bytes of "HTTP/1.1" that the head does not have).
  if (ec == http::error::need_more && !parser_->is_header_done()) ec = http::error::partial_message;
  if (ec == http::error::need_more || (!ec && !parser_->is_done())) {
    status = Status::NeedMore;
    return used;
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
