// The sets of keys emitted so far in open any-order objects (KeySetSpec), interned per parser:
// an Earley item of such an object carries a set id, and the parser asks the table whether a
// key may start, whether the object may close, and whether another key may still come.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_automaton.h"

namespace ninfer::grammar {

class KeySetTable {
 public:
  static constexpr uint32_t kNone = 0;  // not a set (items outside any-order objects), or "not allowed"

  explicit KeySetTable(const GrammarAutomaton& a) : a_(a), empty_(a.key_sets.size(), kNone) { entries_.push_back({}); }

  uint32_t empty_set(uint32_t spec);
  // The set once `member` (a declared key bit or kAdditionalKey) is added, or kNone when that key
  // is used already or the object could not be completed after it.
  uint32_t with(uint32_t id, int32_t member);
  bool may_close(uint32_t id) const { return entries_[id].close; }
  bool may_continue(uint32_t id) const { return entries_[id].more; }
  bool may_name(uint32_t id) const { return entries_[id].name; }  // an undeclared name may start
  size_t size() const { return entries_.size() - 1; }
  size_t memory_bytes() const;

 private:
  struct Entry {
    uint32_t spec = 0;
    uint32_t words_at = 0;  // offset of the key bits in words_
    uint64_t count = 0;     // members so far (only when the spec counts; capped where bounds stop telling counts apart)
    bool close = false, more = false, name = false;
  };
  const GrammarAutomaton& a_;
  std::vector<Entry> entries_;
  std::vector<uint64_t> words_;
  std::vector<uint32_t> empty_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash_;
  std::unordered_map<uint64_t, uint32_t> with_;  // (id, member) -> result
  std::vector<uint64_t> scratch_;

  // Interns (spec, bits, count); kNone when the object could not be completed from there.
  uint32_t intern(uint32_t spec, const std::vector<uint64_t>& bits, uint64_t count);
};

}  // namespace ninfer::grammar
