// Program: mask buffers sized at start, no provider for unconstrained batches, disabled descriptors
// for unconstrained rows of a mixed batch, rows sampled on two threads drawing as alone, a dead-end
// row failing alone, abort restoring slots.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/fake_model.h"
#include "runtime/program.h"
#include "runtime/runtime_test_support.h"

namespace ninfer::runtime {
namespace {

class ScriptedProvider final : public MaskProvider {
 public:
  // allowed[row]: -2 = unconstrained, -1 = dead end, otherwise the single legal token.
  explicit ScriptedProvider(std::vector<int32_t> allowed) : allowed_(std::move(allowed)) {}
  bool row_constrained(int row) const override { return allowed_[row] != -2; }
  int fill_row(int row, std::span<const int32_t> drafts, const MaskRowSlice& out) override {
    ++fills;
    EXPECT_TRUE(drafts.empty());
    std::fill(out.words, out.words + out.words_per_position, 0u);
    if (allowed_[row] == -1) {
      out.states[0] = PositionState::DeadEnd;
    } else {
      out.words[allowed_[row] >> 5] |= 1u << (allowed_[row] & 31);
      out.states[0] = PositionState::Ready;
    }
    return 1;
  }
  int fills = 0;

 private:
  std::vector<int32_t> allowed_;
};

TEST(Program, SizesMasksFromTheTokenDomainNotTheLogitsWidth) {
  testing::FakeModel model(testing::qwen3_tokenizer(), 4, 64, /*padding=*/40);
  Program p(model, ProgramOptions{4, 3, testing::qwen3_tokenizer()->vocab_size()});
  EXPECT_EQ(p.mask_layout().words_per_position, (testing::qwen3_tokenizer()->vocab_size() + 31) / 32);
  EXPECT_EQ(p.mask_layout().positions_per_row, 4);
  EXPECT_EQ(p.mask_layout().word_offset(1, 2), size_t(1 * 4 + 2) * p.mask_layout().words_per_position);
  EXPECT_THROW(Program(model, ProgramOptions{4, 0, model.vocab_size() + 1}), std::invalid_argument);
}

TEST(Program, UnconstrainedBatchCallsNoProviderAndMixedBatchesKeepRowsApart) {
  testing::FakeModel model(testing::qwen3_tokenizer(), 4, 64);
  const int32_t V = testing::qwen3_tokenizer()->vocab_size();
  Program p(model, ProgramOptions{4, 0, V});
  const std::vector<int32_t> prompt = {1, 2, 3};
  std::vector<BatchRow> rows(3);
  for (int i = 0; i < 3; ++i) {
    rows[i].slot = i;
    rows[i].input = prompt;
    rows[i].seed = 7;
  }
  ScriptedProvider provider({-2, -2, -2});
  PendingBatch& b = p.decode(rows, nullptr);
  EXPECT_EQ(provider.fills, 0);
  EXPECT_EQ(p.provider_calls(), 0u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(b.rows[i].kind, RowResultKind::Produced);
    ASSERT_EQ(b.rows[i].tokens.size(), 1u);
    EXPECT_LT(b.rows[i].tokens[0], V);  // never a padding column
    EXPECT_EQ(b.rows[i].extent, 0);
  }
  std::vector<int> acc(3, 1);
  p.commit(acc);

  // Mixed: row 0 unconstrained, row 1 forced to token 42, row 2 dead end.
  const std::vector<int32_t> next = {5};
  for (auto& r : rows) r.input = next;
  ScriptedProvider mixed({-2, 42, -1});
  PendingBatch& m = p.decode(rows, &mixed);
  EXPECT_EQ(mixed.fills, 2);
  EXPECT_EQ(p.provider_calls(), 1u);
  EXPECT_EQ(m.rows[0].kind, RowResultKind::Produced);
  EXPECT_EQ(m.rows[0].extent, 0);
  EXPECT_EQ(m.rows[1].kind, RowResultKind::Produced);
  EXPECT_EQ(m.rows[1].tokens, std::vector<int32_t>{42});
  EXPECT_EQ(m.rows[2].kind, RowResultKind::ConstraintDeadEnd);
  EXPECT_TRUE(m.rows[2].tokens.empty());
  std::vector<int> acc2 = {1, 1, 0};
  p.commit(acc2);
}

TEST(Program, EachRowDrawsAsItWouldAloneWhicheverThreadSamplesIt) {
  // A step's plain rows are sampled on two threads (the second half on the mask thread). A batch of
  // 7 rows (plain ones with their own seeds, a prompt chunk that samples nothing, a row forced by
  // its mask, a dead end) gives each row the result it gets decoded alone, in its own place.
  const int32_t V = testing::qwen3_tokenizer()->vocab_size();
  const std::vector<int32_t> prompt = {1, 2, 3};
  auto row = [&](int i) {
    BatchRow r;
    r.slot = i;
    r.input = prompt;
    r.seed = 100 + static_cast<uint64_t>(i);
    r.sample = i != 2;
    return r;
  };
  const std::vector<int32_t> allowed = {-2, -2, -2, 42, -2, -1, -2};
  testing::FakeModel model(testing::qwen3_tokenizer(), 7, 64);
  Program p(model, ProgramOptions{7, 0, V});
  std::vector<BatchRow> rows;
  for (int i = 0; i < 7; ++i) rows.push_back(row(i));
  ScriptedProvider provider(allowed);
  const PendingBatch& b = p.decode(rows, &provider);
  for (int i = 0; i < 7; ++i) {
    testing::FakeModel alone_model(testing::qwen3_tokenizer(), 7, 64);
    Program alone(alone_model, ProgramOptions{7, 0, V});
    const BatchRow one[] = {row(i)};
    ScriptedProvider one_provider({allowed[i]});
    const PendingBatch& a = alone.decode(one, &one_provider);
    EXPECT_EQ(b.rows[i].kind, a.rows[0].kind) << "row " << i;
    EXPECT_EQ(b.rows[i].tokens, a.rows[0].tokens) << "row " << i;
  }
  EXPECT_EQ(b.rows[2].kind, RowResultKind::PromptChunk);
  EXPECT_EQ(b.rows[3].tokens, std::vector<int32_t>{42});
  EXPECT_EQ(b.rows[5].kind, RowResultKind::ConstraintDeadEnd);
  std::vector<int32_t> drawn;
  for (int i : {0, 1, 4, 6}) drawn.insert(drawn.end(), b.rows[i].tokens.begin(), b.rows[i].tokens.end());
  std::sort(drawn.begin(), drawn.end());
  EXPECT_GT(std::unique(drawn.begin(), drawn.end()) - drawn.begin(), 1) << "the seeds should draw different tokens";
}

TEST(Program, AbortReturnsEverySlotToItsLengthBeforeDecode) {
  testing::FakeModel model(testing::qwen3_tokenizer(), 2, 64);
  Program p(model, ProgramOptions{2, 0, testing::qwen3_tokenizer()->vocab_size()});
  const std::vector<int32_t> a = {1, 2, 3, 4}, b = {9};
  std::vector<BatchRow> rows(2);
  rows[0].slot = 0, rows[0].input = a;
  rows[1].slot = 1, rows[1].input = b;
  p.decode(rows, nullptr);
  EXPECT_THROW(p.decode(rows, nullptr), std::logic_error);  // one PendingBatch at a time
  p.abort();
  EXPECT_EQ(model.slot_length(0), 0);
  EXPECT_EQ(model.slot_length(1), 0);
  p.decode(rows, nullptr);
  std::vector<int> bad = {2, 0};
  EXPECT_THROW(p.commit(bad), std::invalid_argument);
  std::vector<int> ok = {1, 1};
  p.commit(ok);
  EXPECT_EQ(model.slot_length(0), 4);
}

TEST(Program, NonFiniteLogitsFailTheRowNotTheBatch) {
  testing::FakeModel model(testing::qwen3_tokenizer(), 2, 64);
  model.nan_at_position = 2;  // the slot that reaches length 2 produces NaN logits
  Program p(model, ProgramOptions{2, 0, testing::qwen3_tokenizer()->vocab_size()});
  const std::vector<int32_t> a = {1, 2}, b = {9, 8, 7};
  std::vector<BatchRow> rows(2);
  rows[0].slot = 0, rows[0].input = a;
  rows[1].slot = 1, rows[1].input = b;
  PendingBatch& r = p.decode(rows, nullptr);
  EXPECT_EQ(r.rows[0].kind, RowResultKind::NonFiniteLogits);
  EXPECT_EQ(r.rows[1].kind, RowResultKind::Produced);
  p.abort();
}

}  // namespace
}  // namespace ninfer::runtime
