// Merge-rank BPE over one pre-token ("piece"), with a bounded, thread-safe per-piece cache.
//
// The vocabulary is keyed by its tokenizer.json strings. For byte-level vocabularies the piece's
// raw bytes are the initial symbols (each byte standing for its GPT-2 alphabet character); for
// SentencePiece-style vocabularies each UTF-8 character is a symbol, with <0xNN> byte fallback.
// The adjacent pair with the lowest merge rank is merged first, ties going to the leftmost pair.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/string_id_map.h"

namespace ninfer::tokenizer {

struct BpeOptions {
  bool byte_level = false;     // pieces are raw bytes, vocabulary strings are in the GPT-2 alphabet
  bool byte_fallback = false;  // unknown characters -> <0xNN> tokens
  bool ignore_merges = false;  // a piece that is itself a vocabulary entry is emitted as is
  bool fuse_unk = false;       // consecutive unknown symbols become one unk
  std::optional<int32_t> unk_id;
};

class BpeModel {
 public:
  explicit BpeModel(BpeOptions options);
  ~BpeModel();

  // Building (single-threaded, before any encode).
  void reserve(size_t tokens, size_t token_bytes, size_t merges);
  // Returns false if `token` (a vocabulary string) is already present.
  bool add_token(std::string_view token, int32_t id);
  // Later merges of the same pair replace earlier ones (as the reference implementations do).
  void add_merge(int32_t left, int32_t right, int32_t rank, int32_t result);
  void set_unk_id(int32_t id) { options_.unk_id = id; }
  void finish();  // builds derived tables

  // Id of a vocabulary string.
  std::optional<int32_t> find(std::string_view token) const { return vocab_.find(token); }
  // Appends the ids of `piece`. Thread-safe.
  void encode(std::string_view piece, std::vector<int32_t>& out) const;

 private:
  struct MergeTable;
  struct Cache;

  void encode_uncached(std::string_view piece, std::vector<int32_t>& out) const;

  BpeOptions options_;
  StringIdMap vocab_;
  std::unique_ptr<MergeTable> merges_;
  std::array<int32_t, 256> byte_ids_{};      // byte-level: id of the one-byte token, or -1
  std::array<int32_t, 256> fallback_ids_{};  // byte fallback: id of <0xNN>, or -1
  std::unique_ptr<Cache> cache_;
};

}  // namespace ninfer::tokenizer
