#include "runtime/program.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
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
  input_sizes_.reserve(layout_.rows);
  logits_offsets_.reserve(layout_.rows);
  plain_rows_.reserve(layout_.rows);
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
  input_sizes_.clear();
  // Speculative rows read their input and drafts as one sequence: gathered here (grows only).
  size_t gathered = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const BatchRow& r = rows[i];
    if (r.drafts.empty()) continue;
    if (static_cast<int>(r.drafts.size()) > options_.max_draft_tokens || !r.sample ||
        !(r.draft_q.empty() || r.draft_q.size() == r.drafts.size()))
      throw std::invalid_argument("program: row " + std::to_string(i) + " has " + std::to_string(r.drafts.size()) +
                                  " drafts (K = " + std::to_string(options_.max_draft_tokens) +
                                  ", a sampled row, one q per draft or none)");
    gathered += r.input.size() + r.drafts.size();
  }
  if (row_tokens_.size() < gathered) row_tokens_.resize(gathered);
  size_t sampled = 0, at = 0;
  for (const BatchRow& r : rows) {
    std::span<const int32_t> tokens = r.input;
    if (!r.drafts.empty()) {
      int32_t* dst = row_tokens_.data() + at;
      std::copy(r.input.begin(), r.input.end(), dst);
      std::copy(r.drafts.begin(), r.drafts.end(), dst + r.input.size());
      tokens = std::span<const int32_t>(dst, r.input.size() + r.drafts.size());
      at += tokens.size();
    }
    const int logits_count = r.sample ? 1 + static_cast<int>(r.drafts.size()) : 0;
    forward_rows_.push_back(models::ForwardRow{r.slot, tokens, logits_count, r.prompt, r.layers});
    sampled += static_cast<size_t>(logits_count);
    slots_.push_back(r.slot);
    lengths_before_.push_back(model_.slot_length(r.slot));
    input_sizes_.push_back(static_cast<int>(r.input.size()));
  }
  // Masks, only for constrained rows, on the mask thread while the forward pass runs (they depend
  // on the rows' committed state and drafts, never on the logits).
  bool any_constrained = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    descriptors_[i] = RowMaskDescriptor{};
    if (provider && rows[i].sample && provider->row_constrained(static_cast<int>(i))) any_constrained = true;
  }
  double fill_s = 0;
  if (any_constrained) {
    ++provider_calls_;
    mask_thread_.start([this, rows, provider, &fill_s] {
      const auto m0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].sample || !provider->row_constrained(static_cast<int>(i))) continue;
        const int row = static_cast<int>(i);
        MaskRowSlice slice{mask_words_.data() + layout_.word_offset(row, 0),
                           mask_states_.data() + layout_.position_index(row, 0), layout_.words_per_position,
                           layout_.positions_per_row};
        descriptors_[i].enabled = true;
        descriptors_[i].extent = provider->fill_row(row, rows[i].drafts, slice);
      }
      fill_s = since(m0);
    });
  }
  auto t0 = std::chrono::steady_clock::now();
  try {
    model_.forward(forward_rows_, std::span<float>(logits_.data(), sampled * size_t(width)));
  } catch (...) {
    if (any_constrained) mask_thread_.wait_dropping_error();  // the forward's error is the one reported
    throw;
  }
  timings_.forward_s += since(t0);
  t0 = std::chrono::steady_clock::now();
  if (any_constrained) mask_thread_.wait();
  timings_.mask_exposed_s += since(t0);
  timings_.mask_s += fill_s;
  t0 = std::chrono::steady_clock::now();
  pending_.size = static_cast<int>(rows.size());
  // Rows that sample one token without drafts ("plain") are independent, and when there are several
  // they are spread over threads: the model's, lent (they have just finished the forward pass and
  // still poll for work, and each claims rows as it frees up), else the mask thread, idle now, beside
  // this one. Over a 152k vocabulary a row costs ~0.2 ms, and B=8 q8_0 decode on the 2-core Zen 5
  // took ~1.0 ms a step to sample on two threads, 0.14 of them waiting for the mask thread to wake.
  // Verification rows stay on this thread (they share chain_penalties_).
  auto plain = [&](size_t i) { return rows[i].sample && rows[i].drafts.empty(); };
  logits_offsets_.clear();
  plain_rows_.clear();
  size_t logits_row = 0;  // sampled rows' logits are consecutive
  for (size_t i = 0; i < rows.size(); ++i) {
    logits_offsets_.push_back(logits_row * size_t(width));
    if (!rows[i].sample) continue;
    logits_row += 1 + rows[i].drafts.size();
    if (plain(i)) plain_rows_.push_back(i);
  }
  auto finish_row = [&](size_t i) {
    RowResult& out = pending_.rows[i];
    out.tokens.clear();
    out.extent = descriptors_[i].extent;
    out.drafted = out.drafts_accepted = 0;
    out.draft_illegal = false;
    if (!rows[i].sample) {
      out.kind = RowResultKind::PromptChunk;
      return;
    }
    out.kind = RowResultKind::Produced;
    const float* logits = logits_.data() + logits_offsets_[i];
    if (!rows[i].drafts.empty()) {
      verify_row(i, rows[i], logits, out);
      return;
    }
    ops::MaskRow mask{nullptr, layout_.domain_size};
    if (descriptors_[i].enabled) {
      if (mask_states_[layout_.position_index(static_cast<int>(i), 0)] != PositionState::Ready) {
        out.kind = RowResultKind::ConstraintDeadEnd;
        return;
      }
      mask.words = mask_words_.data() + layout_.word_offset(static_cast<int>(i), 0);
    }
    const std::span<const float> row_logits(logits, size_t(width));
    const ops::SampleResult s = ops::sample_token(row_logits, mask, rows[i].params, rows[i].penalties,
                                                  ops::RngKey{rows[i].seed, rows[i].position, ops::RngPurpose::Sample});
    switch (s.status) {
      case ops::SampleStatus::Ok: out.tokens.push_back(s.token); break;
      case ops::SampleStatus::EmptyMask: out.kind = RowResultKind::ConstraintDeadEnd; break;
      case ops::SampleStatus::NonFiniteLogits: out.kind = RowResultKind::NonFiniteLogits; break;
    }
  };
  if (plain_rows_.size() >= 2 && model_.lendable_threads() >= 2) {
    std::mutex error_mu;
    std::exception_ptr error;  // the first row's that threw, reported once every row is done
    model_.lend_threads(static_cast<int>(plain_rows_.size()), [&](int k) {
      try {
        finish_row(plain_rows_[static_cast<size_t>(k)]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
    });
    if (error) std::rethrow_exception(error);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!plain(i)) finish_row(i);
    }
  } else {
    const size_t helper_from = plain_rows_.size() >= 2 ? plain_rows_.size() / 2 : plain_rows_.size();
    const bool helped = helper_from < plain_rows_.size();
    if (helped) {
      mask_thread_.start([&] {
        for (size_t k = helper_from; k < plain_rows_.size(); ++k) finish_row(plain_rows_[k]);
      });
    }
    try {
      for (size_t i = 0, next_helped = helper_from; i < rows.size(); ++i) {
        if (helped && next_helped < plain_rows_.size() && plain_rows_[next_helped] == i) {
          ++next_helped;  // the mask thread's
          continue;
        }
        finish_row(i);
      }
    } catch (...) {
      if (helped) mask_thread_.wait_dropping_error();  // this thread's error is the one reported
      throw;
    }
    if (helped) mask_thread_.wait();
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
  // The CPU backend appended this step's inputs (and drafts) during forward; the last committed token
  // becomes the next input, so a speculative row keeps its input and the committed tokens before
  // the last, which are accepted drafts. Without drafts there is nothing to truncate; a failed row's
  // slot is released by the Engine.
  for (int i = 0; i < pending_.size; ++i) {
    if (pending_.rows[i].drafted == 0) continue;
    const int keep = lengths_before_[i] + input_sizes_[i] + std::max(accepted[i] - 1, 0);
    model_.truncate_slot(slots_[i], keep);
  }
  pending_.open = false;
}

