// A request's output state: the grammar matcher (when constrained), the incremental UTF-8 decoder and
// the constraint counters. Owned by the request; only the Engine worker advances it after submit.
//
// Transactions (the seed's table): mask lookahead accepts drafts tentatively and always rolls back;
// preview accepts the produced prefix and previews decoder/EOS/budget, becoming real only at commit
// (after Program has committed the same prefix); discard returns to the mark. Preview and lookahead
// are mutually exclusive. Everything that can fail happens in preview; commit only confirms.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <span>
#include <string>
#include <vector>

#include "grammar/matcher.h"
#include "ninfer/engine.h"
#include "runtime/contract/mask_contract.h"
#include "runtime/utf8_stream_decoder.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::runtime {

// A chat turn's thinking budget (DESIGN.md section 6): once `budget` tokens were written inside
// thinking, the next positions allow only the tokens of the close, one by one, through the same
// masks and the same preview/commit as every other token, so the close is never spliced in.
struct ThinkingBudget {
  bool starts_inside = false;        // the prompt ends inside an open thinking block
  std::string open;                  // bytes that open thinking at the start of the output ("<think>")
  std::string close;                 // the canonical close ("\n</think>\n\n")
  std::vector<int32_t> close_tokens; // its tokens
  int budget = 0;                    // thinking tokens before the close is forced
};

struct PreviewOutcome {
  bool ok = true;          // false: a produced token is illegal (an integrity failure, never a user error)
  int accepted = 0;        // produced tokens that will commit (stops after EOS and at the budget)
  bool eos = false;        // the accepted prefix ends with an EOS token that finishes the request
  std::string text;        // text the accepted prefix completes
};

class OutputSession {
 public:
  // Unconstrained: no matcher, no token-domain work.
  OutputSession(std::shared_ptr<const tokenizer::Tokenizer> tok, bool ignore_eos);
  // Constrained: a fresh matcher over a shared compiled grammar.
  OutputSession(std::shared_ptr<const tokenizer::Tokenizer> tok, std::shared_ptr<const grammar::CompiledGrammar> grammar,
                CacheOutcome cache, bool timed);

  bool constrained() const { return matcher_ != nullptr; }
  int32_t mask_words() const { return matcher_ ? matcher_->mask_words() : 0; }

  // Fills the row slice along the draft chain (DESIGN.md section 7 lookahead) and rolls back.
  // Returns the extent written (drafts.size() + 1).
  int lookahead(std::span<const int32_t> drafts, const MaskRowSlice& out);
  // Mask of the committed frontier only; false when it is empty.
  bool initial_mask_nonempty();
  // The bytes every continuation of the committed output starts with (jump-forward; empty when
  // unconstrained, when there is a choice, or when the output may end here).
  std::string forced_bytes(size_t max_bytes);

  // Drafting under the constraint (a draft model's chain): from the committed frontier followed by
  // `pending` (drafts already proposed), masks of the next draft and tentative accepts; end_draft()
  // returns to the frontier. Like lookahead, never while a preview is open. begin_draft is false
  // (and nothing is open) when a pending token is refused.
  bool begin_draft(std::span<const int32_t> pending);
  bool draft_mask(uint32_t* words);  // false: no legal token (or the language ended)
  bool draft_accept(int32_t token);
  void end_draft();

  PreviewOutcome preview(std::span<const int32_t> produced, int budget_left);
  void commit();
  void discard();
  bool preview_open() const { return preview_open_; }

  // Text published by commits and not yet taken.
  std::string take_published();
  // Final flush (held incomplete UTF-8 becomes U+FFFD).
  std::string finish_text();

  // What the constraint expects at the committed frontier and the rules open there, for the
  // message of a request that reached a dead end (no token can write what is expected).
  std::string explain_dead_end();

  // Chat prompts: the thinking budget (constrained sessions only; the grammar frames thinking).
  void set_thinking_budget(ThinkingBudget budget);
  // ContinueFinalAssistant: the matcher consumes the existing body bytes of the continued message,
  // which are part of the prompt and never published. False when the constraint rejects them (the
  // matcher is then left unchanged); explain_prefix_rejection says why.
  bool start_after(std::string_view prefix);
  std::string explain_prefix_rejection(std::string_view prefix);
  int thinking_tokens() const { return think_.tokens; }

  ConstraintReport report() const;
  void add_prepare_cpu(double s) { report_.prepare_cpu_s += s; }
  void set_ignored_keywords(std::vector<std::string> pointers, std::vector<SuspectedTypo> typos) {
    report_.ignored_keywords = std::move(pointers);
    report_.suspected_typos = std::move(typos);
  }

 private:
  std::shared_ptr<const tokenizer::Tokenizer> tok_;
  std::unique_ptr<grammar::Matcher> matcher_;
  std::vector<int32_t> eos_ids_;
  bool ignore_eos_ = false;
  Utf8StreamDecoder decoder_;
  std::string published_;
  std::optional<grammar::Matcher::Checkpoint> draft_mark_;  // set between begin_draft and end_draft
  // Preview state, confirmed by commit.
  bool preview_open_ = false;
  std::string preview_held_;
  std::string preview_text_;
  bool preview_branch_content_ = false;
  ConstraintReport report_;

  // Where the output is relative to the thinking block, advanced token by token.
  struct ThinkState {
    enum Phase : uint8_t { Before, Inside, Done } phase = Done;
    int tokens = 0;      // tokens written inside thinking
    int forced = 0;      // close tokens written since the budget was reached
    std::string tail;    // recent bytes of the current phase (open / close detection)
  };
  std::optional<ThinkingBudget> budget_;
  ThinkState think_, preview_think_;
  void advance(ThinkState& st, int32_t token) const;
  // The token the budget forces at this state, or -1.
  int32_t forced_token(const ThinkState& st) const;

  bool is_eos(int32_t id) const;
  double* timing(double ConstraintReport::*field) { return report_.timed ? &(report_.*field) : nullptr; }
};

}  // namespace ninfer::runtime
