#include "runtime/prefix_cache.h"

#include <algorithm>
#include <stdexcept>

#include "ops/mix64.h"

namespace ninfer::runtime {

struct PrefixCache::Block {
  uint64_t key = 0;
  Block* parent = nullptr;
  int children = 0;
  std::vector<int32_t> tokens;
  std::unique_ptr<std::byte[]> kv;  // block_bytes_, written by read_kv (never zero-filled first)
  Lru::iterator lru;
};

using ops::mix64;

PrefixCache::PrefixCache(std::string_view model_key, int block_tokens, size_t budget_bytes, size_t bytes_per_position)
    : block_tokens_(block_tokens),
      budget_bytes_(budget_bytes),
      block_bytes_(static_cast<size_t>(block_tokens) * bytes_per_position) {
  if (block_tokens < 1) throw std::invalid_argument("prefix cache: block_tokens must be at least 1");
  if (bytes_per_position == 0) throw std::invalid_argument("prefix cache: the model exports no KV state");
  uint64_t h = 0x6a09e667f3bcc908ull;
  for (char c : model_key) h = mix64(h ^ static_cast<unsigned char>(c));
  root_key_ = h;
}

PrefixCache::~PrefixCache() = default;

uint64_t PrefixCache::chain_key(uint64_t parent_key, std::span<const int32_t> tokens) const {
  uint64_t h = parent_key;
  for (int32_t t : tokens) h = mix64(h ^ (static_cast<uint64_t>(static_cast<uint32_t>(t)) + 0x9e3779b97f4a7c15ull));
  return h;
}

PrefixCache::Block* PrefixCache::find(const Block* parent, uint64_t key, std::span<const int32_t> tokens) const {
  const auto it = blocks_.find(key);
  if (it == blocks_.end()) return nullptr;
  Block* b = it->second.get();
  // Exactness: the same parent (hence the same prefix before) and the same tokens.
  if (b->parent != parent || !std::equal(tokens.begin(), tokens.end(), b->tokens.begin(), b->tokens.end())) return nullptr;
  return b;
}

void PrefixCache::touch(std::span<Block* const> chain) {
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) lru_.splice(lru_.begin(), lru_, (*it)->lru);
}

int PrefixCache::restore(std::span<const int32_t> tokens, int max_tokens, models::LanguageModel& model, int slot) {
  if (model.slot_length(slot) != 0) throw std::logic_error("prefix cache: restore into a slot that is not empty");
  chain_.clear();
  const Block* parent = nullptr;
  uint64_t key = root_key_;
  const size_t bt = static_cast<size_t>(block_tokens_);
  const size_t limit = std::min(tokens.size(), static_cast<size_t>(std::max(max_tokens, 0)));
  for (size_t begin = 0; begin + bt <= limit; begin += bt) {
    const std::span<const int32_t> part = tokens.subspan(begin, bt);
    key = chain_key(key, part);
    Block* b = find(parent, key, part);
    if (!b) break;
    chain_.push_back(b);
    parent = b;
  }
  if (chain_.empty()) {
    ++stats_.misses;
    return 0;
  }
  for (const Block* b : chain_) model.append_kv(slot, block_tokens_, std::span<const std::byte>(b->kv.get(), block_bytes_));
  touch(chain_);
  ++stats_.hits;
  const int restored = static_cast<int>(chain_.size()) * block_tokens_;
  stats_.hit_tokens += static_cast<uint64_t>(restored);
  return restored;
}

void PrefixCache::store(std::span<const int32_t> tokens, models::LanguageModel& model, int slot) {
  if (budget_bytes_ < block_bytes_) return;
  chain_.clear();
  Block* parent = nullptr;
  uint64_t key = root_key_;
  const size_t bt = static_cast<size_t>(block_tokens_);
  for (size_t begin = 0; begin + bt <= tokens.size(); begin += bt) {
    const std::span<const int32_t> part = tokens.subspan(begin, bt);
    key = chain_key(key, part);
    Block* b = find(parent, key, part);
    if (!b) {
      // A key taken by another prefix (a hash collision): this chain cannot be cached further.
      if (blocks_.count(key)) break;
      evict_until_fits(block_bytes_);
      // Eviction spares this chain's blocks; a chain longer than the budget stops here.
      if (stats_.bytes + block_bytes_ > budget_bytes_) break;
      auto owned = std::make_unique<Block>();
      b = owned.get();
      b->key = key;
      b->parent = parent;
      b->tokens.assign(part.begin(), part.end());
      b->kv.reset(new std::byte[block_bytes_]);
      model.read_kv(slot, static_cast<int>(begin), block_tokens_, std::span<std::byte>(b->kv.get(), block_bytes_));
      lru_.push_front(b);
      b->lru = lru_.begin();
      if (parent) ++parent->children;
      blocks_.emplace(key, std::move(owned));
      stats_.bytes += block_bytes_;
      ++stats_.blocks;
      ++stats_.stored_blocks;
    }
    chain_.push_back(b);
    parent = b;
  }
  touch(chain_);
}

void PrefixCache::evict_until_fits(size_t incoming) {
  while (stats_.bytes + incoming > budget_bytes_ && !lru_.empty()) {
    // The least recently used leaf: with chains touched end first, the oldest entry is one unless
    // the chain being stored now holds the whole cache.
    auto it = lru_.end();
    Block* victim = nullptr;
    while (it != lru_.begin()) {
      --it;
      if ((*it)->children == 0 && std::find(chain_.begin(), chain_.end(), *it) == chain_.end()) {
        victim = *it;
        break;
      }
    }
    if (!victim) return;
    if (victim->parent) --victim->parent->children;
    lru_.erase(victim->lru);
    stats_.bytes -= block_bytes_;
    --stats_.blocks;
    ++stats_.evictions;
    blocks_.erase(victim->key);
  }
}

}  // namespace ninfer::runtime
