// Program: owns the execution buffers of one model (logits, masks, row descriptors — all sized at
// start from max B, K and V, nothing allocated per step), runs a batch through the model and the
// sampling ops, and returns a PendingBatch that the Engine previews and then commits or aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "models/language_model.h"
#include "ops/draft_acceptance.h"
#include "ops/sampling.h"
#include "runtime/contract/mask_contract.h"
#include "runtime/mask_thread.h"

namespace ninfer::runtime {

struct ProgramOptions {
  int max_rows = 8;          // B
  int max_draft_tokens = 0;  // K
  int32_t domain_size = 0;   // V: the token domain (tokenizer ids), not the logits width
};

struct BatchRow {
  int slot = 0;
  std::span<const int32_t> input;  // tokens appended to the slot this step (prompt, or the last committed token)
  ops::SamplingParams params;
  std::span<const ops::TokenCount> penalties;
  uint64_t seed = 0;
  uint64_t position = 0;  // logical output position of the token sampled this step (RNG key)
  // false: a prompt chunk that is not the prompt's last: the model reads it, nothing is sampled and
  // the row's result is PromptChunk (no logits are computed for it, no mask is asked for).
  bool sample = true;
  bool prompt = false;  // input is prompt tokens (models::ForwardRow::prompt)
  int layers = 0;       // a prompt row's layers this step (models::ForwardRow::layers; 0: the rest)
  // Speculative rows: up to K draft tokens that follow `input`, verified in this step's forward (K+1
  // positions: the token after `input`, then one after each draft), with the q that produced each
  // (empty: all one-hot; else one per draft). DESIGN.md section 7.
  std::span<const int32_t> drafts;
  std::span<const ops::DraftQ> draft_q;
};

enum class RowResultKind {
  Produced,           // tokens holds the produced prefix (one token without drafts)
  ConstraintDeadEnd,  // the verified position has no legal token: commits zero tokens, fails alone
  NonFiniteLogits,    // a legal token's logit is NaN/inf: commits zero tokens, fails alone
  PromptChunk,        // BatchRow::sample was false: the input is in the slot, nothing was produced
};

struct RowResult {
  RowResultKind kind = RowResultKind::Produced;
  // Produced: the accepted drafts, then the residual draw that replaced the first rejected one or
  // the bonus after a fully accepted chain (a chain ended by an accepted EOS stops there). Capacity
  // K+1, reserved at start.
  std::vector<int32_t> tokens;
  int extent = 0;          // mask positions written for this row (0 = unconstrained)
  int drafted = 0;         // drafts proposed for this step
  int drafts_accepted = 0; // of them, accepted
  bool draft_illegal = false;  // the rejected draft was one the mask forbade
};

// The result of one decode call, consumed by exactly one commit() or abort().
struct PendingBatch {
  std::vector<RowResult> rows;  // capacity B, reserved at start
  int size = 0;
  bool open = false;
};

class Program {
 public:
  Program(models::LanguageModel& model, ProgramOptions options);

  const MaskLayout& mask_layout() const { return layout_; }

  // Runs the rows' forward pass, asks `provider` for the masks of constrained rows on the mask
  // thread meanwhile (a batch with no constrained row passes nullptr and no mask is touched),
  // samples every row, and returns the pending result. Throws std::invalid_argument for more rows than B or an open PendingBatch.
  PendingBatch& decode(std::span<const BatchRow> rows, MaskProvider* provider);

  // Commits `accepted[i]` produced tokens of row i (the Engine's preview decides; 0 for a failed
  // row, whose slot is released). A speculative row's slot keeps its input and the drafts among the
  // committed tokens but the last (which is the next step's input).
  void commit(std::span<const int> accepted);
  // Undoes the pending batch: every slot returns to its length before decode().
  void abort();

  uint64_t provider_calls() const { return provider_calls_; }
  // Cumulative wall seconds of the three parts of decode (observability for benches and metrics).
  // mask_s is the mask thread's fill time, mask_exposed_s what the worker waited for it after the
  // forward pass (the part the forward did not cover).
  struct Timings {
    double forward_s = 0, mask_s = 0, mask_exposed_s = 0, sample_s = 0;
  };
  const Timings& timings() const { return timings_; }

 private:
  models::LanguageModel& model_;
  ProgramOptions options_;
  MaskLayout layout_;
  std::vector<uint32_t> mask_words_;
  std::vector<PositionState> mask_states_;
  std::vector<RowMaskDescriptor> descriptors_;
  std::vector<float> logits_;
  std::vector<models::ForwardRow> forward_rows_;
  std::vector<int> slots_;
  std::vector<int> lengths_before_;
  std::vector<int> input_sizes_;
  std::vector<int32_t> row_tokens_;              // B x (max step input + K): input and drafts, contiguous
  std::vector<ops::TokenCount> chain_penalties_; // a row's penalties counting its accepted drafts
  std::vector<size_t> logits_offsets_;           // per row of a step: where its logits start
  std::vector<size_t> plain_rows_;               // rows sampling one token without drafts
  PendingBatch pending_;
  MaskThread mask_thread_;
  uint64_t provider_calls_ = 0;
  Timings timings_;

  // Verifies row i's drafts position by position and fills its result (DESIGN.md section 7).
  void verify_row(size_t i, const BatchRow& row, const float* logits, RowResult& out);
};

}  // namespace ninfer::runtime
