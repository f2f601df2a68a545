// The matcher's transaction protocol (mark/rollback, preview/commit/discard), EOS and
// termination, forced bytes, and whole-token terminals (Token / ExcludeToken) with control tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.h"

namespace ninfer::grammar {
namespace {

using testing::compile_gbnf;
using testing::make_domain;
using testing::mask_bit;

std::vector<uint32_t> mask_of(Matcher& m) {
  std::vector<uint32_t> w(m.mask_words(), 0xFFFFFFFFu);
  m.fill_mask(w.data());
  return w;
}

std::set<int32_t> allowed_set(Matcher& m) {
  const auto w = mask_of(m);
  std::set<int32_t> out;
  for (int32_t id = 0; id < m.grammar().domain().size(); ++id)
    if (mask_bit(w, id)) out.insert(id);
  return out;
}

// Everything observable about a matcher position.
struct Snapshot {
  std::vector<uint32_t> mask;
  bool can_end = false;
  bool terminated = false;
  size_t steps = 0;
  std::string forced;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snap(Matcher& m) { return {mask_of(m), m.can_end(), m.terminated(), m.num_steps(), m.forced_bytes()}; }

// A grammar with nesting, repetition and several rules, and a vocabulary whose tokens cross rule
// boundaries, so that random token walks of any length stay inside the language.
const char* kListGrammar = R"g(root ::= item*
item ::= word " " | num "," | "(" item* ")" | str
word ::= [a-z]+
num ::= [0-9]+
str ::= "\"" [a-z ]* "\"")g";

std::vector<std::string> list_tokens() {
  return {"a", "b", "ab", "ba", " ", "a ", "b (", "1", "12", ",", "1,", "(", ")", "((", "))", ") ", "a)", "\"",
          "\"a", "a\"", " \"", "\"(", "x", "(a", "2,(", "z ", "\"\"", "9"};
}

TEST(MatcherTransactions, LookaheadLeavesNoTrace) {
  auto d = make_domain(list_tokens());
  Matcher m(compile_gbnf(kListGrammar, d));
  ASSERT_TRUE(m.accept_token(12));  // "("
  ASSERT_TRUE(m.accept_token(1));   // "a"
  const Snapshot before = snap(m);
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    const auto cp = m.mark();
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < n; ++k) {
      auto allowed = allowed_set(m);
      allowed.erase(0);
      ASSERT_FALSE(allowed.empty());
      auto it = allowed.begin();
      std::advance(it, rng() % allowed.size());
      ASSERT_TRUE(m.accept_token(*it));
      (void)m.forced_bytes();
      (void)m.is_allowed(static_cast<int32_t>(rng() % d->size()));
    }
    if (round % 5 == 0 && m.can_end()) {
      ASSERT_TRUE(m.accept_token(0));  // even a terminated lookahead
    }
    if (round % 2) {
      m.rollback(cp);
    } else {
      m.rollback_steps(m.num_steps() - cp.steps);
    }
    ASSERT_EQ(snap(m), before) << "round " << round;
  }
  // Nested marks.
  const auto outer = m.mark();
  ASSERT_TRUE(m.accept_token(5));  // " "
  const Snapshot mid = snap(m);
  const auto inner = m.mark();
  ASSERT_TRUE(m.accept_token(12));
  ASSERT_TRUE(m.accept_token(13));  // ")"
  m.rollback(inner);
  EXPECT_EQ(snap(m), mid);
  ASSERT_TRUE(m.accept_token(8));  // "1"
  m.rollback(outer);
  EXPECT_EQ(snap(m), before);
  // Rolling back to a mark at or past the present is a no-op.
  m.rollback(m.mark());
  m.rollback({m.num_steps() + 5});
  EXPECT_EQ(snap(m), before);
}

