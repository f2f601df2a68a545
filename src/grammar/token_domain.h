// The vocabulary as the grammar engine sees it: raw bytes per token id, a generation class per
// id, the EOS set, and a byte trie over the normal tokens (the structure every mask walk uses).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ninfer::grammar {

enum class TokenClass : uint8_t {
  Normal,        // text: its bytes are matched against the grammar
  Control,       // special/control token: allowed only where a grammar names its exact id (EOS aside)
  NotGenerable,  // never allowed (holes in the id space, padding)
};

// Byte trie over the normal tokens, flattened in preorder. Node 0 is the root (no byte).
struct TokenTrie {
  std::vector<uint8_t> byte;          // edge byte into the node
  std::vector<uint16_t> depth;        // bytes from the root
  std::vector<uint32_t> subtree_end;  // preorder index just past the node's subtree
  std::vector<uint32_t> token_begin;  // tokens ending exactly here: ids[token_begin[n] .. token_begin[n+1])
  std::vector<int32_t> ids;
  // Preorder position of each token's node (-1 for non-normal tokens) and its rank in `ids`.
  std::vector<int32_t> node_of_token;

  uint32_t num_nodes() const { return static_cast<uint32_t>(byte.size()); }
};

class TokenDomain {
 public:
  TokenDomain(std::vector<std::string> token_bytes, std::vector<TokenClass> classes, std::vector<int32_t> eos_ids);

  int32_t size() const { return static_cast<int32_t>(bytes_.size()); }
  int32_t mask_words() const { return (size() + 31) / 32; }
  const std::string& bytes(int32_t id) const { return bytes_[id]; }
  TokenClass token_class(int32_t id) const { return classes_[id]; }
  const std::vector<int32_t>& eos_ids() const { return eos_ids_; }
  bool is_eos(int32_t id) const;
  const TokenTrie& trie() const { return trie_; }
  // JSON-string-safe slice: tokens of whole UTF-8 characters other than '"', '\\' and U+0000..U+001F
  // (about 95% of a typical vocabulary), and the trie of every other normal token.
  const std::vector<uint32_t>& string_safe_mask() const { return string_safe_mask_; }
  uint32_t string_safe_count() const { return string_safe_count_; }
  const TokenTrie& rest_trie() const { return rest_trie_; }
  // The slice's tokens of at most kShortSliceChars characters, and the trie of every other token.
  static constexpr uint32_t kShortSliceChars = 16;
  const std::vector<uint32_t>& string_safe_short_mask() const { return string_safe_short_mask_; }
  uint32_t string_safe_short_count() const { return string_safe_short_count_; }
  const TokenTrie& rest_short_trie() const { return rest_short_trie_; }
  // The same for at most kMediumSliceChars characters (states that may end a rule whose callers
  // all absorb that much text: the ends of counted blocks in long strings).
  static constexpr uint32_t kMediumSliceChars = 96;
  const std::vector<uint32_t>& string_safe_medium_mask() const { return string_safe_medium_mask_; }
  uint32_t string_safe_medium_count() const { return string_safe_medium_count_; }
  const TokenTrie& rest_medium_trie() const { return rest_medium_trie_; }
  // The tokens outside the slice keyed by their tail: the bytes after their longest string-safe
  // prefix of whole characters. From a state that every string-safe character leads back to (the
  // inside of a plain JSON string), a token's fate depends on its tail only, and the distinct
  // tails are far fewer trie nodes than the tokens themselves.
  const TokenTrie& rest_tail_trie() const { return rest_tail_trie_; }
  // Bit mask of the normal tokens (the universe of ExcludeToken).
  const std::vector<uint32_t>& normal_mask() const { return normal_mask_; }
  // Stable identity of the vocabulary contents (for cache keys).
  uint64_t fingerprint() const { return fingerprint_; }
  double build_seconds() const { return build_seconds_; }
  size_t memory_bytes() const;

 private:
  std::vector<std::string> bytes_;
  std::vector<TokenClass> classes_;
  std::vector<int32_t> eos_ids_;
  TokenTrie trie_;
  TokenTrie rest_trie_;
  TokenTrie rest_short_trie_;
  TokenTrie rest_medium_trie_;
  std::vector<uint32_t> string_safe_medium_mask_;
  uint32_t string_safe_medium_count_ = 0;
  TokenTrie rest_tail_trie_;
  std::vector<uint32_t> string_safe_short_mask_;
  uint32_t string_safe_short_count_ = 0;
  std::vector<uint32_t> string_safe_mask_;
  uint32_t string_safe_count_ = 0;
  std::vector<uint32_t> normal_mask_;
  uint64_t fingerprint_ = 0;
  double build_seconds_ = 0;
};

}  // namespace ninfer::grammar
