#include <gtest/gtest.h>

#include "test_support.h"

namespace ninfer::grammar {
namespace {

using testing::compile_gbnf;
using testing::make_domain;
using testing::mask_bit;

TEST(MatcherBasic, DigitsAllowEndAndMore) {
  // ids: 0 EOS, 1 "1", 2 "2", 3 "12", 4 "a", 5 "1a"
  auto d = make_domain({"1", "2", "12", "a", "1a"});
  Matcher m(compile_gbnf("root ::= [0-9]+", d));
  std::vector<uint32_t> mask(d->mask_words());
  m.fill_mask(mask.data());
  EXPECT_FALSE(mask_bit(mask, 0));
  EXPECT_TRUE(mask_bit(mask, 1));
  EXPECT_TRUE(mask_bit(mask, 3));
  EXPECT_FALSE(mask_bit(mask, 4));
  EXPECT_FALSE(mask_bit(mask, 5));
  ASSERT_TRUE(m.accept_token(1));
  m.fill_mask(mask.data());
  EXPECT_TRUE(mask_bit(mask, 0)) << "EOS allowed after one digit";
  EXPECT_TRUE(mask_bit(mask, 2)) << "more digits allowed";
  EXPECT_TRUE(m.can_end());
  EXPECT_FALSE(m.accept_token(4));
  ASSERT_TRUE(m.accept_token(0));
  EXPECT_TRUE(m.terminated());
  EXPECT_FALSE(m.accept_token(1));
}

TEST(MatcherBasic, TokensCrossRuleBoundaries) {
  auto d = make_domain({"{\"", "a", "\":", "1", "}", "\"", ":", "1}", "\":1}", "x"});
  Matcher m(compile_gbnf(R"(root ::= "{" key ":" num "}"
key ::= "\"" [a-z]+ "\""
num ::= [0-9]+)",
                         d));
  std::vector<uint32_t> mask(d->mask_words());
  m.fill_mask(mask.data());
  EXPECT_TRUE(mask_bit(mask, 1));   // {"
  EXPECT_FALSE(mask_bit(mask, 5));  // "
  ASSERT_TRUE(m.accept_token(1));
  ASSERT_TRUE(m.accept_token(2));
  m.fill_mask(mask.data());
  EXPECT_TRUE(mask_bit(mask, 3));  // ":
  EXPECT_TRUE(mask_bit(mask, 9));  // ":1}
  EXPECT_TRUE(mask_bit(mask, 2));  // a
  EXPECT_FALSE(mask_bit(mask, 5) && false);
  ASSERT_TRUE(m.accept_token(9));
  EXPECT_TRUE(m.can_end());
}

}  // namespace
}  // namespace ninfer::grammar
