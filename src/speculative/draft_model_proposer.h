// The `draft` proposer: a smaller model with the same tokenizer drafts the next tokens of each row,
// in one batched forward per draft position. Two q modes (DESIGN.md section 1):
//   OneHot   greedy drafts, q a point mass (the MTP / DFlash contract);
//   Sparse16 drafts drawn from the draft's top-16 at the request's temperature, renormalised, with q
//            exactly that distribution (the DFlash2 contract); greedy requests draft greedily.
// The draft's KV cache follows the rows' accepted prefixes: each slot remembers the tokens it holds,
// and before drafting it is cut back to what they share with the row's committed context (so
// rejected drafts, and a new request in the slot, are forgotten) and fed the rest.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/language_model.h"
#include "ops/draft_acceptance.h"
#include "ops/sampling.h"

namespace ninfer::speculative {

enum class DraftQMode { OneHot, Sparse16 };

// A constrained row's grammar along its draft chain: the draft picks only legal tokens, so that its
// drafts can be accepted at all (the target verifies each one with the same mask). Implemented over
// the row's OutputSession by the Engine; the chain starts after the row's pending drafts.
class DraftConstraint {
 public:
  virtual ~DraftConstraint() = default;
  // The legal next tokens after the chain drafted so far; false when there is none.
  virtual bool mask(uint32_t* words) = 0;
  // Appends a drafted token to the chain; false when it is refused.
  virtual bool accept(int32_t token) = 0;
};

// One row's request for drafts.
struct DraftRow {
  int slot = 0;                       // the draft model's slot (the target row's slot index)
  std::span<const int32_t> prompt;    // the row's committed context: prompt,
  std::span<const int32_t> generated; // then the generated tokens,
  std::span<const int32_t> pending;   // then drafts proposed before (forced tokens), drafted after
  int max_tokens = 0;                 // drafts wanted
  ops::SamplingParams params;         // the request's (Sparse16 samples at its temperature)
  uint64_t seed = 0;
  uint64_t position = 0;              // logical output position of the first draft
  DraftConstraint* constraint = nullptr;  // constrained rows: draft only legal tokens
};

// A row's drafts and, for Sparse16, the q of each (one-hot entries have no tokens).
struct DraftResult {
  std::vector<int32_t> tokens;
  std::vector<std::vector<int32_t>> q_tokens;
  std::vector<std::vector<float>> q_probs;
  bool stopped_on_non_finite = false;  // the draft's logits went NaN/inf: drafting stopped there
};

class DraftModelProposer {
 public:
  // `domain_size`: the target's token domain (drafts are always inside it).
  DraftModelProposer(std::shared_ptr<models::LanguageModel> draft, DraftQMode mode, int32_t domain_size);

  // Drafts for every row (results in row order; `out` is resized to rows.size()).
  void propose(std::span<const DraftRow> rows, std::vector<DraftResult>& out);

  models::LanguageModel& model() { return *draft_; }
  DraftQMode mode() const { return mode_; }

 private:
  std::shared_ptr<models::LanguageModel> draft_;
  DraftQMode mode_;
  int32_t domain_size_;
  std::vector<std::vector<int32_t>> held_;  // per slot: the tokens whose KV the draft holds
  std::vector<float> logits_;
  std::vector<uint32_t> mask_;
  ops::SparseDistribution q_;
};

}  // namespace ninfer::speculative
