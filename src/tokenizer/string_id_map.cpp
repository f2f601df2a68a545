#include "tokenizer/string_id_map.h"

#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>

namespace ninfer::tokenizer {
namespace {

// Smallest power of two holding `entries` at a load factor of at most 0.7.
size_t capacity_for(size_t entries) {
  size_t cap = 16;
  while (cap * 7 < entries * 10) cap <<= 1;
  return cap;
}

}  // namespace

uint32_t StringIdMap::hash_of(std::string_view key) {
  const uint64_t h = std::hash<std::string_view>{}(key);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

void StringIdMap::rehash(size_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id >= 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void StringIdMap::reserve(size_t entries, size_t key_bytes) {
  arena_.reserve(arena_.size() + key_bytes);
  const size_t cap = capacity_for(size_ + entries);
  if (cap > slots_.size()) rehash(cap);
}

size_t StringIdMap::locate(std::string_view key, uint32_t hash) const {
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (true) {
    const Slot& s = slots_[i];
    if (s.id < 0) return i;
    if (s.hash == hash && s.length == key.size() &&
        (key.empty() || std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0))
      return i;
    i = (i + 1) & mask;
  }
}

bool StringIdMap::insert(std::string_view key, int32_t id) {
  if (capacity_for(size_ + 1) > slots_.size()) rehash(capacity_for((size_ + 1) * 2));
  const uint32_t h = hash_of(key);
  const size_t i = locate(key, h);
  if (slots_[i].id >= 0) return false;
  if (arena_.size() + key.size() > std::numeric_limits<uint32_t>::max())
    throw std::length_error("StringIdMap: more than 4 GiB of keys");
  slots_[i] = Slot{h, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(key.size()), id};
  arena_.append(key);
  ++size_;
  return true;
}

void StringIdMap::assign(std::string_view key, int32_t id) {
  if (!insert(key, id)) slots_[locate(key, hash_of(key))].id = id;
}

std::optional<int32_t> StringIdMap::find(std::string_view key) const {
  if (slots_.empty()) return std::nullopt;
  const Slot& s = slots_[locate(key, hash_of(key))];
  if (s.id < 0) return std::nullopt;
  return s.id;
}

}  // namespace ninfer::tokenizer
