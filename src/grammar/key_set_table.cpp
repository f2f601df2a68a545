#include "grammar/key_set_table.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ninfer::grammar {

uint32_t KeySetTable::empty_set(uint32_t spec) {
  if (empty_[spec] == kNone) {
    scratch_.assign(a_.key_sets[spec].required.size(), 0);
    empty_[spec] = intern(spec, scratch_, 0);
  }
  return empty_[spec];
}

uint32_t KeySetTable::with(uint32_t id, int32_t member) {
  const uint64_t key = (uint64_t(id) << 32) | static_cast<uint32_t>(member + 2);
  if (auto it = with_.find(key); it != with_.end()) return it->second;
  const Entry e = entries_[id];
  const KeySetSpec& spec = a_.key_sets[e.spec];
  const size_t nw = spec.required.size();
  scratch_.assign(words_.begin() + e.words_at, words_.begin() + e.words_at + nw);
  uint32_t result = kNone;
  bool fresh = true;
  if (member >= 0) {
    uint64_t& w = scratch_[size_t(member) / 64];
    const uint64_t bit = uint64_t(1) << (member % 64);
    fresh = !(w & bit);
    w |= bit;
  }
  if (fresh) {
    uint64_t count = e.count;
    if (spec.counts) {
      ++count;
      // Without a maximum, counts at or above the minimum behave alike.
      if (spec.max_members == ~uint64_t(0)) count = std::min<uint64_t>(count, spec.min_members);
    }
    result = intern(e.spec, scratch_, count);
  }
  with_.emplace(key, result);
  return result;
}

uint32_t KeySetTable::intern(uint32_t spec_index, const std::vector<uint64_t>& bits, uint64_t count) {
  const KeySetSpec& spec = a_.key_sets[spec_index];
  uint64_t used = 0, missing = spec.required_count;
  for (size_t i = 0; i < bits.size(); ++i) {
    used += std::popcount(bits[i]);
    missing -= std::popcount(bits[i] & spec.required[i]);
  }
  const uint64_t unused = spec.declared - used;
  // Completable: the missing required keys fit under the maximum, and (without undeclared names)
  // the unused declared keys can still reach the minimum.
  if (spec.counts) {
    if (count + missing > spec.max_members) return kNone;
    if (!spec.additional && count + unused < spec.min_members) return kNone;
  }
  uint64_t h = 1469598103934665603ull ^ (uint64_t(spec_index) << 32) ^ count;
  for (uint64_t w : bits) h = (h ^ w) * 1099511628211ull;
  auto& bucket = by_hash_[h];
  for (uint32_t id : bucket) {
    const Entry& e = entries_[id];
    if (e.spec == spec_index && e.count == count &&
        std::equal(bits.begin(), bits.end(), words_.begin() + e.words_at))
      return id;
  }
  Entry e;
  e.spec = spec_index;
  e.words_at = static_cast<uint32_t>(words_.size());
  e.count = count;
  e.close = missing == 0 && (!spec.counts || count >= spec.min_members);
  e.name = spec.additional && (!spec.counts || count + 1 + missing <= spec.max_members);
  e.more = (!spec.counts || count + 1 <= spec.max_members) && (missing > 0 || spec.additional || unused > 0);
  words_.insert(words_.end(), bits.begin(), bits.end());
  const uint32_t id = static_cast<uint32_t>(entries_.size());
  entries_.push_back(e);
  bucket.push_back(id);
  return id;
}

size_t KeySetTable::memory_bytes() const {
  return entries_.capacity() * sizeof(Entry) + words_.capacity() * 8 + with_.size() * 32 + by_hash_.size() * 48;
}

}  // namespace ninfer::grammar
