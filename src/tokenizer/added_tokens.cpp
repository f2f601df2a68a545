#include "tokenizer/added_tokens.h"

#include <algorithm>

#include "tokenizer/utf8.h"

namespace ninfer::tokenizer {

void AddedTokenMatcher::build(std::vector<AddedToken> tokens) {
  tokens_ = std::move(tokens);
  nodes_.assign(1, Node{});
  std::fill(std::begin(first_byte_), std::end(first_byte_), false);
  for (size_t t = 0; t < tokens_.size(); ++t) {
    const std::string& s = tokens_[t].content;
    if (s.empty()) continue;
    first_byte_[static_cast<unsigned char>(s[0])] = true;
    int32_t node = 0;
    for (unsigned char b : s) {
      int32_t next = child(node, b);
      if (next < 0) {
        next = static_cast<int32_t>(nodes_.size());
        nodes_.push_back(Node{});
        auto& ch = nodes_[node].children;
        ch.insert(std::upper_bound(ch.begin(), ch.end(), std::make_pair(b, int32_t{-1}),
                                   [](const auto& a, const auto& c) { return a.first < c.first; }),
                  {b, next});
      }
      node = next;
    }
    nodes_[node].token = static_cast<int32_t>(t);  // a later duplicate content wins
  }
}

int32_t AddedTokenMatcher::child(int32_t node, unsigned char b) const {
  const auto& ch = nodes_[node].children;
  auto it = std::lower_bound(ch.begin(), ch.end(), b, [](const auto& a, unsigned char v) { return a.first < v; });
  return (it != ch.end() && it->first == b) ? it->second : -1;
}

namespace {

// Start of the run of White_Space characters that ends at `end` (not before `floor`).
size_t white_space_start(std::string_view text, size_t floor, size_t end) {
  size_t pos = end;
  while (pos > floor) {
    size_t start = pos - 1;
    while (start > floor && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    size_t p = start;
    if (!utf8::is_white_space(utf8::decode(text, p))) break;
    pos = start;
  }
  return pos;
}

size_t white_space_end(std::string_view text, size_t begin) {
  size_t pos = begin;
  while (pos < text.size()) {
    size_t p = pos;
    if (!utf8::is_white_space(utf8::decode(text, p))) break;
    pos = p;
  }
  return pos;
}

}  // namespace

std::vector<AddedTokenMatcher::Segment> AddedTokenMatcher::split(std::string_view text) const {
  std::vector<Segment> out;
  size_t text_start = 0;  // start of the pending ordinary-text segment
  size_t i = 0;
  while (i < text.size()) {
    if (!first_byte_[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    // Longest match starting at i.
    int32_t node = 0, best = -1;
    size_t best_end = 0;
    for (size_t j = i; j < text.size(); ++j) {
      node = child(node, static_cast<unsigned char>(text[j]));
      if (node < 0) break;
      if (nodes_[node].token >= 0) {
        best = nodes_[node].token;
        best_end = j + 1;
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    const AddedToken& tok = tokens_[best];
    const size_t seg_end = tok.lstrip ? white_space_start(text, text_start, i) : i;
    if (seg_end > text_start) out.push_back(Segment{text_start, seg_end, -1});
    out.push_back(Segment{i, best_end, tok.id});
    i = tok.rstrip ? white_space_end(text, best_end) : best_end;
    text_start = i;
  }
  if (text_start < text.size()) out.push_back(Segment{text_start, text.size(), -1});
  return out;
}

}  // namespace ninfer::tokenizer
