// Byte-level Earley recogniser over the per-rule DFAs of a GrammarAutomaton.
// The parse state is a stack of item sets, one per consumed position; pushing a position is a
// scan, popping is an exact undo, so lookahead, rollback and trie walks are truncations.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "grammar/grammar_automaton.h"

namespace ninfer::grammar {

struct EarleyItem {
  uint32_t state;
  uint32_t origin;  // set index where the item's rule started, or kRootOrigin
};

class EarleyParser {
 public:
  // Origin of the single seed item of a local parse (used by the token classifier): completing
  // an item with this origin marks the set as "root completed" instead of advancing a caller.
  static constexpr uint32_t kRootOrigin = 0xFFFFFFFFu;

  explicit EarleyParser(const GrammarAutomaton& a);

  // Start of the whole language: the augmented start item.
  void reset();
  // Start of a local parse from one DFA state (rule-local view used at compile time).
  void reset_local(uint32_t state);

  size_t num_sets() const { return set_begin_.size(); }
  bool set_empty(size_t set) const { return set_end(set) == set_begin_[set]; }
  // Scans one byte from the top set. Returns false and leaves the parser unchanged if no item survives.
  bool scan(uint8_t byte);
  // Consumes one whole token: its bytes (when `bytes_path`) and any token edge that names it.
  // On failure the parser is unchanged.
  bool scan_token(int32_t token, std::string_view bytes, bool bytes_path);
  void pop_to(size_t num_sets);

  bool can_end() const;                     // the whole language may end here
  bool root_completed(size_t set) const { return root_completed_[set]; }
  bool top_root_completed() const { return root_completed_.back(); }

  // Items of one set; `kernel(i)` tells whether item i arrived by scan or completion (not prediction).
  size_t set_begin(size_t set) const { return set_begin_[set]; }
  size_t set_end(size_t set) const { return set + 1 < set_begin_.size() ? set_begin_[set + 1] : items_.size(); }
  const EarleyItem& item(size_t i) const { return items_[i]; }
  bool kernel(size_t i) const { return kernel_[i]; }
  size_t top() const { return set_begin_.size() - 1; }

  // Bytes that some item of the top set can scan next.
  void next_bytes(bool out[256]) const;
  size_t memory_bytes() const;

 private:
  const GrammarAutomaton& a_;
  std::vector<EarleyItem> items_;
  std::vector<uint8_t> kernel_;
  std::vector<uint32_t> set_begin_;
  std::vector<uint8_t> root_completed_;
  // Dedup table for the set under construction: open addressing with generation stamps.
  std::vector<uint64_t> hkeys_;
  std::vector<uint32_t> hgen_;
  uint32_t gen_ = 0;

  void begin_set();
  void add(uint32_t state, uint32_t origin, bool kernel);
  void closure(size_t set);
  void grow_table();
};

}  // namespace ninfer::grammar
