// Every rejected construct throws ConstraintError(InvalidRegex) at the code point offset of the
// offending construct; budget overruns throw AutomatonBudgetExceeded.
#include <gtest/gtest.h>

#include <string>

#include "ninfer/constraint_error.h"
#include "text/char_automaton.h"

namespace ninfer::text {
namespace {

struct ErrorCase {
  std::string pattern;
  int64_t offset;
};

void expect_invalid(const ErrorCase& c, const AutomatonBudget& budget = {}) {
  for (RegexMode mode : {RegexMode::FullMatch, RegexMode::Search}) {
    try {
      (void)CharAutomaton::from_regex(c.pattern, mode, budget);
      ADD_FAILURE() << "accepted invalid pattern " << c.pattern;
    } catch (const AutomatonBudgetExceeded& e) {
      ADD_FAILURE() << "budget error instead of InvalidRegex for " << c.pattern << ": " << e.what();
    } catch (const ConstraintError& e) {
      EXPECT_EQ(e.kind(), ConstraintErrorKind::InvalidRegex) << c.pattern;
      EXPECT_EQ(e.offset(), c.offset) << c.pattern << ": " << e.what();
      EXPECT_STRNE(e.what(), "") << c.pattern;
    }
  }
}

TEST(RegexErrors, BackReferences) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"a\\1", 1}, {"(a)\\1", 3}, {"\\9", 0}, {"\\k<x>", 0}, {"(?<x>a)\\k<x>", 7}})
    expect_invalid(c);
}

TEST(RegexErrors, Lookaround) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"(?=a)", 0}, {"a(?!b)", 1}, {"(?<=a)b", 0}, {"x(?<!a)b", 1}})
    expect_invalid(c);
}

TEST(RegexErrors, WordBoundaries) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"a\\bc", 1}, {"\\B", 0}, {"\\ba", 0}, {"[\\B]", 1}})
    expect_invalid(c);
}

TEST(RegexErrors, PropertyEscapesAndFlags) {
  for (const ErrorCase& c : std::vector<ErrorCase>{
           {"\\p{L}", 0}, {"x\\P{Lu}", 1}, {"[\\p{L}]", 1}, {"(?i)a", 0}, {"(?i:a)", 0}, {"a(?P<n>b)", 1}, {"(?#c)", 0}})
    expect_invalid(c);
}

TEST(RegexErrors, UnknownEscapes) {
  // No Annex B identity escapes: only syntax characters, '/' and '-' may be escaped.
  for (const ErrorCase& c : std::vector<ErrorCase>{{"\\q", 0}, {"ab\\e", 2}, {"\\a", 0}, {"\\z", 0}, {"\\_", 0},
                                                    {"[\\q]", 1}, {"\\ ", 0}, {"\\x4", 0}, {"\\xg0", 0}, {"\\u12", 0},
                                                    {"\\u{110000}", 0}, {"\\u{}", 0}, {"\\u{12", 0}, {"\\c1", 0},
                                                    {"\\01", 0}, {"a\\", 1}, {"[a\\", 2}, {"\\E", 0}})
    expect_invalid(c);
}

TEST(RegexErrors, Unbalanced) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"(a", 0}, {"a(b(c)", 1}, {"a)", 1}, {"(a))", 3}, {"[a", 0},
                                                    {"x[^", 1}, {"a]", 1}, {"a}", 1}, {"[]]", 2}, {"(?:a", 0},
                                                    {"(?<n>a", 0}, {"(?<n", 0}, {"(?<>a)", 0}, {"(?<1a>b)", 3}})
    expect_invalid(c);
}

TEST(RegexErrors, NothingToRepeat) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"*a", 0}, {"a|+b", 2}, {"a**", 2}, {"(*)", 1}, {"^*", 1},
                                                    {"a{2}{3}", 4}, {"{1}", 0}, {"a???", 3}, {"(?:)+?*", 6}})
    expect_invalid(c);
}

TEST(RegexErrors, BadRangesAndCounts) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"[z-a]", 1}, {"x[b-a]", 2}, {"[\\d-z]", 1}, {"[a-\\w]", 1},
                                                    {"a{3,2}", 1}, {"a{", 1}, {"a{1", 1}, {"a{,2}", 1}, {"a{1,x}", 1},
                                                    {"a{8193}", 1}, {"a{1,9000}", 1}, {"ab{99999999999999}", 2},
                                                    {"a{9000,}", 1}})
    expect_invalid(c);
  AutomatonBudget small;
  small.max_length = 10;
  expect_invalid({"a{11}", 1}, small);
  expect_invalid({"(ab){2,11}", 4}, small);
  EXPECT_NO_THROW((void)CharAutomaton::from_regex("a{10}", RegexMode::FullMatch, small));
}

