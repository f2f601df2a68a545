#include "runtime/program.h"

#include <chrono>
#include <stdexcept>
#include <string>

namespace ninfer::runtime {
namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Program::Program(models::LanguageModel& model, ProgramOptions options) : model_(model), options_(options) {
  if (options_.max_rows < 1 || options_.max_draft_tokens < 0 || options_.domain_size < 1)
    throw std::invalid_argument("program: bad capacity");
  if (options_.domain_size > model_.vocab_size())
    throw std::invalid_argument("program: token domain (" + std::to_string(options_.domain_size) +
                                ") wider than the model's logits (" + std::to_string(model_.vocab_size()) + ")");
  layout_.rows = options_.max_rows;
  layout_.positions_per_row = options_.max_draft_tokens + 1;
  layout_.words_per_position = (options_.domain_size + 31) / 32;
  layout_.domain_size = options_.domain_size;
  mask_words_.assign(layout_.total_words(), 0);
  mask_states_.assign(size_t(layout_.rows) * layout_.positions_per_row, PositionState::Unreachable);
  descriptors_.resize(layout_.rows);
  logits_.assign(size_t(layout_.rows) * layout_.positions_per_row * model_.vocab_size(), 0.0f);
  forward_rows_.reserve(layout_.rows);
  slots_.reserve(layout_.rows);
  lengths_before_.reserve(layout_.rows);
  pending_.rows.resize(layout_.rows);
  for (RowResult& r : pending_.rows) r.tokens.reserve(layout_.positions_per_row);
}

PendingBatch& Program::decode(std::span<const BatchRow> rows, MaskProvider* provider) {
  if (pending_.open) throw std::logic_error("program: decode while a PendingBatch is open");
  if (rows.empty() || static_cast<int>(rows.size()) > layout_.rows)
    throw std::invalid_argument("program: batch of " + std::to_string(rows.size()) + " rows (capacity " +
                                std::to_string(layout_.rows) + ")");
  const int32_t width = model_.vocab_size();
  forward_rows_.clear();
  slots_.clear();
  lengths_before_.clear();
  size_t sampled = 0;
  for (const BatchRow& r : rows) {
    forward_rows_.push_back(models::ForwardRow{r.slot, r.input, r.sample ? 1 : 0});
    sampled += r.sample;
    slots_.push_back(r.slot);
    lengths_before_.push_back(model_.slot_length(r.slot));
  }
  auto t0 = std::chrono::steady_clock::now();
  model_.forward(forward_rows_, std::span<float>(logits_.data(), sampled * size_t(width)));
  timings_.forward_s += since(t0);
  t0 = std::chrono::steady_clock::now();

  // Masks: filled after the forward pass (the order a GPU backend overlaps), only for constrained rows.
  bool any_constrained = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    descriptors_[i] = RowMaskDescriptor{};
    if (provider && rows[i].sample && provider->row_constrained(static_cast<int>(i))) any_constrained = true;
  }
  if (any_constrained) {
    ++provider_calls_;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].sample || !provider->row_constrained(static_cast<int>(i))) continue;
      const int row = static_cast<int>(i);
      MaskRowSlice slice{mask_words_.data() + layout_.word_offset(row, 0),
                         mask_states_.data() + layout_.position_index(row, 0), layout_.words_per_position,
                         layout_.positions_per_row};
      descriptors_[i].enabled = true;
      descriptors_[i].extent = provider->fill_row(row, {}, slice);
    }
  }

  timings_.mask_s += since(t0);
  t0 = std::chrono::steady_clock::now();
  pending_.size = static_cast<int>(rows.size());
  size_t logits_row = 0;  // sampled rows' logits are consecutive
  for (size_t i = 0; i < rows.size(); ++i) {
    RowResult& out = pending_.rows[i];
    out.tokens.clear();
    out.extent = descriptors_[i].extent;
    if (!rows[i].sample) {
      out.kind = RowResultKind::PromptChunk;
      continue;
    }
    out.kind = RowResultKind::Produced;
    const size_t this_row = logits_row++;
    ops::MaskRow mask{nullptr, layout_.domain_size};
    if (descriptors_[i].enabled) {
      if (mask_states_[layout_.position_index(static_cast<int>(i), 0)] != PositionState::Ready) {
        out.kind = RowResultKind::ConstraintDeadEnd;
        continue;
      }
      mask.words = mask_words_.data() + layout_.word_offset(static_cast<int>(i), 0);
    }
    const std::span<const float> row_logits(logits_.data() + this_row * size_t(width), size_t(width));
    const ops::SampleResult s = ops::sample_token(row_logits, mask, rows[i].params, rows[i].penalties,
                                                  ops::RngKey{rows[i].seed, rows[i].position, ops::RngPurpose::Sample});
    switch (s.status) {
      case ops::SampleStatus::Ok: out.tokens.push_back(s.token); break;
      case ops::SampleStatus::EmptyMask: out.kind = RowResultKind::ConstraintDeadEnd; break;
      case ops::SampleStatus::NonFiniteLogits: out.kind = RowResultKind::NonFiniteLogits; break;
    }
  }
  timings_.sample_s += since(t0);
  pending_.open = true;
  return pending_;
}

void Program::commit(std::span<const int> accepted) {
  if (!pending_.open) throw std::logic_error("program: commit without a PendingBatch");
  if (static_cast<int>(accepted.size()) != pending_.size) throw std::invalid_argument("program: commit size mismatch");
  for (int i = 0; i < pending_.size; ++i) {
    const RowResult& r = pending_.rows[i];
    if (accepted[i] < 0 || accepted[i] > static_cast<int>(r.tokens.size()))
      throw std::invalid_argument("program: row " + std::to_string(i) + " commits more than it produced");
  }
  // The CPU backend appended this step's inputs during forward; the produced token becomes the next
  // input. Without drafts there is nothing to truncate; a failed row's slot is released by the Engine.
  pending_.open = false;
}

void Program::abort() {
  if (!pending_.open) return;
  for (size_t i = 0; i < slots_.size(); ++i) model_.truncate_slot(slots_[i], lengths_before_[i]);
  pending_.open = false;
}

}  // namespace ninfer::runtime
