#include "grammar/token_domain.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

namespace ninfer::grammar {
namespace {

// Whole UTF-8 characters (shortest form, no surrogates), none of them '"', '\\' or below U+0020.
bool is_string_safe(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == '"' || c == '\\') return false;
      ++i;
      continue;
    }
    int len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else return false;
    if (i + len > s.size()) return false;
    for (int k = 1; k < len; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if (d < (k == 1 ? lo : 0x80) || d > (k == 1 ? hi : 0xBF)) return false;
    }
    i += len;
  }
  return !s.empty();
}

// Bytes of the longest prefix of `s` made of whole string-safe characters.
size_t string_safe_prefix(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > s.size() || !is_string_safe(s.substr(i, len))) break;
    i += len;
  }
  return i;
}

// Preorder trie over tokens already sorted by bytes.
template <typename View>
TokenTrie build_trie(const std::vector<int32_t>& sorted_ids, const View& view, int32_t n) {
  TokenTrie t;
  t.node_of_token.assign(n, -1);
  t.byte.push_back(0);
  t.depth.push_back(0);
  t.token_begin.push_back(0);
  std::vector<uint32_t> path{0};  // node index at each depth along the current token
  std::string_view prev;
  for (int32_t id : sorted_ids) {
    const std::string_view s = view(id);
    size_t lcp = 0;
    const size_t m = std::min(prev.size(), s.size());
    while (lcp < m && prev[lcp] == s[lcp]) ++lcp;
    path.resize(lcp + 1);
    for (size_t d = lcp; d < s.size(); ++d) {
      t.byte.push_back(static_cast<uint8_t>(s[d]));
      t.depth.push_back(static_cast<uint16_t>(d + 1));
      t.token_begin.push_back(static_cast<uint32_t>(t.ids.size()));
      path.push_back(t.num_nodes() - 1);
    }
    // Tokens ending at the current node are appended in order, so token_begin stays monotone:
    // the tokens of node k lie in [token_begin[k], token_begin[k+1]).
    t.ids.push_back(id);
    t.node_of_token[id] = static_cast<int32_t>(path.back());
    prev = s;
  }
  t.token_begin.push_back(static_cast<uint32_t>(t.ids.size()));
  const uint32_t nodes = t.num_nodes();
  t.subtree_end.assign(nodes, nodes);
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < nodes; ++i) {
    while (!stack.empty() && t.depth[stack.back()] >= t.depth[i]) {
      t.subtree_end[stack.back()] = i;
      stack.pop_back();
    }
    stack.push_back(i);
  }
  return t;
}

}  // namespace

