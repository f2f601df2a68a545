// A deterministic stand-in LanguageModel for runtime tests: the real Qwen3 tokenizer, logits that
// are a pure function of (last token, position) — wider than the token domain, like a padded
// lm_head — and exact slot bookkeeping, so engine behaviour can be checked without weights.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <chrono>
#include <cstring>
#include <thread>
#include <stdexcept>
#include <vector>

#include "models/language_model.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::testing {

class FakeModel final : public models::LanguageModel {
 public:
  FakeModel(std::shared_ptr<const tokenizer::Tokenizer> tok, int slots, int max_context, int padding = 7)
      : tok_(std::move(tok)), width_(tok_->vocab_size() + padding), max_context_(max_context), slots_(slots),
        partial_(slots) {}

  int32_t vocab_size() const override { return width_; }
  int max_context() const override { return max_context_; }
  int slot_count() const override { return static_cast<int>(slots_.size()); }
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer() const override { return tok_; }
  std::string description() const override { return "fake"; }
  int slot_length(int slot) const override { return static_cast<int>(slots_.at(slot).size()); }
  int layer_count() const override { return layers; }
  void truncate_slot(int slot, int length) override {
    auto& s = slots_.at(slot);
    if (length < static_cast<int>(s.size())) s.resize(length);
    partial_.at(slot) = Partial{};
  }

  void forward(std::span<const models::ForwardRow> rows, std::span<float> logits) override {
    size_t out = 0;
    ++forward_calls;
    if (delay_per_step.count() > 0) std::this_thread::sleep_for(delay_per_step);
    // The share of the layers each row goes through this forward (ForwardRow::layers).
    auto share = [&](const models::ForwardRow& r) {
      return r.slot < 0 || r.slot >= slot_count() ? 1.0 : static_cast<double>(layers_run(r)) / layers;
    };
    if (delay_per_position.count() > 0 || delay_per_context_position.count() > 0 ||
        delay_per_chunk_context_position.count() > 0) {
      double positions = 0, chunk_context = 0;
      size_t context = 0;
      for (const models::ForwardRow& r : rows) {
        positions += static_cast<double>(r.tokens.size()) * share(r);
        if (r.slot < 0 || r.slot >= slot_count()) continue;
        if (r.logits_count > 0) context += slots_[r.slot].size();
        if (r.prompt) chunk_context += static_cast<double>(slots_[r.slot].size()) * share(r);
      }
      const double charged = positions - std::min(positions, static_cast<double>(free_positions));
      bool chunk = false;
      for (const models::ForwardRow& r : rows) chunk |= r.logits_count == 0 || r.tokens.size() > 1;
      const bool slow = chunk && slow_chunk_every > 0 && chunk_forwards++ % slow_chunk_every == slow_chunk_every - 1;
      const std::chrono::duration<double, std::micro> delay = delay_per_position * charged +
                                                              delay_per_context_position * context +
                                                              delay_per_chunk_context_position * chunk_context;
      std::this_thread::sleep_for(slow ? delay * slow_chunk_factor : delay);
    }
    if (record_forwards) forward_log.emplace_back();
    for (const models::ForwardRow& r : rows) {
      if (r.slot < 0 || r.slot >= slot_count()) throw std::invalid_argument("bad slot");
      if (r.tokens.empty()) throw std::invalid_argument("empty row");
      auto& s = slots_[r.slot];
      if (s.size() + r.tokens.size() > size_t(max_context_)) throw std::invalid_argument("past max_context");
      // Through part of the layers: the positions join the slot with the last layer (the model's rules,
      // as Qwen3Model checks them).
      Partial& p = partial_[r.slot];
      const int run = layers_run(r);
      if (record_forwards) forward_log.back().push_back({r.slot, static_cast<int>(r.tokens.size()), r.logits_count, run});
      if (p.next_layer > 0 && !(r.prompt && std::equal(r.tokens.begin(), r.tokens.end(), p.tokens.begin(), p.tokens.end())))
        throw std::invalid_argument("a chunk part of the way through the layers must come back");
      if (r.layers < 0 || p.next_layer + run > layers) throw std::invalid_argument("layers out of range");
      if (p.next_layer + run < layers) {
        if (!r.prompt || r.logits_count > 0 || &r != &rows.back()) throw std::invalid_argument("bad partial row");
        p.tokens.assign(r.tokens.begin(), r.tokens.end());
        p.next_layer += run;
        continue;
      }
      p = Partial{};
      for (size_t i = 0; i < r.tokens.size(); ++i) {
        s.push_back(r.tokens[i]);
        if (i + r.logits_count >= r.tokens.size()) {
          if ((out + 1) * width_ > logits.size()) throw std::invalid_argument("logits buffer too small");
          fill(exports_kv ? prefix_hash(s) : uint64_t(s.back()), s.size(), logits.subspan(out * width_, width_));
          ++out;
        }
      }
    }
  }

