// Exact prefix cache: the KV state of prompt prefixes computed before, kept in blocks of
// `block_tokens` positions and copied into the slot of a later request whose prompt starts with the
// same tokens, so that it prefills only the rest (vLLM's automatic prefix caching, without paging:
// a hit is one copy per block, ~0.1 ms per MB, against a forward pass per token).
//
// A block's key is the whole prefix up to its end: a hash chained from its parent block, seeded with
// the model, and on lookup the block's own tokens and its parent are compared too, so a hash
// collision is a miss, never a wrong block. The chain fixes the positions. Blocks are evicted least
// recently used first within a byte budget; using a chain touches the blocks from its end back to
// its root, so a parent is always more recent than its children and leaves go first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/language_model.h"

namespace ninfer::runtime {

struct PrefixCacheStats {
  uint64_t hits = 0;        // lookups that reused at least one block
  uint64_t misses = 0;      // lookups that reused none
  uint64_t hit_tokens = 0;  // prompt positions restored instead of computed
  uint64_t stored_blocks = 0;
  uint64_t evictions = 0;   // blocks dropped for the budget
  uint64_t blocks = 0;      // held now
  uint64_t bytes = 0;       // held now (KV bytes)
};

class PrefixCache {
 public:
  // `model_key` names the model (its description): keys of different models never meet.
  PrefixCache(std::string_view model_key, int block_tokens, size_t budget_bytes, size_t bytes_per_position);
  ~PrefixCache();
  PrefixCache(const PrefixCache&) = delete;
  PrefixCache& operator=(const PrefixCache&) = delete;

  // Copies the longest cached prefix of `tokens`, in whole blocks and at most `max_tokens` long, into
  // `slot` (which must be empty) and returns its length in tokens.
  int restore(std::span<const int32_t> tokens, int max_tokens, models::LanguageModel& model, int slot);

  // Stores the whole blocks of `tokens` not cached yet, read from `slot`, whose first tokens.size()
  // positions must hold exactly these tokens.
  void store(std::span<const int32_t> tokens, models::LanguageModel& model, int slot);

  const PrefixCacheStats& stats() const { return stats_; }
  int block_tokens() const { return block_tokens_; }

 private:
  struct Block;
  using Lru = std::list<Block*>;  // front = most recently used

  // The cached block following `parent` (null: the root) for these tokens, or null.
  Block* find(const Block* parent, uint64_t key, std::span<const int32_t> tokens) const;
  uint64_t chain_key(uint64_t parent_key, std::span<const int32_t> tokens) const;
  void touch(std::span<Block* const> chain);  // from the end of the chain back to its root
  void evict_until_fits(size_t incoming);

  int block_tokens_;
  size_t budget_bytes_;
  size_t block_bytes_;
  uint64_t root_key_;
  std::unordered_map<uint64_t, std::unique_ptr<Block>> blocks_;
  Lru lru_;
  std::vector<Block*> chain_;  // scratch
  PrefixCacheStats stats_;
};

}  // namespace ninfer::runtime