TokenDomain::TokenDomain(std::vector<std::string> token_bytes, std::vector<TokenClass> classes,
                         std::vector<int32_t> eos_ids)
    : bytes_(std::move(token_bytes)), classes_(std::move(classes)), eos_ids_(std::move(eos_ids)) {
  auto t0 = std::chrono::steady_clock::now();
  if (classes_.size() != bytes_.size()) throw std::invalid_argument("token domain: classes and bytes differ in size");
  const int32_t n = size();
  std::sort(eos_ids_.begin(), eos_ids_.end());
  eos_ids_.erase(std::unique(eos_ids_.begin(), eos_ids_.end()), eos_ids_.end());
  for (int32_t e : eos_ids_) {
    if (e < 0 || e >= n) throw std::invalid_argument("token domain: EOS id out of range");
    // EOS is completion control, never text.
    if (classes_[e] == TokenClass::Normal) classes_[e] = TokenClass::Control;
  }
  for (int32_t i = 0; i < n; ++i)
    if (classes_[i] == TokenClass::Normal && bytes_[i].empty()) classes_[i] = TokenClass::NotGenerable;

  // Sort normal tokens by bytes; build the preorder trie from consecutive common prefixes.
  // The bytes are first copied into one contiguous blob (sequential reads), so sorting and the
  // trie build touch ~1 MB of cache-friendly memory instead of 150k scattered strings.
  std::string blob;
  std::vector<uint32_t> offset(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) {
    offset[i] = static_cast<uint32_t>(blob.size());
    if (classes_[i] == TokenClass::Normal) blob += bytes_[i];
  }
  offset[n] = static_cast<uint32_t>(blob.size());
  auto view = [&](int32_t id) { return std::string_view(blob).substr(offset[id], offset[id + 1] - offset[id]); };
  std::vector<std::pair<uint64_t, int32_t>> keyed;  // 8-byte big-endian prefix key, id
  keyed.reserve(n);
  for (int32_t id = 0; id < n; ++id) {
    if (classes_[id] != TokenClass::Normal) continue;
    const std::string_view s = view(id);
    if (s.size() > 65535) throw std::invalid_argument("token domain: token longer than 65535 bytes");
    uint64_t key = 0;
    for (size_t i = 0; i < 8; ++i) key = (key << 8) | (i < s.size() ? static_cast<unsigned char>(s[i]) : 0u);
    keyed.emplace_back(key, id);
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first < y.first;
    const std::string_view a = view(x.second), b = view(y.second);
    return a != b ? a < b : x.second < y.second;
  });
  std::vector<int32_t> sorted_ids;
  sorted_ids.reserve(keyed.size());
  for (const auto& kv : keyed) sorted_ids.push_back(kv.second);
  trie_ = build_trie(sorted_ids, view, n);

  // The JSON-string-safe slice: tokens made of whole UTF-8 characters other than '"', '\\' and
  // controls. String-content states accept all of them, so their trie walk can skip the slice.
  // Its short part (at most kShortSliceChars characters) serves states that only stay alive for a
  // bounded number of characters, such as the inside of a string with a maxLength.
  string_safe_mask_.assign(mask_words(), 0);
  string_safe_short_mask_.assign(mask_words(), 0);
  string_safe_medium_mask_.assign(mask_words(), 0);
  std::vector<int32_t> rest_ids, rest_short_ids, rest_medium_ids;
  for (int32_t id : sorted_ids) {
    const std::string_view v = view(id);
    if (is_string_safe(v)) {
      string_safe_mask_[id >> 5] |= 1u << (id & 31);
      ++string_safe_count_;
      size_t chars = 0;
      for (unsigned char c : v) chars += (c & 0xC0) != 0x80;
      if (chars <= kShortSliceChars) {
        string_safe_short_mask_[id >> 5] |= 1u << (id & 31);
        ++string_safe_short_count_;
      } else {
        rest_short_ids.push_back(id);
      }
      if (chars <= kMediumSliceChars) {
        string_safe_medium_mask_[id >> 5] |= 1u << (id & 31);
        ++string_safe_medium_count_;
      } else {
        rest_medium_ids.push_back(id);
      }
    } else {
      rest_ids.push_back(id);
      rest_short_ids.push_back(id);
      rest_medium_ids.push_back(id);
    }
  }
  rest_trie_ = build_trie(rest_ids, view, n);
  rest_short_trie_ = build_trie(rest_short_ids, view, n);
  rest_medium_trie_ = build_trie(rest_medium_ids, view, n);
  std::vector<uint32_t> tail_at(n, 0);
  for (int32_t id : rest_ids) tail_at[id] = static_cast<uint32_t>(string_safe_prefix(view(id)));
  auto tail_view = [&](int32_t id) { return view(id).substr(tail_at[id]); };
  std::vector<int32_t> by_tail = rest_ids;
  std::stable_sort(by_tail.begin(), by_tail.end(), [&](int32_t x, int32_t y) { return tail_view(x) < tail_view(y); });
  rest_tail_trie_ = build_trie(by_tail, tail_view, n);

  normal_mask_.assign(mask_words(), 0);
  for (int32_t i = 0; i < n; ++i)
    if (classes_[i] == TokenClass::Normal) normal_mask_[i >> 5] |= 1u << (i & 31);

  uint64_t h = 1469598103934665603ull;
  for (int32_t i = 0; i < n; ++i) {
    for (unsigned char c : bytes_[i]) h = (h ^ c) * 1099511628211ull;
    h = (h ^ (0x100u + static_cast<unsigned>(classes_[i]))) * 1099511628211ull;
  }
  for (int32_t e : eos_ids_) h = (h ^ static_cast<uint64_t>(e)) * 1099511628211ull;
  fingerprint_ = h;
  build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool TokenDomain::is_eos(int32_t id) const { return std::binary_search(eos_ids_.begin(), eos_ids_.end(), id); }

size_t TokenDomain::memory_bytes() const {
  size_t m = 0;
  for (const auto& s : bytes_) m += s.capacity() + sizeof(std::string);
  for (const TokenTrie* t : {&trie_, &rest_trie_, &rest_short_trie_, &rest_medium_trie_, &rest_tail_trie_})
    m += t->byte.size() * (1 + 2 + 4 + 4) + t->ids.size() * 4 + t->node_of_token.size() * 4;
  m += classes_.size() + string_safe_mask_.size() * 12;
  return m + normal_mask_.size() * 4;
}

}  // namespace ninfer::grammar
