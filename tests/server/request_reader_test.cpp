// RequestReader: whole, byte-by-byte and pipelined requests, and each limit as its own status.
#include <gtest/gtest.h>

#include "server/request_reader.h"

namespace ninfer::server {
namespace {

using Status = RequestReader::Status;

std::string post(const std::string& body, const std::string& extra = {}) {
  return "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(RequestReader, ReadsARequestFedWhole) {
  RequestReader r(1024, 1024);
  const std::string bytes = post("{\"a\":1}");
  Status s;
  EXPECT_EQ(r.feed(bytes, s), bytes.size());
  ASSERT_EQ(s, Status::Done);
  const HttpRequest req = r.take();
  EXPECT_EQ(req.target(), "/v1/chat/completions");
  EXPECT_EQ(req.body(), "{\"a\":1}");
  EXPECT_FALSE(r.started());
}

TEST(RequestReader, ReadsARequestFedByteByByteFromAGrowingBuffer) {
  RequestReader r(1024, 1024);
  const std::string bytes = post("{\"hello\": \"world\"}");
  std::string buffer;
  Status s = Status::NeedMore;
  for (char c : bytes) {
    buffer += c;
    buffer.erase(0, r.feed(buffer, s));
    if (s != Status::NeedMore) break;
  }
  ASSERT_EQ(s, Status::Done);
  EXPECT_EQ(r.take().body(), "{\"hello\": \"world\"}");
  EXPECT_TRUE(buffer.empty());
}

TEST(RequestReader, LeavesAPipelinedRequestForTheNextRead) {
  RequestReader r(1024, 1024);
  const std::string first = post("1"), second = post("22");
  Status s;
  const size_t used = r.feed(first + second, s);
  ASSERT_EQ(s, Status::Done);
  EXPECT_EQ(used, first.size());
  EXPECT_EQ(r.take().body(), "1");
  EXPECT_EQ(r.feed(second, s), second.size());
  ASSERT_EQ(s, Status::Done);
  EXPECT_EQ(r.take().body(), "22");
}

TEST(RequestReader, ReadsAChunkedBody) {
  RequestReader r(1024, 1024);
  const std::string bytes =
      "POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  Status s;
  r.feed(bytes, s);
  ASSERT_EQ(s, Status::Done);
  EXPECT_EQ(r.take().body(), "abcde");
}

TEST(RequestReader, RefusesABodyOverTheLimitFromItsContentLength) {
  RequestReader r(1024, 10);
  // Only the head has arrived: the declared length alone is enough to refuse.
  const std::string head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n";
  Status s;
  r.feed(head, s);
  ASSERT_EQ(s, Status::Failed);
  EXPECT_EQ(r.error().status, 413);
  EXPECT_EQ(r.error().code, "request_too_large");
}

TEST(RequestReader, RefusesAChunkedBodyThatGrowsOverTheLimit) {
  RequestReader r(1024, 4);
  Status s;
  r.feed("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n", s);
  ASSERT_EQ(s, Status::Failed);
  EXPECT_EQ(r.error().status, 413);
}

TEST(RequestReader, RefusesAHeadOverTheLimitEvenWhenItNeverEnds) {
  RequestReader r(64, 1024);
  std::string head = "GET /health HTTP/1.1\r\nX-Long: " + std::string(200, 'a');  // no end of head
  Status s;
  r.feed(head, s);
  ASSERT_EQ(s, Status::Failed);
  EXPECT_EQ(r.error().status, 431);
}

TEST(RequestReader, RejectsMalformedRequestsAsBadRequest) {
  for (const std::string& bytes : {std::string("HELLO\r\n\r\n"), std::string("GET / HTTP/9.9\r\n\r\n"),
                                  std::string("POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"),
                                  std::string("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")}) {
    RequestReader r(1024, 1024);
    Status s;
    r.feed(bytes, s);
    ASSERT_EQ(s, Status::Failed) << bytes;
    EXPECT_EQ(r.error().status, 400) << bytes;
    EXPECT_EQ(r.error().code, "bad_http");
  }
}

}  // namespace
}  // namespace ninfer::server