TEST(RegexErrors, MisplacedAnchors) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"a^b", 1}, {"a$b", 1}, {"(^a)", 1}, {"(a$)", 2}, {"a$*", 1},
                                                    {"(?:a|^b)", 5}, {"a|b^", 3}, {"$^", 0}, {"a$?", 1}})
    expect_invalid(c);
}

TEST(RegexErrors, InvalidUtf8) {
  for (const ErrorCase& c : std::vector<ErrorCase>{{"ab\xFF", 2},
                                                    {"\xC3\xA9\xC3", 1},
                                                    {"\xED\xA0\x80", 0},
                                                    {"a\xC0\xAF", 1},
                                                    {"\xF4\x90\x80\x80", 0},
                                                    {"x\x80", 1},
                                                    {"\xE2\x82", 0}})
    expect_invalid(c);
}

TEST(RegexErrors, OffsetsCountCodePoints) {
  expect_invalid({"\xC3\xA9\xC3\xA9\\q", 2});      // éé\q: the escape is the third character
  expect_invalid({"\xF0\x9F\x98\x80(", 1});        // 😀(
  expect_invalid({"[\xE4\xB8\xAD-a]", 1});         // [中-a] reversed
}

TEST(RegexErrors, ValidEdgeCasesParse) {
  for (const char* p : {"(?<name>a)", "(?<$_x1>a)", "a*?", "a{2,3}?", "[\\b]", "\\/", "\\-", "[]", "[^]", "[\\-]",
                        "[a-]", "[-a]", "[--a]", "()", "(|)", "^^a$$", "^", "$", "^$", "\\0", "\\cJ", "\\u{1F600}",
                        "\\uD83D\\uDE00", "\\uD800", "[\\uD800-\\uDFFF]", "x{0}", "^a{8192}", "a{2000}", "[{}]", "[(]", "[)|*+?.$^]"})
    for (RegexMode mode : {RegexMode::FullMatch, RegexMode::Search})
      EXPECT_NO_THROW((void)CharAutomaton::from_regex(p, mode)) << p;
}

TEST(RegexErrors, BudgetExceeded) {
  // The minimal DFA of "(n+1)-th symbol from the end is a" has 2^(n+1) states.
  try {
    (void)CharAutomaton::from_regex("(a|b)*a(a|b){20}", RegexMode::FullMatch);
    ADD_FAILURE() << "no budget error";
  } catch (const AutomatonBudgetExceeded& e) {
    EXPECT_EQ(e.kind(), ConstraintErrorKind::UnsupportedSchema);
    EXPECT_EQ(e.keyword(), "pattern");
  }
  // Nested counted repetition is refused before any expansion.
  EXPECT_THROW((void)CharAutomaton::from_regex("((a{100}){100}){100}", RegexMode::FullMatch), AutomatonBudgetExceeded);
  AutomatonBudget small;
  small.max_states = 16;
  EXPECT_THROW((void)CharAutomaton::from_regex("[a-z]{20}", RegexMode::FullMatch, small), AutomatonBudgetExceeded);
  EXPECT_NO_THROW((void)CharAutomaton::from_regex("[a-z]{10}", RegexMode::FullMatch, small));
  // It is a ConstraintError, so generic handlers see a typed error.
  EXPECT_THROW((void)CharAutomaton::from_regex("(a|b)*a(a|b){20}", RegexMode::Search), ConstraintError);
}

TEST(ConstraintErrorKindName, NamesEveryKind) {
  EXPECT_STREQ(constraint_error_kind_name(ConstraintErrorKind::InvalidRegex), "InvalidRegex");
  EXPECT_STREQ(constraint_error_kind_name(ConstraintErrorKind::UnsupportedSchema), "UnsupportedSchema");
  EXPECT_STREQ(constraint_error_kind_name(ConstraintErrorKind::InvalidGrammar), "InvalidGrammar");
  EXPECT_STREQ(constraint_error_kind_name(ConstraintErrorKind::InvalidJsonSchema), "InvalidJsonSchema");
  EXPECT_STREQ(constraint_error_kind_name(ConstraintErrorKind::Unsatisfiable), "Unsatisfiable");
  EXPECT_STREQ(constraint_error_kind_name(ConstraintErrorKind::InvalidChoice), "InvalidChoice");
}

}  // namespace
}  // namespace ninfer::text
