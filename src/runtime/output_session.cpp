#include "runtime/output_session.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "grammar/explain.h"
#include "runtime/cpu_clock.h"

namespace ninfer::runtime {
namespace {

bool any_bit(const uint32_t* words, int n) {
  for (int i = 0; i < n; ++i)
    if (words[i]) return true;
  return false;
}

}  // namespace

OutputSession::OutputSession(std::shared_ptr<const tokenizer::Tokenizer> tok, bool ignore_eos)
    : tok_(std::move(tok)), eos_ids_(tok_->eos_ids()), ignore_eos_(ignore_eos) {}

OutputSession::OutputSession(std::shared_ptr<const tokenizer::Tokenizer> tok,
                             std::shared_ptr<const grammar::CompiledGrammar> grammar, CacheOutcome cache, bool timed)
    : tok_(std::move(tok)), eos_ids_(grammar->domain().eos_ids()) {
  matcher_ = std::make_unique<grammar::Matcher>(std::move(grammar));
  report_.cache = cache;
  report_.timed = timed;
}

bool OutputSession::is_eos(int32_t id) const {
  return std::find(eos_ids_.begin(), eos_ids_.end(), id) != eos_ids_.end();
}

int OutputSession::lookahead(std::span<const int32_t> drafts, const MaskRowSlice& out) {
  if (!matcher_) throw std::logic_error("lookahead on an unconstrained session");
  if (preview_open_) throw std::logic_error("lookahead while a preview is open");
  if (static_cast<int>(drafts.size()) + 1 > out.max_positions) throw std::invalid_argument("more drafts than K");
  CpuSpan span(timing(&ConstraintReport::mask_cpu_s));
  const int words = matcher_->mask_words();
  const int extent = static_cast<int>(drafts.size()) + 1;
  const auto mark = matcher_->mark();
  ThinkState st;
  if (budget_) st = think_;
  int i = 0;
  for (; i < extent; ++i) {
    uint32_t* w = out.position_words(i);
    matcher_->fill_mask(w);
    ++report_.masked_positions;
    if (const int32_t f = budget_ ? forced_token(st) : -1; f >= 0 && f < words * 32 && (w[f >> 5] >> (f & 31) & 1u)) {
      // The budget is spent: the close's next token is the only choice. (When the grammar cannot
      // take it here, e.g. inside a UTF-8 sequence, thinking runs one more token.)
      std::memset(w, 0, sizeof(uint32_t) * words);
      w[f >> 5] = 1u << (f & 31);
    }
    if (!any_bit(w, words)) {
      out.states[i] = PositionState::DeadEnd;
      ++i;
      break;
    }
    out.states[i] = PositionState::Ready;
    if (i == extent - 1) {
      ++i;
      break;  // the bonus position: nothing further to accept
    }
    const int32_t d = drafts[i];
    const bool legal = d >= 0 && d < words * 32 && (w[d >> 5] >> (d & 31) & 1u);
    if (!legal || !matcher_->accept_token(d) || matcher_->terminated()) {
      ++i;
      break;  // illegal proposal or EOS: later positions are unreachable
    }
    if (budget_) advance(st, d);
  }
  for (; i < extent; ++i) {
    std::memset(out.position_words(i), 0, sizeof(uint32_t) * words);  // safe placeholder
    out.states[i] = PositionState::Unreachable;
  }
  matcher_->rollback(mark);
  return extent;
}

std::string OutputSession::forced_bytes(size_t max_bytes) {
  if (!matcher_ || preview_open_ || matcher_->terminated()) return {};
  CpuSpan span(timing(&ConstraintReport::mask_cpu_s));
  return matcher_->forced_bytes(max_bytes);
}

bool OutputSession::begin_draft(std::span<const int32_t> pending) {
  if (!matcher_) throw std::logic_error("begin_draft on an unconstrained session");
  if (preview_open_ || draft_mark_) throw std::logic_error("begin_draft while a preview or a draft is open");
  CpuSpan span(timing(&ConstraintReport::mask_cpu_s));
  const auto mark = matcher_->mark();
  for (int32_t t : pending) {
    if (matcher_->terminated() || !matcher_->accept_token(t)) {
      matcher_->rollback(mark);
      return false;
    }
  }
  draft_mark_ = mark;
  return true;
}

bool OutputSession::draft_mask(uint32_t* words) {
  if (!draft_mark_) throw std::logic_error("draft_mask without begin_draft");
  CpuSpan span(timing(&ConstraintReport::mask_cpu_s));
  if (matcher_->terminated()) return false;
  matcher_->fill_mask(words);
  ++report_.masked_positions;
  return any_bit(words, matcher_->mask_words());
}

bool OutputSession::draft_accept(int32_t token) {
  if (!draft_mark_) throw std::logic_error("draft_accept without begin_draft");
  CpuSpan span(timing(&ConstraintReport::mask_cpu_s));
  return !matcher_->terminated() && matcher_->accept_token(token);
}

void OutputSession::end_draft() {
  if (!draft_mark_) return;
  matcher_->rollback(*draft_mark_);
  draft_mark_.reset();
}

std::string OutputSession::explain_dead_end() {
  if (!matcher_) return "";
  return grammar::explanation_summary(grammar::explain_next(*matcher_));
}

bool OutputSession::initial_mask_nonempty() {
  if (!matcher_) return true;
  std::vector<uint32_t> w(matcher_->mask_words());
  matcher_->fill_mask(w.data());
  return any_bit(w.data(), static_cast<int>(w.size()));
}

PreviewOutcome OutputSession::preview(std::span<const int32_t> produced, int budget_left) {
  if (preview_open_) throw std::logic_error("preview while another preview is open");
  PreviewOutcome r;
  int n = std::min<int>(static_cast<int>(produced.size()), std::max(budget_left, 0));
  for (int i = 0; i < n; ++i)
    if (is_eos(produced[i]) && (matcher_ || !ignore_eos_)) {
      n = i + 1;  // nothing after EOS commits
      r.eos = true;
      break;
    }
  if (matcher_) {
    CpuSpan span(timing(&ConstraintReport::accept_cpu_s));
    if (!matcher_->preview(produced.first(n))) {
      r.ok = false;
      return r;
    }
  }
  // Decoder preview: special tokens (EOS, control) publish no text.
  Utf8StreamDecoder d;
  d.set_held(decoder_.held());
  std::string text;
  for (int i = 0; i < n; ++i) {
    const int32_t t = produced[i];
    if (t < 0 || t >= tok_->vocab_size() || tok_->token_kind(t) != tokenizer::TokenKind::Normal) continue;
    text += d.push(tok_->token_bytes(t));
  }
  if (budget_) {
    preview_think_ = think_;
    for (int i = 0; i < n; ++i) advance(preview_think_, produced[i]);
  }
  preview_held_ = d.held();
  preview_text_ = text;
  preview_branch_content_ = !text.empty() || !preview_held_.empty();
  preview_open_ = true;
  r.accepted = n;
  r.text = std::move(text);
  return r;
}

void OutputSession::commit() {
  if (!preview_open_) return;
  if (matcher_) matcher_->commit();
  if (budget_) think_ = std::move(preview_think_);
  decoder_.set_held(std::move(preview_held_));
  published_ += preview_text_;
  if (preview_branch_content_) report_.branch = "content";
  preview_text_.clear();
  preview_open_ = false;
}

void OutputSession::discard() {
  if (!preview_open_) return;
  CpuSpan span(timing(&ConstraintReport::accept_cpu_s));
  if (matcher_) matcher_->discard();
  preview_held_.clear();
  preview_text_.clear();
  preview_open_ = false;
}

std::string OutputSession::take_published() {
  std::string out;
  out.swap(published_);
  return out;
}

std::string OutputSession::finish_text() {
  std::string out = take_published();
  out += decoder_.flush();
  return out;
}

void OutputSession::set_thinking_budget(ThinkingBudget budget) {
  if (!matcher_) throw std::logic_error("a thinking budget needs a constrained session");
  think_ = ThinkState{};
  think_.phase = budget.starts_inside ? ThinkState::Inside : ThinkState::Before;
  budget_ = std::move(budget);
}

void OutputSession::advance(ThinkState& st, int32_t token) const {
  if (st.phase == ThinkState::Done || token < 0 || token >= tok_->vocab_size()) return;
  if (tok_->token_kind(token) != tokenizer::TokenKind::Normal) {
    if (st.phase == ThinkState::Before) st.phase = ThinkState::Done;  // a control token: no thinking came
    return;
  }
  const std::string& bytes = tok_->token_bytes(token);
  if (st.phase == ThinkState::Before) {
    st.tail += bytes;
    const std::string& open = budget_->open;
    if (st.tail.size() >= open.size() && st.tail.compare(0, open.size(), open) == 0) {
      st.tail.erase(0, open.size());
      st.phase = ThinkState::Inside;  // bytes after the open are thinking already
    } else if (open.compare(0, st.tail.size(), st.tail) != 0) {
      st.phase = ThinkState::Done;  // the output did not open thinking
      st.tail.clear();
    }
    return;
  }
  ++st.tokens;
  if (st.tokens > budget_->budget && st.forced < static_cast<int>(budget_->close_tokens.size()) &&
      token == budget_->close_tokens[st.forced])
    ++st.forced;
  st.tail += bytes;
  const std::string& close = budget_->close;
  if (st.tail.find(close) != std::string::npos) {
    st.phase = ThinkState::Done;
    st.tail.clear();
  } else if (st.tail.size() > close.size()) {
    st.tail.erase(0, st.tail.size() - close.size());
  }
}

int32_t OutputSession::forced_token(const ThinkState& st) const {
  if (st.phase != ThinkState::Inside || st.tokens < budget_->budget) return -1;
  if (st.forced >= static_cast<int>(budget_->close_tokens.size())) return -1;
  return budget_->close_tokens[st.forced];
}

bool OutputSession::start_after(std::string_view prefix) {
  if (!matcher_ || prefix.empty()) return true;
  const auto mark = matcher_->mark();
  if (matcher_->accept_bytes(prefix)) return true;
  matcher_->rollback(mark);
  return false;
}

std::string OutputSession::explain_prefix_rejection(std::string_view prefix) {
  if (!matcher_) return "";
  return grammar::explanation_summary(grammar::explain_rejection(*matcher_, prefix));
}

ConstraintReport OutputSession::report() const {
  ConstraintReport r = report_;
  if (matcher_) {
    r.terminated = matcher_->terminated();
    r.complete = r.terminated || matcher_->can_end();
  }
  return r;
}

}  // namespace ninfer::runtime