TEST(MatcherTransactions, LongRunRollbackMatchesFreshMatcher) {
  auto d = make_domain(list_tokens());
  auto cg = compile_gbnf(kListGrammar, d);
  Matcher m(cg);
  std::mt19937 rng(2024);
  std::vector<int32_t> tokens;
  const std::vector<size_t> marks{0, 1, 2, 7, 100, 555, 999, 1500, 1998, 1999, 2000};
  std::vector<Snapshot> at_mark;
  for (size_t step = 0; step <= 2000; ++step) {
    if (std::find(marks.begin(), marks.end(), step) != marks.end()) at_mark.push_back(snap(m));
    if (step == 2000) break;
    auto allowed = allowed_set(m);
    allowed.erase(0);
    ASSERT_FALSE(allowed.empty()) << "step " << step;
    auto it = allowed.begin();
    std::advance(it, rng() % allowed.size());
    ASSERT_TRUE(m.accept_token(*it));
    tokens.push_back(*it);
  }
  ASSERT_EQ(m.num_steps(), 2000u);
  {
    // The walk really went somewhere: long text with nested groups.
    std::string text;
    for (int32_t t : tokens) text += d->bytes(t);
    int depth = 0, max_depth = 0;
    for (char ch : text) {
      depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
      max_depth = std::max(max_depth, depth);
    }
    EXPECT_GT(text.size(), 3000u);
    EXPECT_GE(max_depth, 3);
    std::printf("[transactions] 2000-token walk: %zu bytes, max nesting %d\n", text.size(), max_depth);
  }
  for (size_t i = marks.size(); i-- > 0;) {
    m.rollback({marks[i]});
    ASSERT_EQ(m.num_steps(), marks[i]);
    const Snapshot now = snap(m);
    EXPECT_EQ(now, at_mark[i]) << "after rollback to " << marks[i];
    Matcher fresh(cg);
    for (size_t k = 0; k < marks[i]; ++k) ASSERT_TRUE(fresh.accept_token(tokens[k]));
    EXPECT_EQ(snap(fresh), now) << "fresh matcher fed " << marks[i] << " tokens";
  }
  // Replaying the same tokens after a full rollback reaches the same state again.
  for (int32_t t : tokens) ASSERT_TRUE(m.accept_token(t));
  EXPECT_EQ(snap(m), at_mark.back());
  // Jump back into the middle and diverge; the state must match a fresh matcher on the new path.
  m.rollback({777});
  std::vector<int32_t> path(tokens.begin(), tokens.begin() + 777);
  for (int k = 0; k < 300; ++k) {
    auto allowed = allowed_set(m);
    allowed.erase(0);
    auto it = allowed.begin();
    std::advance(it, (rng() + 1) % allowed.size());
    ASSERT_TRUE(m.accept_token(*it));
    path.push_back(*it);
  }
  Matcher fresh(cg);
  for (int32_t t : path) ASSERT_TRUE(fresh.accept_token(t));
  EXPECT_EQ(snap(fresh), snap(m));
}

TEST(MatcherTransactions, PreviewDiscardCommit) {
  auto d = make_domain(list_tokens());
  auto cg = compile_gbnf(kListGrammar, d);
  Matcher m(cg);
  ASSERT_TRUE(m.accept_token(1));  // "a"
  const Snapshot before = snap(m);

  // Preview then discard.
  const std::vector<int32_t> good{5, 12, 9, 10, 13};  // " " "(" "12" "," ")"
  ASSERT_TRUE(m.preview(good));
  EXPECT_TRUE(m.preview_open());
  EXPECT_EQ(m.num_steps(), before.steps + good.size());
  m.discard();
  EXPECT_FALSE(m.preview_open());
  EXPECT_EQ(snap(m), before);

  // Preview then commit: same as accepting the tokens one by one.
  ASSERT_TRUE(m.preview(good));
  m.commit();
  EXPECT_FALSE(m.preview_open());
  Matcher fresh(cg);
  ASSERT_TRUE(fresh.accept_token(1));
  for (int32_t t : good) ASSERT_TRUE(fresh.accept_token(t));
  EXPECT_EQ(snap(m), snap(fresh));
  const Snapshot committed = snap(m);
  m.discard();  // nothing open: no effect
  EXPECT_EQ(snap(m), committed);

  // A failing preview changes nothing (all or nothing), wherever the bad token sits: ") " is
  // invalid at every point of "a (12," when the matcher starts at the top level.
  for (size_t bad_at = 0; bad_at <= 5; ++bad_at) {
    std::vector<int32_t> toks{1, 5, 12, 9, 10};  // "a" " " "(" "12" ","
    toks.insert(toks.begin() + static_cast<std::ptrdiff_t>(bad_at), 16);
    EXPECT_FALSE(m.preview(toks)) << bad_at;
    EXPECT_FALSE(m.preview_open());
    EXPECT_EQ(snap(m), committed) << bad_at;
  }
  ASSERT_TRUE(m.preview(std::vector<int32_t>{1, 5, 12, 9, 10}));
  m.discard();
  EXPECT_FALSE(m.preview(std::vector<int32_t>{-1}));
  EXPECT_FALSE(m.preview(std::vector<int32_t>{d->size()}));
  EXPECT_EQ(snap(m), committed);

  // An empty preview is trivially fine; a preview that ends with EOS terminates until discarded.
  ASSERT_TRUE(m.preview({}));
  m.commit();
  EXPECT_EQ(snap(m), committed);
  ASSERT_TRUE(m.can_end());
  ASSERT_TRUE(m.preview(std::vector<int32_t>{0}));
  EXPECT_TRUE(m.terminated());
  m.discard();
  EXPECT_FALSE(m.terminated());
  EXPECT_EQ(snap(m), committed);
  EXPECT_FALSE(m.preview(std::vector<int32_t>{8, 0}));  // "1" cannot end: a number needs its ","
  EXPECT_EQ(snap(m), committed);
  ASSERT_TRUE(m.preview(std::vector<int32_t>{8, 10, 0}));
  m.commit();
  EXPECT_TRUE(m.terminated());
}

