#include "tokenizer/bpe_model.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

namespace ninfer::tokenizer {
namespace {

constexpr size_t kCacheShards = 16;
constexpr size_t kCacheEntriesPerShard = 8192;
constexpr size_t kMaxCachedPieceBytes = 256;

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

struct Symbol {
  int32_t id;
  int32_t prev;
  int32_t next;
  bool unk;
};

struct Candidate {
  int32_t rank;
  int32_t pos;  // index of the left symbol (symbols keep their text order)
  int32_t left;
  int32_t right;
  int32_t result;
};

// Min-heap order: lowest rank first, then leftmost.
struct CandidateAfter {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  }
};

}  // namespace

// Open-addressing hash table (id pair -> rank, result), 16 bytes a slot.
struct BpeModel::MergeTable {
  struct Slot {
    uint64_t key = ~0ULL;  // ~0: empty
    int32_t rank = 0;
    int32_t result = 0;
  };
  std::vector<Slot> slots;
  size_t size = 0;

  static uint64_t hash(uint64_t k) {
    k *= 0x9E3779B97F4A7C15ULL;
    return k ^ (k >> 32);
  }
  static size_t capacity_for(size_t n) {
    size_t cap = 16;
    while (cap * 7 < n * 10) cap <<= 1;
    return cap;
  }

  void rehash(size_t cap) {
    std::vector<Slot> old = std::move(slots);
    slots.assign(cap, Slot{});
    for (const Slot& s : old)
      if (s.key != ~0ULL) *place(s.key) = s;
  }
  Slot* place(uint64_t k) {
    const uint64_t mask = slots.size() - 1;
    uint64_t i = hash(k) & mask;
    while (slots[i].key != ~0ULL && slots[i].key != k) i = (i + 1) & mask;
    return &slots[i];
  }
  void reserve(size_t n) {
    if (capacity_for(n) > slots.size()) rehash(capacity_for(n));
  }
  void assign(uint64_t k, int32_t rank, int32_t result) {
    if (capacity_for(size + 1) > slots.size()) rehash(capacity_for((size + 1) * 2));
    Slot* s = place(k);
    if (s->key == ~0ULL) ++size;
    *s = Slot{k, rank, result};
  }
  const Slot* find(int32_t left, int32_t right) const {
    if (slots.empty()) return nullptr;
    const uint64_t k = pair_key(left, right);
    const uint64_t mask = slots.size() - 1;
    uint64_t i = hash(k) & mask;
    while (true) {
      const Slot& s = slots[i];
      if (s.key == k) return &s;
      if (s.key == ~0ULL) return nullptr;
      i = (i + 1) & mask;
    }
  }
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct BpeModel::Cache {
  struct Shard {
    std::mutex mu;
    std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> map;
  };
  std::array<Shard, kCacheShards> shards;
};

BpeModel::BpeModel(BpeOptions options)
    : options_(options), merges_(std::make_unique<MergeTable>()), cache_(std::make_unique<Cache>()) {
  byte_ids_.fill(-1);
  fallback_ids_.fill(-1);
}

BpeModel::~BpeModel() = default;

void BpeModel::reserve(size_t tokens, size_t token_bytes, size_t merges) {
  vocab_.reserve(tokens, token_bytes);
  merges_->reserve(merges);
}

bool BpeModel::add_token(std::string_view token, int32_t id) { return vocab_.insert(token, id); }

void BpeModel::add_merge(int32_t left, int32_t right, int32_t rank, int32_t result) {
  merges_->assign(pair_key(left, right), rank, result);
}

void BpeModel::finish() {
  for (int b = 0; b < 256; ++b) {
    if (options_.byte_level) {
      std::string symbol;
      utf8::append(symbol, byte_level::code_point_of(static_cast<unsigned char>(b)));
      if (auto id = find(symbol)) byte_ids_[b] = *id;
    }
    static const char* hex = "0123456789ABCDEF";
    const char name[] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
    if (auto id = find(std::string_view(name, sizeof(name)))) fallback_ids_[b] = *id;
  }
}

void BpeModel::encode(std::string_view piece, std::vector<int32_t>& out) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    std::optional<int32_t> id;
    if (options_.byte_level) {
      thread_local std::string symbols;
      symbols.clear();
      for (unsigned char b : piece) utf8::append(symbols, byte_level::code_point_of(b));
      id = find(symbols);
    } else {
      id = find(piece);
    }
    if (id) {
      out.push_back(*id);
      return;
    }
  }
  if (piece.size() > kMaxCachedPieceBytes) {
    encode_uncached(piece, out);
    return;
  }
  Cache::Shard& shard = cache_->shards[StringHash{}(piece) % kCacheShards];
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.map.find(piece);
    if (it != shard.map.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t before = out.size();
  encode_uncached(piece, out);
  std::vector<int32_t> ids(out.begin() + static_cast<std::ptrdiff_t>(before), out.end());
  std::lock_guard<std::mutex> lock(shard.mu);
  if (shard.map.size() >= kCacheEntriesPerShard) shard.map.clear();
  shard.map.emplace(std::string(piece), std::move(ids));
}

