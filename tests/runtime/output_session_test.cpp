// OutputSession transactions (the seed's table) and the lookahead rules of DESIGN.md section 7,
// checked against fresh matchers fed the same prefixes.
#include <gtest/gtest.h>

#include <algorithm>

#include "grammar/matcher.h"
#include "runtime/output_session.h"
#include "runtime/utf8_stream_decoder.h"
#include "runtime/runtime_test_support.h"
#include "text/constraint_compiler.h"

namespace ninfer::runtime {
namespace {

using testing::qwen3_domain;
using testing::qwen3_tokenizer;

std::shared_ptr<const grammar::CompiledGrammar> compile(const OutputConstraint& c) {
  return text::compile_constraint(c, qwen3_domain()).grammar;
}

int32_t tok(const std::string& s) {
  const auto ids = qwen3_tokenizer()->encode(s);
  EXPECT_EQ(ids.size(), 1u) << s;
  return ids.at(0);
}

bool bit(const uint32_t* w, int32_t t) { return w[t >> 5] >> (t & 31) & 1u; }

struct SliceBuffers {
  explicit SliceBuffers(int words, int positions)
      : words(size_t(words) * positions, 0xdeadbeef), states(positions, PositionState::Ready) {
    slice = MaskRowSlice{this->words.data(), states.data(), words, positions};
  }
  std::vector<uint32_t> words;
  std::vector<PositionState> states;
  MaskRowSlice slice;
};

std::vector<uint32_t> fresh_mask(const std::shared_ptr<const grammar::CompiledGrammar>& g, std::span<const int32_t> prefix) {
  grammar::Matcher m(g);
  for (int32_t t : prefix) EXPECT_TRUE(m.accept_token(t));
  std::vector<uint32_t> w(m.mask_words());
  m.fill_mask(w.data());
  return w;
}

TEST(Utf8StreamDecoder, HoldsIncompleteSequencesAndReplacesBrokenOnes) {
  Utf8StreamDecoder d;
  EXPECT_EQ(d.push("a\xE4"), "a");
  EXPECT_EQ(d.push("\xB8"), "");
  EXPECT_EQ(d.push("\xAD" "b"), "\xE4\xB8\xAD" "b");
  EXPECT_EQ(d.push("\xFF"), "\xEF\xBF\xBD");
  EXPECT_EQ(d.push("\xE4" "x"), "\xEF\xBF\xBD" "x");
  EXPECT_EQ(d.push("\xF0\x9F"), "");
  EXPECT_EQ(d.flush(), "\xEF\xBF\xBD");
  EXPECT_EQ(d.push("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate: never valid
}

TEST(OutputSession, LookaheadFillsTheDraftChainAndLeavesNoTrace) {
  const auto g = compile(OutputConstraint::choice({"yes", "no", "maybe"}));
  OutputSession s(qwen3_tokenizer(), g, CacheOutcome::Built, false);
  const int words = s.mask_words();
  const std::vector<int32_t> drafts = qwen3_tokenizer()->encode("maybe");
  SliceBuffers buf(words, static_cast<int>(drafts.size()) + 1);
  ASSERT_EQ(s.lookahead(drafts, buf.slice), static_cast<int>(drafts.size()) + 1);
  for (size_t i = 0; i <= drafts.size(); ++i) {
    EXPECT_EQ(buf.states[i], PositionState::Ready) << i;
    const auto expect = fresh_mask(g, std::span<const int32_t>(drafts).first(i));
    EXPECT_TRUE(std::equal(expect.begin(), expect.end(), buf.slice.position_words(static_cast<int>(i)))) << i;
  }
  // The bonus position after the full choice allows exactly EOS.
  const uint32_t* bonus = buf.slice.position_words(static_cast<int>(drafts.size()));
  for (int32_t e : qwen3_domain()->eos_ids()) EXPECT_TRUE(bit(bonus, e));
  // No trace: the committed frontier is still the start.
  EXPECT_EQ(s.report().masked_positions, drafts.size() + 1);
  const auto start = fresh_mask(g, {});
  std::vector<uint32_t> again(words);
  SliceBuffers one(words, 1);
  s.lookahead({}, one.slice);
  EXPECT_TRUE(std::equal(start.begin(), start.end(), one.slice.position_words(0)));
}

TEST(OutputSession, IllegalDraftAndEosMakeTheRestUnreachable) {
  const auto g = compile(OutputConstraint::choice({"yes", "no"}));
  OutputSession s(qwen3_tokenizer(), g, CacheOutcome::Built, false);
  const int words = s.mask_words();
  {
    const std::vector<int32_t> drafts = {tok("yes"), tok("yes"), tok("no")};
    SliceBuffers buf(words, 4);
    s.lookahead(drafts, buf.slice);
    EXPECT_EQ(buf.states[0], PositionState::Ready);
    EXPECT_EQ(buf.states[1], PositionState::Ready);  // the position where the illegal draft sits keeps its mask
    EXPECT_FALSE(bit(buf.slice.position_words(1), tok("yes")));
    EXPECT_EQ(buf.states[2], PositionState::Unreachable);
    EXPECT_EQ(buf.states[3], PositionState::Unreachable);
    for (int w = 0; w < words; ++w) EXPECT_EQ(buf.slice.position_words(3)[w], 0u);
  }
  {
    const int32_t eos = qwen3_domain()->eos_ids().front();
    const std::vector<int32_t> drafts = {tok("no"), eos, tok("no")};
    SliceBuffers buf(words, 4);
    s.lookahead(drafts, buf.slice);
    EXPECT_EQ(buf.states[0], PositionState::Ready);
    EXPECT_EQ(buf.states[1], PositionState::Ready);
    EXPECT_EQ(buf.states[2], PositionState::Unreachable);
    EXPECT_EQ(buf.states[3], PositionState::Unreachable);
  }
}

TEST(OutputSession, PreviewCommitDiscardFollowTheTransactionTable) {
  const auto g = compile(OutputConstraint::regex("[a-z]+!"));
  OutputSession s(qwen3_tokenizer(), g, CacheOutcome::Hit, true);
  const auto ids = qwen3_tokenizer()->encode("hello");
  PreviewOutcome p = s.preview(ids, 100);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.accepted, static_cast<int>(ids.size()));
  EXPECT_EQ(p.text, "hello");
  // Preview and lookahead are exclusive.
  SliceBuffers buf(s.mask_words(), 1);
  EXPECT_THROW(s.lookahead({}, buf.slice), std::logic_error);
  s.discard();
  EXPECT_EQ(s.take_published(), "");
  EXPECT_EQ(s.report().branch, "undecided");
  // After discard the frontier is the start again: the same prefix previews and commits.
  p = s.preview(ids, 100);
  ASSERT_TRUE(p.ok);
  s.commit();
  EXPECT_EQ(s.take_published(), "hello");
  EXPECT_EQ(s.report().branch, "content");
  EXPECT_FALSE(s.report().complete);
  // An illegal token fails the preview and leaves the committed state unchanged.
  p = s.preview(qwen3_tokenizer()->encode("1"), 100);
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(s.preview_open());
  p = s.preview(qwen3_tokenizer()->encode("!"), 100);
  ASSERT_TRUE(p.ok);
  s.commit();
  EXPECT_TRUE(s.report().complete);
  EXPECT_FALSE(s.report().terminated);
  const int32_t eos = qwen3_domain()->eos_ids().front();
  const std::vector<int32_t> end = {eos};
  p = s.preview(end, 100);
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(p.eos);
  EXPECT_EQ(p.text, "");
  s.commit();
  EXPECT_TRUE(s.report().terminated);
  EXPECT_GT(s.report().accept_cpu_s, 0.0);
  EXPECT_EQ(s.report().cache, CacheOutcome::Hit);
}

TEST(OutputSession, PreviewStopsAtTheBudgetAndAfterEos) {
  OutputSession s(qwen3_tokenizer(), /*ignore_eos=*/false);
  const int32_t eos = qwen3_tokenizer()->eos_ids().front();
  const std::vector<int32_t> produced = {tok("a"), eos, tok("b")};
  PreviewOutcome p = s.preview(produced, 10);
  EXPECT_EQ(p.accepted, 2);
  EXPECT_TRUE(p.eos);
  s.discard();
  p = s.preview(produced, 1);
  EXPECT_EQ(p.accepted, 1);
  EXPECT_FALSE(p.eos);
  s.commit();
  EXPECT_EQ(s.take_published(), "a");

  OutputSession keep(qwen3_tokenizer(), /*ignore_eos=*/true);
  p = keep.preview(produced, 10);
  EXPECT_EQ(p.accepted, 3);
  EXPECT_FALSE(p.eos);
  EXPECT_EQ(p.text, "ab");
}

TEST(OutputSession, PartialUtf8IsHeldAcrossTokens) {
  OutputSession s(qwen3_tokenizer(), false);
  // A byte-level BPE splits some characters across tokens: feed the bytes of "中" one token per byte.
  std::vector<int32_t> bytes;
  for (unsigned char c : std::string("\xE4\xB8\xAD")) {
    std::string one(1, static_cast<char>(c));
    // Find the single-byte token for this byte.
    for (int32_t id = 0; id < qwen3_tokenizer()->vocab_size(); ++id)
      if (qwen3_tokenizer()->token_bytes(id) == one) {
        bytes.push_back(id);
        break;
      }
  }
  ASSERT_EQ(bytes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const PreviewOutcome p = s.preview(std::span<const int32_t>(&bytes[i], 1), 10);
    EXPECT_EQ(p.text, i == 2 ? "\xE4\xB8\xAD" : "");
    s.commit();
  }
  EXPECT_EQ(s.finish_text(), "\xE4\xB8\xAD");
}

}  // namespace
}  // namespace ninfer::runtime
