// The model-free proposers: prompt lookup (longest suffix first, latest occurrence, across the
// prompt / output / pending boundary, bounded) and the constraint's forced bytes as tokens (whole
// UTF-8 characters only, bounded).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/runtime_test_support.h"
#include "speculative/draft_length.h"
#include "speculative/forced_tokens.h"
#include "speculative/ngram_proposer.h"

namespace ninfer::speculative {
namespace {

std::vector<int32_t> ngram(std::vector<int32_t> prompt, std::vector<int32_t> generated, std::vector<int32_t> pending,
                           int max_tokens, NGramOptions o = {}) {
  std::vector<int32_t> out;
  const int n = propose_ngram(prompt, generated, pending, max_tokens, o, out);
  EXPECT_EQ(n, static_cast<int>(out.size()));
  return out;
}

TEST(NGramProposer, ProposesWhatFollowedTheLatestEarlierOccurrenceOfTheLongestSuffix) {
  // Suffix "1 2": occurs at 0 (followed by 3 4) and at 5 (followed by 9 9); the latest wins.
  EXPECT_EQ(ngram({1, 2, 3, 4, 0, 1, 2, 9, 9, 7, 1, 2}, {}, {}, 3), (std::vector<int32_t>{9, 9, 7}));
  // A longer suffix beats a later shorter match: "5 1 2" only at 0..2.
  EXPECT_EQ(ngram({5, 1, 2, 8, 1, 2, 6, 5, 1, 2}, {}, {}, 2), (std::vector<int32_t>{8, 1}));
}

TEST(NGramProposer, ReadsPromptOutputAndPendingDraftsAsOneContext) {
  // The suffix "7 8" spans the output and a pending draft; its earlier occurrence is in the prompt.
  EXPECT_EQ(ngram({7, 8, 9, 10, 11}, {3, 7}, {8}, 4), (std::vector<int32_t>{9, 10, 11, 3}));
  // Proposals can run into the suffix itself (a repeating pattern).
  EXPECT_EQ(ngram({}, {4, 5, 4, 5}, {}, 3), (std::vector<int32_t>{4, 5}));
}

TEST(NGramProposer, NothingWithoutAMatchOrBudget) {
  EXPECT_TRUE(ngram({1, 2, 3, 4}, {5, 6}, {}, 4).empty());
  EXPECT_TRUE(ngram({1, 2, 1, 2}, {}, {}, 0).empty());
  EXPECT_TRUE(ngram({}, {}, {}, 4).empty());
  // min_n 3: a two-token match does not count.
  EXPECT_TRUE(ngram({1, 2, 9, 1, 2}, {}, {}, 4, NGramOptions{4, 3}).empty());
  EXPECT_EQ(ngram({1, 2, 9, 1, 2}, {}, {}, 4, NGramOptions{4, 2}), (std::vector<int32_t>{9, 1, 2}));
}

TEST(ForcedTokens, TheEncodingOfTheForcedBytesBoundedByK) {
  const auto& tok = *testing::qwen3_tokenizer();
  std::vector<int32_t> out;
  const std::string forced = "\"name\": \"";
  EXPECT_EQ(propose_forced(tok, forced, 16, out), static_cast<int>(tok.encode(forced).size()));
  EXPECT_EQ(out, tok.encode(forced));
  out.clear();
  EXPECT_EQ(propose_forced(tok, forced, 1, out), 1);
  EXPECT_EQ(out.front(), tok.encode(forced).front());
  out.clear();
  EXPECT_EQ(propose_forced(tok, "", 4, out), 0);
}

TEST(ForcedTokens, AForcedStringThatStopsInsideACharacterKeepsItsWholeCharacters) {
  const auto& tok = *testing::qwen3_tokenizer();
  const std::string word = "caf\xc3\xa9";  // "café"
  std::vector<int32_t> out;
  propose_forced(tok, word.substr(0, word.size() - 1), 8, out);  // the é's first byte only
  EXPECT_EQ(out, tok.encode("caf"));
  out.clear();
  EXPECT_EQ(propose_forced(tok, "\xc3", 8, out), 0);
}

TEST(DraftLength, AdaptsToAcceptanceWithinTheBudgetAndContext) {
  DraftLength d{4, true, 4};
  EXPECT_EQ(d.next(100, 100), 4);
  EXPECT_EQ(d.next(3, 100), 2);  // 3 tokens left: 2 drafts and the bonus
  EXPECT_EQ(d.next(100, 2), 1);  // 2 positions left: the input and one draft
  EXPECT_EQ(d.next(1, 100), 0);
  d.learn(4, 1);
  EXPECT_EQ(d.next(100, 100), 2);
  d.learn(2, 2);
  EXPECT_EQ(d.next(100, 100), 3);
  d.learn(3, 0);
  EXPECT_EQ(d.next(100, 100), 1);
  d.learn(0, 0);  // a step without drafts teaches nothing
  EXPECT_EQ(d.next(100, 100), 1);
  EXPECT_EQ(d.limit(100, 100), 4);  // forced tokens go up to K whatever the history
  EXPECT_EQ(d.limit(3, 100), 2);
  DraftLength fixed{4, false, 1};
  EXPECT_EQ(fixed.next(100, 100), 4);
}

TEST(DraftLength, LearnsTheAcceptanceOfEachDraftGivenTheOnesBeforeIt) {
  DraftLength d{4, true, 4};
  EXPECT_DOUBLE_EQ(d.accept_probability(), 0.5);
  // Chains of 4 with 2 accepted: 3 drafts evaluated (the first rejected one ends the chain), 2 accepted.
  for (int i = 0; i < 60; ++i) d.learn_acceptance(4, 2);
  EXPECT_NEAR(d.accept_probability(), 2.0 / 3.0, 1e-6);
  for (int i = 0; i < 60; ++i) d.learn_acceptance(3, 3);  // whole chains: nothing was rejected
  EXPECT_NEAR(d.accept_probability(), 1.0, 1e-6);
  for (int i = 0; i < 60; ++i) d.learn_acceptance(2, 0);
  EXPECT_NEAR(d.accept_probability(), 0.0, 1e-6);
  d.learn_acceptance(0, 0);  // a step without drafts teaches nothing
  EXPECT_NEAR(d.accept_probability(), 0.0, 1e-6);
}

TEST(DraftLength, ARowPlannedNoDraftsForLongProbesAgain) {
  DraftLength d{4, true, 4};
  for (int step = 0; step < DraftLength::kProbeEvery; ++step) {
    EXPECT_FALSE(d.probe_due());
    d.planned(3, 0);
  }
  EXPECT_TRUE(d.probe_due());
  d.planned(3, 1);
  EXPECT_FALSE(d.probe_due());
  for (int step = 0; step < 2 * DraftLength::kProbeEvery; ++step) d.planned(0, 0);  // nothing on offer
  EXPECT_FALSE(d.probe_due());
}

TEST(DraftLength, AModelProposerThatKeepsMissingSitsOutLongerAndLonger) {
  DraftLength d{4, true, 4};
  auto sat_out = [&] {
    int n = 0;
    while (!d.model_drafts_now()) ++n;
    return n;
  };
  d.learn_model(4, 0);
  EXPECT_EQ(sat_out(), 0);  // one miss: no pause yet
  d.learn_model(1, 0);
  EXPECT_EQ(sat_out(), 1);
  d.learn_model(1, 0);
  EXPECT_EQ(sat_out(), 2);
  d.learn_model(1, 0);
  EXPECT_EQ(sat_out(), 4);
  for (int i = 0; i < 10; ++i) d.learn_model(1, 0);
  EXPECT_EQ(sat_out(), 64);  // bounded
  d.learn_model(2, 1);        // a hit resets the back-off
  d.learn_model(1, 0);
  EXPECT_EQ(sat_out(), 0);
  d.learn_model(0, 0);  // nothing drafted: nothing learned
  EXPECT_EQ(sat_out(), 0);
  DraftLength fixed{4, false, 4};
  fixed.learn_model(1, 0);
  fixed.learn_model(1, 0);
  EXPECT_TRUE(fixed.model_drafts_now());
}

}  // namespace
}  // namespace ninfer::speculative