TEST(MatcherEos, OnlyWhereTheLanguageMayEnd) {
  // ids: 0 EOS, 1 a, 2 b, 3 c, 4 d, 5 ab, 6 cd
  auto d = make_domain({"a", "b", "c", "d", "ab", "cd"});
  Matcher m(compile_gbnf(R"g(root ::= "ab" ("cd")?)g", d));
  const std::vector<std::pair<int32_t, bool>> walk{{1, false}, {2, true}, {3, false}, {4, true}};
  EXPECT_FALSE(m.can_end());
  EXPECT_FALSE(mask_bit(mask_of(m), 0));
  EXPECT_FALSE(m.is_allowed(0));
  EXPECT_FALSE(m.accept_token(0));
  for (auto [tok, may_end] : walk) {
    ASSERT_TRUE(m.accept_token(tok));
    EXPECT_EQ(m.can_end(), may_end);
    EXPECT_EQ(mask_bit(mask_of(m), 0), may_end);
    EXPECT_EQ(m.is_allowed(0), may_end);
    if (!may_end) {
      EXPECT_FALSE(m.accept_token(0));
    }
  }
  ASSERT_TRUE(m.accept_token(0));
  EXPECT_TRUE(m.terminated());
}

TEST(MatcherEos, DigitsAllowEndAndMoreDigits) {
  // ids: 0 EOS, 1 "1", 2 "2", 3 "12", 4 "a"
  auto d = make_domain({"1", "2", "12", "a"});
  Matcher m(compile_gbnf("root ::= [0-9]+", d));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{1, 2, 3}));
  ASSERT_TRUE(m.accept_token(1));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(m.can_end());
  EXPECT_TRUE(m.is_allowed(0));
  EXPECT_TRUE(m.is_allowed(3));
  EXPECT_FALSE(m.is_allowed(4));
}

TEST(MatcherEos, TerminatedAcceptsNothing) {
  auto d = make_domain({"1", "2", "12", "a"});
  Matcher m(compile_gbnf("root ::= [0-9]+", d));
  ASSERT_TRUE(m.accept_token(3));
  const Snapshot live = snap(m);
  ASSERT_TRUE(m.accept_token(0));
  EXPECT_TRUE(m.terminated());
  EXPECT_EQ(m.num_steps(), 2u);
  EXPECT_FALSE(m.can_end());
  for (int32_t id = -1; id <= d->size(); ++id) {
    EXPECT_FALSE(m.is_allowed(id)) << id;
    EXPECT_FALSE(m.accept_token(id)) << id;
  }
  EXPECT_FALSE(m.accept_bytes("1"));
  EXPECT_FALSE(m.accept_bytes(""));
  const auto w = mask_of(m);  // pre-filled with ones: every bit, inside and past the vocabulary, cleared
  for (uint32_t word : w) EXPECT_EQ(word, 0u);
  EXPECT_EQ(m.forced_bytes(), "");
  EXPECT_FALSE(m.preview(std::vector<int32_t>{1}));
  EXPECT_EQ(m.num_steps(), 2u);
  m.rollback_steps(1);
  EXPECT_FALSE(m.terminated());
  EXPECT_EQ(snap(m), live);
}

