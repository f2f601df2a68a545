// RequestReader's head limit and request-line errors do not depend on how the reads split the
// bytes: the same bytes fed whole, byte by byte or in other pieces end the same way.
#include <gtest/gtest.h>

#include "server/request_reader.h"

namespace ninfer::server {
namespace {

using Status = RequestReader::Status;

struct Outcome {
  Status status = Status::NeedMore;
  int error_status = 0;
};

// Feeds `bytes` in pieces of `piece` bytes from a growing buffer, as HttpConnection does.
Outcome read_in_pieces(const std::string& bytes, size_t piece, size_t max_header) {
  RequestReader reader(max_header, 1 << 16);
  std::string buffer;
  Outcome out;
  for (size_t delivered = 0; delivered < bytes.size();) {
    buffer += bytes.substr(delivered, piece);
    delivered = std::min(bytes.size(), delivered + piece);
    buffer.erase(0, reader.feed(buffer, out.status));
    if (out.status == Status::Failed) out.error_status = reader.error().status;
    if (out.status != Status::NeedMore) break;
  }
  return out;
}

// A head of exactly `size` bytes: a request line, `X-Pad` fields of 40 bytes, one field that
// makes up the rest, and the empty line.
std::string head_of(size_t size) {
  std::string head = "GET /health HTTP/1.1\r\nHost: x\r\n";
  while (head.size() + 40 + 12 < size) head += "X-Pad: " + std::string(31, 'a') + "\r\n";
  head += "X-Last: " + std::string(size - head.size() - 12, 'b') + "\r\n\r\n";
  EXPECT_EQ(head.size(), size);
  return head;
}

constexpr size_t kPieces[] = {1, 7, 100, 256, 1 << 20};

// Found by http_request_fuzz: Beast consumes the request line and the complete fields it has and
// limits each part on its own, so a 2,128-byte head fed in 256-byte reads passed a 2,048-byte
// limit that the same bytes fed whole did not.
TEST(RequestHeadLimit, AHeadOverTheLimitIsA431HoweverTheReadsSplitIt) {
  for (size_t size : {2049, 2128, 4000}) {
    for (size_t piece : kPieces) {
      const Outcome out = read_in_pieces(head_of(size), piece, 2048);
      EXPECT_EQ(out.status, Status::Failed) << size << " bytes in pieces of " << piece;
      EXPECT_EQ(out.error_status, 431) << size << " bytes in pieces of " << piece;
    }
  }
}

TEST(RequestHeadLimit, AHeadAtTheLimitIsReadHoweverTheReadsSplitIt) {
  for (size_t piece : kPieces) {
    EXPECT_EQ(read_in_pieces(head_of(2048), piece, 2048).status, Status::Done) << piece;
    EXPECT_EQ(read_in_pieces(head_of(100), piece, 2048).status, Status::Done) << piece;
  }
}

TEST(RequestHeadLimit, AMalformedRequestLineIsA400OnceItsHeadEndsHoweverTheReadsSplitIt) {
  const std::string line = "POST /v1/mes\xFFsages$HTTP/1.1\r\nHost: x\r\n";
  for (size_t piece : kPieces) {
    EXPECT_EQ(read_in_pieces(line, piece, 2048).status, Status::NeedMore) << piece;
    const Outcome out = read_in_pieces(line + "\r\n", piece, 2048);
    EXPECT_EQ(out.status, Status::Failed) << piece;
    EXPECT_EQ(out.error_status, 400) << piece;
  }
}

// Found by http_request_fuzz: Beast reads a request version as 8 bytes, and when a whole head
// ended before them ("POST /x 45\r\n\r\n") it waited for more bytes that could not complete it,
// while the same head followed by a body was a 400 at once.
TEST(RequestHeadLimit, AWholeHeadWithARequestLineCutShortIsA400HoweverTheReadsSplitIt) {
  for (const std::string& bytes : {std::string("POST /x 45\r\n\r\n"), std::string("POST /vent-Length: 45\r\n\r\n{}"),
                                   std::string("GET / H\r\n\r\n")}) {
    for (size_t piece : kPieces) {
      const Outcome out = read_in_pieces(bytes, piece, 2048);
      EXPECT_EQ(out.status, Status::Failed) << bytes << " in pieces of " << piece;
      EXPECT_EQ(out.error_status, 400) << bytes << " in pieces of " << piece;
    }
  }
}

}  // namespace
}  // namespace ninfer::server
