// Per-request grammar state: accepts tokens or bytes, fills token masks, and supports the
// transaction protocol of the runtime (mark / rollback for lookahead, preview / commit / discard
// for output). Never shared between requests; the CompiledGrammar it reads is.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/earley_parser.h"

namespace ninfer::grammar {

struct Explanation;

class Matcher {
 public:
  explicit Matcher(std::shared_ptr<const CompiledGrammar> grammar);

  // Accepts one token (EOS only where the language may end; it then terminates the matcher).
  // Returns false and changes nothing when the token is not allowed.
  bool accept_token(int32_t id);
  // Accepts raw bytes as one step (continuation prefixes, tests). False = unchanged.
  bool accept_bytes(std::string_view bytes);

  // Writes mask_words() words: bit (id & 31) of word (id >> 5) set when token id is allowed next.
  // Bits past the vocabulary are cleared. The matcher's observable state is unchanged.
  void fill_mask(uint32_t* words);
  bool is_allowed(int32_t id);  // one token, without building a mask

  bool can_end() const;  // the language may end here (EOS allowed)
  bool terminated() const { return terminated_; }
  // Bytes every continuation must start with (jump-forward); empty when there is a choice or the
  // language may end here. Leaves the state unchanged.
  std::string forced_bytes(size_t max_bytes = 4096);

  // Steps = accepted tokens / accept_bytes calls since construction.
  size_t num_steps() const { return step_sets_.size(); }
  struct Checkpoint {
    size_t steps = 0;
  };
  Checkpoint mark() const { return {num_steps()}; }
  void rollback(Checkpoint cp);
  void rollback_steps(size_t n);

  // Output transaction: tentatively accept `tokens` (all or nothing), then commit() confirms
  // (no allocation, cannot fail) or discard() restores the state before preview().
  bool preview(std::span<const int32_t> tokens);
  void commit() noexcept { preview_open_ = false; }
  void discard();
  bool preview_open() const { return preview_open_; }

  int32_t mask_words() const { return grammar_->words(); }
  const CompiledGrammar& grammar() const { return *grammar_; }
  size_t memory_bytes() const;

 private:
  friend Explanation explain_rejection(Matcher& m, std::string_view bytes);  // explain.h: reads the parse, restores it

  std::shared_ptr<const CompiledGrammar> grammar_;
  EarleyParser parser_;
  std::vector<uint32_t> step_sets_;  // parser set count after each step
  bool terminated_ = false;
  size_t terminated_step_ = 0;       // step index of the accepted EOS when terminated_
  bool preview_open_ = false;
  Checkpoint preview_mark_;
  // Scratch reused across masks (no per-mask allocation once warm).
  std::vector<uint32_t> kernel_scratch_;
  std::vector<uint32_t> nodes_scratch_;

  void verify_uncertain(const std::vector<uint32_t>& nodes, uint32_t* words);
  // Tokens of the top set's kernel items allowed under a condition on an any-order object's keys.
  void add_conditional(size_t begin, size_t end, uint32_t* words);
  void push_step() { step_sets_.push_back(static_cast<uint32_t>(parser_.num_sets())); }
};

}  // namespace ninfer::grammar