TEST(MatcherEos, MaskBitsPastTheVocabularyAreCleared) {
  auto d = make_domain({"1", "2"});  // 3 ids: one word, bits 3..31 unused
  Matcher m(compile_gbnf("root ::= [0-9]*", d));
  const auto w = mask_of(m);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], 0b111u);
}

TEST(MatcherForced, ForcedBytes) {
  auto d = make_domain({"a", "b", "c", "1", "abc"});
  {
    Matcher m(compile_gbnf(R"g(root ::= "abc" [0-9])g", d));
    const auto mask = mask_of(m);
    EXPECT_EQ(m.forced_bytes(), "abc");
    EXPECT_EQ(m.forced_bytes(2), "ab");
    EXPECT_EQ(mask_of(m), mask) << "forced_bytes must not change the state";
    EXPECT_EQ(m.num_steps(), 0u);
    ASSERT_TRUE(m.accept_bytes("abc"));
    EXPECT_EQ(m.forced_bytes(), "") << "a choice of digits";
    ASSERT_TRUE(m.accept_token(4));
    EXPECT_TRUE(m.can_end());
    EXPECT_EQ(m.forced_bytes(), "") << "the language ends here";
  }
  {
    Matcher m(compile_gbnf(R"g(root ::= "ab" | "ac")g", d));
    EXPECT_EQ(m.forced_bytes(), "a");  // every continuation starts with "a"
    ASSERT_TRUE(m.accept_token(1));
    EXPECT_EQ(m.forced_bytes(), "");
  }
  {
    Matcher m(compile_gbnf(R"g(root ::= "a" "b"?)g", d));
    EXPECT_EQ(m.forced_bytes(), "a");
    ASSERT_TRUE(m.accept_token(1));
    EXPECT_EQ(m.forced_bytes(), "") << "may end or continue with b";
  }
  {
    // Across rules, through a nullable-free chain.
    Matcher m(compile_gbnf("root ::= \"x\" y \"z\" [0-9]\ny ::= \"yy\" w\nw ::= \"-\"", d));
    EXPECT_EQ(m.forced_bytes(), "xyy-z");
    const std::string f = m.forced_bytes();
    ASSERT_TRUE(m.accept_bytes(f));
    EXPECT_EQ(m.forced_bytes(), "");
  }
  {
    // Multi-byte: one scalar, then a class whose members share their first byte.
    Matcher m(compile_gbnf(R"g(root ::= "é" [é-ê] "!")g", d));
    EXPECT_EQ(m.forced_bytes(), "\xC3\xA9\xC3");
    ASSERT_TRUE(m.accept_bytes("\xC3\xA9\xC3\xAA"));
    EXPECT_EQ(m.forced_bytes(), "!");
  }
  {
    // Left recursion with a forced head.
    Matcher m(compile_gbnf(R"g(root ::= root "+" "1" | "1")g", d));
    EXPECT_EQ(m.forced_bytes(), "1");
    ASSERT_TRUE(m.accept_bytes("1"));
    EXPECT_EQ(m.forced_bytes(), "");
    ASSERT_TRUE(m.accept_bytes("+"));
    EXPECT_EQ(m.forced_bytes(), "1");
  }
}

// Vocabulary with control tokens: 0 EOS, 1 a control token, 2..6 normal text (6 has the same
// bytes as the control token), 7 empty (never generable), 8 explicitly not generable.
std::shared_ptr<const TokenDomain> control_domain() {
  std::vector<std::string> bytes{"</s>", "<|tool|>", "a", "b", "ab", "<", "<|tool|>", "", "x"};
  std::vector<TokenClass> cls{TokenClass::Control, TokenClass::Control, TokenClass::Normal,
                              TokenClass::Normal,  TokenClass::Normal,  TokenClass::Normal,
                              TokenClass::Normal,  TokenClass::Normal,  TokenClass::NotGenerable};
  return std::make_shared<TokenDomain>(std::move(bytes), std::move(cls), std::vector<int32_t>{0});
}