  // The prefix cache's view: a position's "KV state" is its token id, and logits depend on the whole
  // slot, so a prefix restored wrongly changes the output.
  size_t kv_bytes_per_position() const override { return exports_kv ? sizeof(int32_t) : 0; }
  void read_kv(int slot, int begin, int count, std::span<std::byte> out) const override {
    const auto& s = slots_.at(slot);
    if (begin < 0 || count < 0 || size_t(begin + count) > s.size() || out.size() < size_t(count) * 4)
      throw std::invalid_argument("read_kv out of range");
    std::memcpy(out.data(), s.data() + begin, size_t(count) * 4);
    if (record_kv_reads) kv_reads.push_back({slot, begin, count, static_cast<int>(s.size())});
  }
  void append_kv(int slot, int count, std::span<const std::byte> in) override {
    auto& s = slots_.at(slot);
    if (count < 0 || s.size() + count > size_t(max_context_) || in.size() < size_t(count) * 4)
      throw std::invalid_argument("append_kv out of range");
    const size_t at = s.size();
    s.resize(at + count);
    std::memcpy(s.data() + at, in.data(), size_t(count) * 4);
  }
  const std::vector<int32_t>& slot_tokens(int slot) const { return slots_.at(slot); }

  // Overridable per-test: NaN for one slot, a favoured token, ...
  float nan_at_position = -1;
  int forward_calls = 0;
  bool exports_kv = false;
  struct KvRead {
    int slot, begin, count, slot_length;  // slot_length: the positions the slot held then
  };
  bool record_kv_reads = false;
  mutable std::vector<KvRead> kv_reads;
  // A forward pass that takes time in proportion to its positions (for chunk sizing by cost), and a
  // fixed time per forward (a memory-bound pass that reads its weights once whatever its positions).
  std::chrono::microseconds delay_per_position{0};
  std::chrono::microseconds delay_per_step{0};
  // Positions of a forward that delay_per_position does not charge (a CPU forward of one or two
  // positions streams its weights at the same cost).
  size_t free_positions = 0;
  // And, for a row that samples (a decoding row), for every position already in its slot: its
  // attention's share, so that decode steps grow dearer as the contexts grow.
  std::chrono::microseconds delay_per_context_position{0};
  // For a prompt row, for every position already in its slot: the part of a chunk's cost that does
  // not shrink with the chunk (its attention reads the prompt's keys and values so far once, however
  // few its positions), which grows as the prompt enters.
  std::chrono::microseconds delay_per_chunk_context_position{0};
  // Every slow_chunk_every-th forward with a prompt chunk (a row of several positions or with no
  // logits) takes slow_chunk_factor times its delay: steps that miss their predicted cost.
  int slow_chunk_every = 0;
  double slow_chunk_factor = 1.0;
  int chunk_forwards = 0;
  // Layers (layer_count()); above 1, a prompt row may go through part of them a forward, and the
  // delays charge its positions by the share it goes through.
  int layers = 1;
  // Every forward's rows (slot, tokens, logits_count, the layers it went through), when asked for.
  struct LoggedRow {
    int slot, tokens, logits_count, layers;
  };
  bool record_forwards = false;
  std::vector<std::vector<LoggedRow>> forward_log;

 private:
  std::shared_ptr<const tokenizer::Tokenizer> tok_;
  int32_t width_;
  int max_context_;
  std::vector<std::vector<int32_t>> slots_;
  struct Partial {
    std::vector<int32_t> tokens;
    int next_layer = 0;
  };
  std::vector<Partial> partial_;
  // The layers row r goes through this forward (its slot in range).
  int layers_run(const models::ForwardRow& r) const {
    return r.layers > 0 ? r.layers : layers - partial_[r.slot].next_layer;
  }

  static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
  }
  static uint64_t prefix_hash(const std::vector<int32_t>& s) {
    uint64_t h = 0x243f6a8885a308d3ull;
    for (int32_t t : s) h = mix(h ^ uint32_t(t));
    return h;
  }
  void fill(uint64_t last, size_t position, std::span<float> out) const {
    const uint64_t base = mix(last * 1000003ull + position);
    for (size_t i = 0; i < out.size(); ++i) {
      const uint64_t h = mix(base ^ (i * 0x9e3779b97f4a7c15ull));
      out[i] = static_cast<float>((h >> 11) * 0x1.0p-53 * 6.0 - 3.0);
    }
    if (nan_at_position >= 0 && position == size_t(nan_at_position))
      for (float& v : out) v = std::nanf("");
  }
};

}  // namespace ninfer::testing