void Program::verify_row(size_t i, const BatchRow& row, const float* logits, RowResult& out) {
  const int32_t width = model_.vocab_size();
  const int k = static_cast<int>(row.drafts.size());
  const bool constrained = descriptors_[i].enabled;
  const bool penalise = !(row.params.presence_penalty == 0.0f && row.params.frequency_penalty == 0.0f);
  if (penalise) chain_penalties_.assign(row.penalties.begin(), row.penalties.end());
  out.drafted = k;
  auto fail = [&](RowResultKind kind) {
    out.kind = kind;
    out.tokens.clear();
  };
  for (int pos = 0; pos <= k; ++pos) {
    ops::MaskRow mask{nullptr, layout_.domain_size};
    if (constrained) {
      const PositionState state = mask_states_[layout_.position_index(static_cast<int>(i), pos)];
      if (state == PositionState::Unreachable) break;  // an accepted EOS ended the language
      if (state == PositionState::DeadEnd) return fail(RowResultKind::ConstraintDeadEnd);
      mask.words = mask_words_.data() + layout_.word_offset(static_cast<int>(i), pos);
    }
    const std::span<const float> at(logits + size_t(pos) * width, size_t(width));
    const std::span<const ops::TokenCount> penalties = penalise ? std::span<const ops::TokenCount>(chain_penalties_) : row.penalties;
    const uint64_t position = row.position + static_cast<uint64_t>(pos);
    ops::SampleStatus status;
    int32_t token;
    bool accepted = false;
    if (pos == k) {  // the bonus: plain sampling after a fully accepted chain
      const ops::SampleResult r = ops::sample_token(at, mask, row.params, penalties,
                                                    ops::RngKey{row.seed, position, ops::RngPurpose::Sample});
      status = r.status;
      token = r.token;
    } else {
      const ops::DraftQ q = row.draft_q.empty() ? ops::DraftQ{} : row.draft_q[pos];
      const ops::DraftVerdict v = ops::verify_draft(at, mask, row.params, penalties, row.drafts[pos], q, row.seed, position);
      status = v.status;
      token = v.token;
      accepted = v.accepted;
    }
    if (status == ops::SampleStatus::EmptyMask) return fail(RowResultKind::ConstraintDeadEnd);
    if (status == ops::SampleStatus::NonFiniteLogits) return fail(RowResultKind::NonFiniteLogits);
    out.tokens.push_back(token);
    if (!accepted) {
      if (pos < k && mask.words != nullptr) {
        const int32_t d = row.drafts[pos];
        out.draft_illegal = d < 0 || d >= layout_.domain_size || !(mask.words[d >> 5] >> (d & 31) & 1u);
      }
      break;
    }
    ++out.drafts_accepted;
    if (penalise) {  // the next position sees the draft as generated, as plain decoding would
      auto it = std::find_if(chain_penalties_.begin(), chain_penalties_.end(),
                             [&](const ops::TokenCount& c) { return c.token == token; });
      if (it != chain_penalties_.end()) {
        ++it->count;
      } else {
        chain_penalties_.push_back({token, 1});
      }
    }
  }
}

void Program::abort() {
  if (!pending_.open) return;
  for (size_t i = 0; i < slots_.size(); ++i) model_.truncate_slot(slots_[i], lengths_before_[i]);
  pending_.open = false;
}

}  // namespace ninfer::runtime
