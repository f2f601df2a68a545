// Byte-level Earley recogniser over the per-rule DFAs of a GrammarAutomaton.
// The parse state is a stack of item sets, one per consumed position; pushing a position is a
// scan, popping is an exact undo, so lookahead, rollback and trie walks are truncations.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "grammar/grammar_automaton.h"
#include "grammar/key_set_table.h"

namespace ninfer::grammar {

// Item context: for an item of an any-order object, the id of its key set (KeySetTable) in the
// high bits. Local parses (the token classifier) seed such an item with an unknown key set and
// take each check on it as passed, recording in the taint bits which kind of check it was, so
// the classifier can tell tokens accepted whatever the keys from tokens accepted only when the
// object may close (or continue) and from tokens that need the real parse.
inline constexpr uint32_t kTaintClose = 1, kTaintMore = 2, kTaintName = 4, kTaintOther = 8, kTaintMask = 15;
inline constexpr uint32_t kUnknownKeys = 16;
inline constexpr uint32_t kCtxShift = 5;
inline uint32_t ctx_taint(uint32_t ctx) { return ctx & kTaintMask; }
inline uint32_t ctx_keys(uint32_t ctx) { return ctx >> kCtxShift; }

struct EarleyItem {
  uint32_t state;
  uint32_t origin;  // set index where the item's rule started, or kRootOrigin
  uint32_t ctx = 0;
};

class EarleyParser {
 public:
  // Origin of the single seed item of a local parse (used by the token classifier): completing
  // an item with this origin marks the set as "root completed" instead of advancing a caller.
  static constexpr uint32_t kRootOrigin = 0xFFFFFFFFu;

  explicit EarleyParser(const GrammarAutomaton& a);

  // Start of the whole language: the augmented start item.
  void reset();
  // Start of a local parse from one DFA state (rule-local view used at compile time). `entered`:
  // the state is entered by the local parse (its any-order check applies), not a kernel state.
  void reset_local(uint32_t state, bool entered = false);

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
  // Bit t set when the seed's rule completed in that set with taint t (local parses).
  uint16_t root_completed_taints(size_t set) const { return root_completed_[set]; }
  // Bit t set when the set holds an item with taint t.
  uint16_t set_taints(size_t set) const { return set_taints_[set]; }
  uint16_t top_taints() const { return set_taints_.back(); }

  // Items of one set; `kernel(i)` tells whether item i arrived by scan or completion (not prediction).
  size_t set_begin(size_t set) const { return set_begin_[set]; }
  size_t set_end(size_t set) const { return set + 1 < set_begin_.size() ? set_begin_[set + 1] : items_.size(); }
  const EarleyItem& item(size_t i) const { return items_[i]; }
  bool kernel(size_t i) const { return kernel_[i]; }
  size_t top() const { return set_begin_.size() - 1; }

  // Bytes that some item of the top set can scan next.
  void next_bytes(bool out[256]) const;
  size_t memory_bytes() const;
  KeySetTable& key_sets() { return key_sets_; }
  const KeySetTable& key_sets() const { return key_sets_; }

 private:
  const GrammarAutomaton& a_;
  KeySetTable key_sets_;
  std::vector<EarleyItem> items_;
  std::vector<uint8_t> kernel_;
  std::vector<uint32_t> set_begin_;
  std::vector<uint16_t> root_completed_;  // taint bits of the seed rule's completions (local parses)
  std::vector<uint16_t> set_taints_;
  // Dedup table for the set under construction: open addressing with generation stamps; holds
  // item indices.
  std::vector<uint32_t> hidx_;
  std::vector<uint32_t> hgen_;
  uint32_t gen_ = 0;

  static constexpr uint32_t kRejected = 0xFFFFFFFFu;
  void begin_set();
  void pop_set();
  void insert_hash(uint32_t idx);
  // Adds an item to the set under construction after the any-order checks of its state;
  // insert() skips them (a kernel seed, whose checks passed already). Duplicates are dropped.
  void add(uint32_t state, uint32_t origin, uint32_t ctx, bool kernel);
  void insert(uint32_t state, uint32_t origin, uint32_t ctx, bool kernel);
  // Context of a caller's item once the call of `rule` returns, or UINT32_MAX when the object's
  // keys forbid it; `callee` = the context of the completed item (its taint carries over).
  uint32_t after_call(uint32_t caller_state, uint32_t caller_ctx, uint32_t rule, uint32_t callee_ctx);
  // Context of an item predicted for `rule` by an item with context `ctx`, or UINT32_MAX.
  uint32_t predicted(uint32_t caller_state, uint32_t ctx, uint32_t rule);
  void closure(size_t set);
  void grow_table();
};

}  // namespace ninfer::grammar