void BpeModel::encode_uncached(std::string_view piece, std::vector<int32_t>& out) const {
  thread_local std::vector<Symbol> syms;
  thread_local std::vector<Candidate> heap;
  syms.clear();
  heap.clear();

  const auto push = [&](int32_t id, bool unk) {
    const auto n = static_cast<int32_t>(syms.size());
    syms.push_back(Symbol{id, n - 1, -1, unk});
  };
  const auto unknown = [&](std::string_view bytes) {
    if (options_.byte_fallback) {
      bool all = true;
      for (unsigned char b : bytes) all = all && fallback_ids_[b] >= 0;
      if (all) {
        for (unsigned char b : bytes) push(fallback_ids_[b], false);
        return;
      }
    }
    if (!options_.unk_id) return;  // no unk token: the symbol is dropped
    if (options_.fuse_unk && !syms.empty() && syms.back().unk) return;
    push(*options_.unk_id, true);
  };

  if (options_.byte_level) {
    for (size_t i = 0; i < piece.size(); ++i) {
      const int32_t id = byte_ids_[static_cast<unsigned char>(piece[i])];
      if (id >= 0) push(id, false);
      else unknown(piece.substr(i, 1));
    }
  } else {
    size_t i = 0;
    while (i < piece.size()) {
      size_t n = utf8::sequence_length(piece, i);
      if (n == 0) n = 1;
      const std::string_view ch = piece.substr(i, n);
      if (auto id = vocab_.find(ch)) push(*id, false);
      else unknown(ch);
      i += n;
    }
  }
  if (syms.empty()) return;
  for (size_t i = 0; i + 1 < syms.size(); ++i) syms[i].next = static_cast<int32_t>(i + 1);

  const auto consider = [&](int32_t pos) {
    const int32_t next = syms[pos].next;
    if (next < 0) return;
    if (const auto* m = merges_->find(syms[pos].id, syms[next].id)) {
      heap.push_back(Candidate{m->rank, pos, syms[pos].id, syms[next].id, m->result});
      std::push_heap(heap.begin(), heap.end(), CandidateAfter{});
    }
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(syms.size()); ++i) consider(i);

  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), CandidateAfter{});
    const Candidate c = heap.back();
    heap.pop_back();
    Symbol& left = syms[c.pos];
    if (left.id != c.left || left.next < 0) continue;
    Symbol& right = syms[left.next];
    if (right.id != c.right) continue;
    // Merge right into left.
    left.id = c.result;
    left.unk = false;
    left.next = right.next;
    right.id = -1;
    if (left.next >= 0) syms[left.next].prev = c.pos;
    if (left.prev >= 0) consider(left.prev);
    consider(c.pos);
  }
  for (int32_t i = 0; i >= 0; i = syms[i].next) out.push_back(syms[i].id);
}

}  // namespace ninfer::tokenizer
