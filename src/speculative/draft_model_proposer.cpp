#include "speculative/draft_model_proposer.h"

#include <algorithm>
#include <stdexcept>

namespace ninfer::speculative {

namespace {

constexpr int kSparseTopK = 16;

}  // namespace

DraftModelProposer::DraftModelProposer(std::shared_ptr<models::LanguageModel> draft, DraftQMode mode, int32_t domain_size)
    : draft_(std::move(draft)), mode_(mode), domain_size_(domain_size) {
  if (!draft_) throw std::invalid_argument("draft proposer: no draft model");
  if (draft_->vocab_size() < domain_size_)
    throw std::invalid_argument("draft proposer: the draft's logits (" + std::to_string(draft_->vocab_size()) +
                                ") are narrower than the token domain (" + std::to_string(domain_size_) + ")");
  held_.resize(static_cast<size_t>(draft_->slot_count()));
}

void DraftModelProposer::propose(std::span<const DraftRow> rows, std::vector<DraftResult>& out) {
  out.resize(rows.size());
  for (DraftResult& r : out) {
    r.tokens.clear();
    r.q_tokens.clear();
    r.q_probs.clear();
    r.stopped_on_non_finite = false;
  }
  const int32_t width = draft_->vocab_size();
  // Catch-up: each drafting row's slot keeps the prefix it shares with the row's context, is fed the
  // rest, and gives the logits of the first draft.
  std::vector<size_t> going;  // rows still drafting, in row order
  std::vector<std::vector<int32_t>> feed(rows.size());
  std::vector<size_t> prompt_part(rows.size(), 0);  // prompt tokens at the start of feed
  for (size_t i = 0; i < rows.size(); ++i) {
    const DraftRow& r = rows[i];
    if (r.max_tokens <= 0 || r.slot < 0 || r.slot >= static_cast<int>(held_.size())) continue;
    std::vector<int32_t> ctx;
    ctx.reserve(r.prompt.size() + r.generated.size() + r.pending.size());
    ctx.insert(ctx.end(), r.prompt.begin(), r.prompt.end());
    ctx.insert(ctx.end(), r.generated.begin(), r.generated.end());
    ctx.insert(ctx.end(), r.pending.begin(), r.pending.end());
    if (ctx.empty() || static_cast<int>(ctx.size()) > draft_->max_context()) continue;
    std::vector<int32_t>& held = held_[static_cast<size_t>(r.slot)];
    size_t common = std::min(held.size(), static_cast<size_t>(draft_->slot_length(r.slot)));
    common = static_cast<size_t>(std::mismatch(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(common), ctx.begin(),
                                               ctx.end()).first - held.begin());
    common = std::min(common, ctx.size() - 1);  // at least one token is fed, for its logits
    draft_->truncate_slot(r.slot, static_cast<int>(common));
    held.resize(common);
    feed[i].assign(ctx.begin() + static_cast<std::ptrdiff_t>(common), ctx.end());
    // Prompt positions go in as a prompt, as the target reads them (a model may compute prompt and
    // generated positions with different kernels: ForwardRow::prompt), so that a draft model equal to
    // the target proposes exactly the target's tokens.
    if (common < r.prompt.size()) prompt_part[i] = r.prompt.size() - common;
    going.push_back(i);
  }
  std::vector<models::ForwardRow> batch;
  for (size_t i : going) {
    if (prompt_part[i] > 0 && prompt_part[i] < feed[i].size())
      batch.push_back(models::ForwardRow{rows[i].slot, std::span(feed[i]).first(prompt_part[i]), 0, true});
  }
  if (!batch.empty()) {  // the prompt ends inside the catch-up: its part first, without logits
    draft_->forward(batch, {});
    for (size_t i : going) {
      if (prompt_part[i] == 0 || prompt_part[i] >= feed[i].size()) continue;
      std::vector<int32_t>& held = held_[static_cast<size_t>(rows[i].slot)];
      held.insert(held.end(), feed[i].begin(), feed[i].begin() + static_cast<std::ptrdiff_t>(prompt_part[i]));
      feed[i].erase(feed[i].begin(), feed[i].begin() + static_cast<std::ptrdiff_t>(prompt_part[i]));
      prompt_part[i] = 0;
    }
  }
  for (int step = 0; !going.empty(); ++step) {
    batch.clear();
    for (size_t i : going) {
      batch.push_back(models::ForwardRow{rows[i].slot, feed[i], 1, step == 0 && prompt_part[i] > 0});
    }
    logits_.resize(going.size() * static_cast<size_t>(width));
    draft_->forward(batch, logits_);
    std::vector<size_t> next;
    for (size_t g = 0; g < going.size(); ++g) {
      const size_t i = going[g];
      const DraftRow& r = rows[i];
      DraftResult& res = out[i];
      std::vector<int32_t>& held = held_[static_cast<size_t>(r.slot)];
      held.insert(held.end(), feed[i].begin(), feed[i].end());
      const std::span<const float> l(logits_.data() + g * static_cast<size_t>(width), static_cast<size_t>(width));
      ops::MaskRow all{nullptr, domain_size_};
      if (r.constraint) {
        mask_.resize(static_cast<size_t>(domain_size_ + 31) / 32);
        if (!r.constraint->mask(mask_.data())) continue;  // nothing legal follows: the chain ends here
        all.words = mask_.data();
      }
      const uint64_t position = r.position + static_cast<uint64_t>(res.tokens.size());
      int32_t token = -1;
      if (mode_ == DraftQMode::Sparse16 && r.params.temperature > 0.0f) {
        ops::SamplingParams p;
        p.temperature = r.params.temperature;
        p.top_k = kSparseTopK;
        if (ops::transformed_distribution(l, all, p, {}, q_) == ops::SampleStatus::Ok) {
          token = ops::sample_from(ops::DraftQ{q_.tokens, q_.probs}, ops::RngKey{r.seed, position, ops::RngPurpose::Draft});
          if (token >= 0) {
            res.q_tokens.push_back(q_.tokens);
            res.q_probs.push_back(q_.probs);
          }
        }
      } else {
        ops::SamplingParams greedy;
        greedy.temperature = 0.0f;
        const ops::SampleResult s = ops::sample_token(l, all, greedy, {}, ops::RngKey{r.seed, position, ops::RngPurpose::Draft});
        if (s.status == ops::SampleStatus::Ok) {
          token = s.token;
          res.q_tokens.emplace_back();  // one-hot
          res.q_probs.emplace_back();
        }
      }
      if (token < 0) {  // NaN / inf logits: no draft from here; the row decodes plainly
        res.stopped_on_non_finite = true;
        continue;
      }
      if (r.constraint && !r.constraint->accept(token)) {
        res.q_tokens.pop_back();
        res.q_probs.pop_back();
        continue;
      }
      res.tokens.push_back(token);
      // The draft's context must fit: it holds the row's context and every draft but the last.
      if (static_cast<int>(res.tokens.size()) < r.max_tokens && draft_->slot_length(r.slot) < draft_->max_context()) {
        feed[i].assign(1, token);
        next.push_back(i);
      }
    }
    going.swap(next);
  }
}

}  // namespace ninfer::speculative