// Mask, is_allowed and accept_token (with undo) agree with each other.
void expect_consistent(Matcher& m) {
  const auto w = mask_of(m);
  for (int32_t id = 0; id < m.grammar().domain().size(); ++id) {
    EXPECT_EQ(m.is_allowed(id), mask_bit(w, id)) << id;
    const bool ok = m.accept_token(id);
    EXPECT_EQ(ok, mask_bit(w, id)) << id;
    if (ok) m.rollback_steps(1);
  }
  EXPECT_EQ(mask_of(m), w);
}

TEST(MatcherTokens, TokenTerminalAdmitsOnlyThatId) {
  auto d = control_domain();
  Matcher m(compile_gbnf(R"g(root ::= "a" Token(1) "b")g", d));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{2}));
  expect_consistent(m);
  ASSERT_TRUE(m.accept_token(2));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{1})) << "the text token with the same bytes is not the control token";
  expect_consistent(m);
  EXPECT_FALSE(m.accept_bytes("<|tool|>"));
  EXPECT_EQ(m.forced_bytes(), "") << "a token edge is not expressible as bytes";
  ASSERT_TRUE(m.accept_token(1));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{3}));
  expect_consistent(m);
  ASSERT_TRUE(m.accept_token(3));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{0}));
  expect_consistent(m);
}

TEST(MatcherTokens, LlamaTokenSyntaxAndAlternatives) {
  auto d = control_domain();
  {
    Matcher m(compile_gbnf(R"g(root ::= <[1]> | !<[2]>)g", d));
    EXPECT_EQ(allowed_set(m), (std::set<int32_t>{1, 3, 4, 5, 6}));
    expect_consistent(m);
    ASSERT_TRUE(m.accept_token(4));  // "ab" as one whole token
    EXPECT_EQ(allowed_set(m), (std::set<int32_t>{0}));
  }
  {
    Matcher m(compile_gbnf(R"g(root ::= (Token(1) | "a") "b")g", d));
    EXPECT_EQ(allowed_set(m), (std::set<int32_t>{1, 2, 4}));
    expect_consistent(m);
    ASSERT_TRUE(m.accept_token(1));
    EXPECT_EQ(allowed_set(m), (std::set<int32_t>{3}));
  }
}

TEST(MatcherTokens, ExcludeTokenIsAnyOtherNormalToken) {
  auto d = control_domain();
  Matcher m(compile_gbnf(R"g(root ::= ExcludeToken(2, 5) "b")g", d));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{3, 4, 6})) << "no control, no EOS, no non-generable, not 2 or 5";
  expect_consistent(m);
  ASSERT_TRUE(m.accept_token(4));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{3}));
  ASSERT_TRUE(m.accept_token(3));
  EXPECT_EQ(allowed_set(m), (std::set<int32_t>{0}));
}

TEST(MatcherTokens, ControlTokensNeverAllowedAsText) {
  auto d = control_domain();
  // Text that spells the control token's bytes: only the normal token 6 may produce it.
  Matcher m(compile_gbnf(R"g(root ::= [a-z<|>/]*)g", d));
  std::mt19937 rng(3);
  for (int step = 0; step < 40; ++step) {
    const auto allowed = allowed_set(m);
    EXPECT_EQ(allowed, (std::set<int32_t>{0, 2, 3, 4, 5, 6})) << step;
    expect_consistent(m);
    const int32_t pick = 2 + static_cast<int32_t>(rng() % 5);
    ASSERT_TRUE(m.accept_token(pick));
  }
  Matcher lit(compile_gbnf(R"g(root ::= "<|tool|>")g", d));
  EXPECT_EQ(allowed_set(lit), (std::set<int32_t>{5, 6}));
  EXPECT_FALSE(lit.accept_token(1));
  EXPECT_FALSE(lit.accept_token(8));
}

TEST(MatcherTokens, TokenIdsOutsideTheDomainAreRejectedAtCompileTime) {
  auto d = control_domain();
  for (const char* src : {"root ::= Token(9)", "root ::= Token(8)", "root ::= Token(7)",
                          "root ::= \"a\" ExcludeToken(2, 99)", "root ::= <[12345]>"}) {
    try {
      compile_gbnf(src, d);
      ADD_FAILURE() << src << " compiled";
    } catch (const GrammarError& e) {
      EXPECT_EQ(e.kind(), GrammarErrorKind::UnknownToken) << src << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace ninfer::grammar
