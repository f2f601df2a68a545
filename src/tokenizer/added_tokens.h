// Added tokens (tokenizer.json "added_tokens"): found in the raw text before normalization and
// pre-tokenization, leftmost-longest, and emitted as their own ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ninfer::tokenizer {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false;
  bool lstrip = false;  // swallow white space on the left of a match
  bool rstrip = false;  // swallow white space on the right of a match
};

class AddedTokenMatcher {
 public:
  struct Segment {
    size_t begin = 0, end = 0;  // byte range in the text (for id < 0: the text to encode)
    int32_t id = -1;            // added token id, or -1 for ordinary text
  };

  void build(std::vector<AddedToken> tokens);
  bool empty() const { return tokens_.empty(); }
  // Splits valid UTF-8 `text` into ordinary-text segments and added-token matches, in order.
  // Empty text segments (e.g. eaten by lstrip/rstrip) are omitted.
  std::vector<Segment> split(std::string_view text) const;

 private:
  struct Node {
    std::vector<std::pair<unsigned char, int32_t>> children;  // sorted by byte
    int32_t token = -1;                                       // index into tokens_
  };
  int32_t child(int32_t node, unsigned char b) const;

  std::vector<AddedToken> tokens_;
  std::vector<Node> nodes_;
  bool first_byte_[256] = {};
};

}  // namespace ninfer::tokenizer
