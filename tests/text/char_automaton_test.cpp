// CharAutomaton operations the JSON Schema compiler relies on: length bounds, intersection,
// emptiness, budgets, the canonical minimal form, and the size of what the lowering produces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/regex_lowering.h"
#include "text/regex_test_support.h"

namespace ninfer::text {
namespace {

using testing::all_strings;
using testing::chars_of;

CharAutomaton full(const char* p) { return CharAutomaton::from_regex(p, RegexMode::FullMatch); }
CharAutomaton search(const char* p) { return CharAutomaton::from_regex(p, RegexMode::Search); }
std::u32string u(const std::string& s) { return std::u32string(s.begin(), s.end()); }

bool all_lower(const std::string& s) {
  for (char c : s)
    if (c < 'a' || c > 'z') return false;
  return true;
}

TEST(CharAutomaton, PatternIntersectLengthAcceptsExactlyTwoToThreeLetters) {
  const CharAutomaton a = search("^[a-z]+$").intersect(CharAutomaton::length_between(2, 3));
  size_t n = 0;
  for (const auto& s : all_strings(chars_of("az1"), 6)) {
    EXPECT_EQ(a.accepts(u(s)), all_lower(s) && s.size() >= 2 && s.size() <= 3) << s;
    ++n;
  }
  EXPECT_GT(n, 1000u);
  // Lengths are counted in scalar values, not bytes.
  EXPECT_TRUE(search("^\\S+$").intersect(CharAutomaton::length_between(2, 2)).accepts(U"\U0001F600\u00e9"));
  // The lowered grammar agrees.
  grammar::Matcher m(testing::compile_lowered(a, Encoding::Raw, {"a", "z", "1"}));
  for (const auto& s : all_strings(chars_of("az1"), 5)) {
    const auto cp = m.mark();
    EXPECT_EQ(m.accept_bytes(s) && m.can_end(), a.accepts(u(s))) << s;
    m.rollback(cp);
  }
}

TEST(CharAutomaton, IntersectionOfTwoPatternsIsTheConjunction) {
  const CharAutomaton a = search("^[a-z0-9]{2,5}$"), b = search("\\d"), c = search("[a-z]-?[0-9]");
  const CharAutomaton ab = a.intersect(b), bc = b.intersect(c), abc = ab.intersect(c);
  for (const auto& s : all_strings(chars_of("a1-"), 7)) {
    const std::u32string x = u(s);
    EXPECT_EQ(ab.accepts(x), a.accepts(x) && b.accepts(x)) << s;
    EXPECT_EQ(bc.accepts(x), b.accepts(x) && c.accepts(x)) << s;
    EXPECT_EQ(abc.accepts(x), a.accepts(x) && b.accepts(x) && c.accepts(x)) << s;
  }
  // Canonical minimal form: intersection commutes and associates up to identity.
  EXPECT_EQ(a.intersect(b), b.intersect(a));
  EXPECT_EQ(a.intersect(b.intersect(c)), abc);
  EXPECT_EQ(a.intersect(a), a);
  EXPECT_EQ(a.intersect(CharAutomaton::any_string()), a);
}

TEST(CharAutomaton, EmptyIntersections) {
  EXPECT_TRUE(search("^a+$").intersect(search("^b+$")).is_empty());
  EXPECT_TRUE(search("^.{5}$").intersect(CharAutomaton::length_between(0, 3)).is_empty());
  EXPECT_TRUE(full("\\d+").intersect(full("\\D+")).is_empty());
  EXPECT_TRUE(CharAutomaton().is_empty());
  EXPECT_EQ(search("^a+$").intersect(search("^b+$")), CharAutomaton());
  EXPECT_EQ(CharAutomaton().num_states(), 1u);
  EXPECT_FALSE(CharAutomaton::literal(U"ab").intersect(search("^a")).is_empty());
  EXPECT_FALSE(full("").is_empty());                  // accepts only ""
  EXPECT_FALSE(CharAutomaton::literal(U"").is_empty());
  EXPECT_TRUE(full("[]").is_empty());
  EXPECT_TRUE(search("[]").is_empty());
  EXPECT_TRUE(full("a[]|[]b").is_empty());
  // The empty language lowers to an automaton that accepts nothing.
  const grammar::ByteAutomaton b = lower_to_bytes(CharAutomaton().dfa(), Encoding::Raw);
  EXPECT_FALSE(testing::byte_automaton_accepts(b, ""));
  EXPECT_FALSE(testing::byte_automaton_accepts(b, "a"));
}

TEST(CharAutomaton, IntersectionBudget) {
  // 2^6 states times a length-mod-7 counter: the product is far larger than 100 states.
  const CharAutomaton a = full("(a|b)*a(a|b){5}"), b = full("((a|b){7})*");
  EXPECT_EQ(a.num_states(), 64u);
  AutomatonBudget small;
  small.max_states = 100;
  try {
    (void)a.intersect(b, small);
    ADD_FAILURE() << "no budget error";
  } catch (const AutomatonBudgetExceeded& e) {
    EXPECT_EQ(e.kind(), ConstraintErrorKind::UnsupportedSchema);
    EXPECT_EQ(e.keyword(), "pattern");
  }
  EXPECT_NO_THROW((void)a.intersect(b));
}

TEST(CharAutomaton, LengthBetween) {
  const CharAutomaton big = CharAutomaton::length_between(0, 8192);
  EXPECT_EQ(big.num_states(), 8193u);
  EXPECT_TRUE(big.accepts(std::u32string(8192, U'\U0001F600')));
  EXPECT_FALSE(big.accepts(std::u32string(8193, U'a')));
  const CharAutomaton open = CharAutomaton::length_between(3, grammar::kUnbounded);
  EXPECT_EQ(open.num_states(), 4u);
  EXPECT_TRUE(open.accepts(std::u32string(100000, U'\n')));
  EXPECT_FALSE(open.accepts(U"ab"));
  EXPECT_TRUE(CharAutomaton::length_between(3, 3).accepts(U"\U0001F600\u00e9x"));
  EXPECT_TRUE(CharAutomaton::length_between(4, 3).is_empty());
  EXPECT_EQ(CharAutomaton::length_between(0, 0), CharAutomaton::literal(U""));
  EXPECT_EQ(CharAutomaton::length_between(2, 3), full("[^]{2,3}"));
  EXPECT_EQ(CharAutomaton::length_between(0, grammar::kUnbounded), CharAutomaton::any_string());
  EXPECT_THROW((void)CharAutomaton::length_between(9000, grammar::kUnbounded), AutomatonBudgetExceeded);
  EXPECT_THROW((void)CharAutomaton::length_between(0, 9000), AutomatonBudgetExceeded);
  EXPECT_NO_THROW((void)CharAutomaton::length_between(8192, grammar::kUnbounded));
  // A large bound stays linear after lowering: a few UTF-8 tail states per counter state.
  const grammar::ByteAutomaton b = lower_to_bytes(big.dfa(), Encoding::Raw);
  EXPECT_LE(b.num_states(), 8u * 8193u);
  const grammar::ByteAutomaton j = lower_to_bytes(big.dfa(), Encoding::JsonString);
  EXPECT_LE(j.num_states(), 16u * 8193u);
}

TEST(CharAutomaton, LiteralAndAnyString) {
  const CharAutomaton lit = CharAutomaton::literal(U"a\U0001F600");
  EXPECT_TRUE(lit.accepts(U"a\U0001F600"));
  EXPECT_FALSE(lit.accepts(U"a"));
  EXPECT_FALSE(lit.accepts(U"a\U0001F600a"));
  EXPECT_EQ(CharAutomaton::literal(U"ab"), full("ab"));
  EXPECT_TRUE(CharAutomaton::literal(U"").accepts(U""));
  EXPECT_TRUE(CharAutomaton::literal(std::u32string(1, char32_t(0xD800))).is_empty());
  const CharAutomaton any = CharAutomaton::any_string();
  EXPECT_EQ(any.num_states(), 1u);
  EXPECT_TRUE(any.accepts(U""));
  EXPECT_TRUE(any.accepts(U"\n\r\u2028\U0010FFFF"));
  EXPECT_FALSE(any.accepts(std::u32string(1, char32_t(0xDFFF))));
  EXPECT_FALSE(any.accepts(std::u32string(1, char32_t(0x110000))));
  EXPECT_EQ(any, full("[\\s\\S]*"));
  EXPECT_EQ(any, search(""));
  EXPECT_EQ(any, search("a*"));
}

TEST(CharAutomaton, SearchSemanticsEqualsExplicitContext) {
  EXPECT_EQ(search("a"), full("[\\s\\S]*a[\\s\\S]*"));
  EXPECT_EQ(search("^a"), full("a[\\s\\S]*"));
  EXPECT_EQ(search("a$"), full("[\\s\\S]*a"));
  EXPECT_EQ(search("^a$"), full("a"));
  EXPECT_EQ(search("x|^y"), full("[\\s\\S]*x[\\s\\S]*|y[\\s\\S]*"));
  EXPECT_EQ(search("^x|y$|^z$"), full("x[\\s\\S]*|[\\s\\S]*y|z"));
  EXPECT_EQ(search("^$"), full(""));
  EXPECT_EQ(search("^"), CharAutomaton::any_string());
  // Anchors are no-ops in FullMatch mode.
  EXPECT_EQ(full("^a|b$"), full("a|b"));
}

TEST(CharAutomaton, CanonicalMinimalForm) {
  EXPECT_EQ(full("(a|b)*"), full("[ab]*"));
  EXPECT_EQ(full("a*a*"), full("a*"));
  EXPECT_EQ(full("(a*b*)*"), full("[ab]*"));
  EXPECT_EQ(full("a{2,}"), full("aaa*"));
  EXPECT_EQ(full("(?<g>a|b)+?"), full("[ab]+"));
  EXPECT_EQ(full("(a|b)*a(a|b){3}").num_states(), 16u);
  EXPECT_EQ(full("[^\"]*").num_states(), 1u);
  EXPECT_EQ(full(".").num_states(), 2u);
  EXPECT_EQ(full("[0-9]{3}-[0-9]{4}").num_states(), 9u);
}

TEST(CharAutomaton, LargeClassesStaySmall) {
  const CharAutomaton a = full("[^\"\\\\]*");
  EXPECT_EQ(a.num_states(), 1u);
  EXPECT_LE(a.dfa().edges[0].size(), 4u);
  // ".*" in UTF-8: a handful of shared continuation states.
  EXPECT_LE(lower_to_bytes(full(".*").dfa(), Encoding::Raw).num_states(), 10u);
  EXPECT_LE(lower_to_bytes(full("[^\"\\\\]*").dfa(), Encoding::JsonString).num_states(), 60u);
}

TEST(CharAutomaton, Utf8Conversion) {
  EXPECT_EQ(utf8_to_u32("a\xC3\xA9\xF0\x9F\x98\x80"), std::u32string(U"a\u00e9\U0001F600"));
  const std::u32string bad = utf8_to_u32("\xC3");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_FALSE(CharAutomaton::any_string().accepts(bad));
}

}  // namespace
}  // namespace ninfer::text
