// Malformed and hostile grammars: every failure is a typed GrammarError with the right kind and
// line:column, never a crash, and huge inputs fail (or parse) in bounded time and stack.
#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "test_support.h"

namespace ninfer::grammar {
namespace {

using testing::make_domain;

std::optional<GrammarError> parse_error(std::string_view src, const GbnfOptions& opt = {}) {
  try {
    parse_gbnf(src, opt);
  } catch (const GrammarError& e) {
    return e;
  }
  return std::nullopt;
}

std::optional<GrammarError> compile_error(std::string_view src, std::shared_ptr<const TokenDomain> d) {
  try {
    compile(parse_gbnf(src), std::move(d));
  } catch (const GrammarError& e) {
    return e;
  }
  return std::nullopt;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct BadCase {
  const char* name;
  std::string src;
  GrammarErrorKind kind;
  int line = 0;    // 0: not checked
  int column = 0;  // 0: not checked
};

std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.name; }

using K = GrammarErrorKind;

std::vector<BadCase> bad_cases() {
  return {
      // Unbalanced parentheses, brackets and quotes.
      {"unclosed_paren", R"g(root ::= ("a")g", K::Syntax, 1, 10},
      {"stray_close_paren", R"g(root ::= "a"))g", K::Syntax, 1, 13},
      {"stray_close_paren_multiline", "root ::= \"a\"\n  | \"b\" )\n", K::Syntax, 2, 9},
      {"inner_unclosed_paren", R"g(root ::= ((("a"))g", K::Syntax, 1},
      {"unclosed_paren_third_line", "root ::= a\n\na ::= \"x\" | (\"y\"\n", K::Syntax, 3, 13},
      {"unclosed_bracket", R"g(root ::= [abc)g", K::Syntax, 1, 10},
      {"stray_close_bracket", R"g(root ::= "a" ])g", K::Syntax, 1, 14},
      {"unclosed_quote", R"g(root ::= "abc)g", K::Syntax, 1, 10},
      {"newline_in_literal", "root ::= \"ab\ncd\"", K::Syntax, 1, 10},
      {"unclosed_lookahead", R"g(root ::= "a" (= "b")g", K::Syntax, 1, 14},
      // Rules.
      {"undefined_rule", R"g(root ::= "a" foo)g", K::UndefinedRule, 1, 14},
      {"undefined_rule_second_line", "root ::= a\na ::= b\n", K::UndefinedRule, 2, 7},
      {"duplicate_rule", "root ::= \"a\"\nroot ::= \"b\"\n", K::DuplicateRule, 2, 1},
      {"duplicate_rule_indented", "root ::= x\nx ::= \"a\"\n  x ::= \"b\"", K::DuplicateRule, 3, 3},
      {"missing_root", R"g(start ::= "a")g", K::MissingRoot},
      {"empty_file", "", K::EmptyGrammar},
      {"whitespace_only", " \n\t\r\n  ", K::EmptyGrammar},
      {"comments_only", "# just a comment\n   # another one\n#", K::EmptyGrammar},
      {"missing_assign", R"g(root = "a")g", K::Syntax, 1, 6},
      {"missing_name", R"g(::= "a")g", K::Syntax, 1, 1},
      {"stray_character", R"g(root ::= "a" @)g", K::Syntax, 1, 14},
      // Escapes.
      {"unknown_escape", R"g(root ::= "\q")g", K::BadEscape, 1, 11},
      {"short_hex_escape", R"g(root ::= "\x4")g", K::BadEscape, 1, 11},
      {"short_u_escape", R"g(root ::= "ab\u12")g", K::BadEscape, 1, 13},
      {"unknown_escape_in_class", R"g(root ::= [a\qb])g", K::BadEscape, 1, 12},
      {"class_escape_outside_class", R"g(root ::= "\]")g", K::BadEscape, 1, 11},
      {"backslash_at_end", "root ::= \"\\", K::BadEscape, 1, 11},
      // Ranges and code points.
      {"reversed_range", R"g(root ::= [z-a])g", K::BadRange, 1, 11},
      {"reversed_multibyte_range", R"g(root ::= [xé-a])g", K::BadRange, 1, 12},
      {"surrogate_u_escape", R"g(root ::= "\uD800")g", K::BadRange, 1, 11},
      {"surrogate_range_in_class", R"g(root ::= [\uDC00-\uDFFF])g", K::BadRange, 1, 11},
      {"past_max_codepoint", R"g(root ::= "\U00110000")g", K::BadRange, 1, 11},
      {"class_matching_nothing", R"g(root ::= [^\x00-\U0010FFFF])g", K::BadRange, 1, 10},
      {"invalid_utf8_source", "root ::= \"\xFF\"", K::Syntax, 1, 11},
      {"overlong_utf8_source", "root ::= \"\xC0\xAF\"", K::Syntax, 1, 11},
      // Repetitions.
      {"reversed_repetition", R"g(root ::= "a"{3,2})g", K::BadRepetition, 1, 13},
      {"repetition_over_limit", R"g(root ::= "a"{100001})g", K::BadRepetition, 1, 14},
      {"repetition_overflow", R"g(root ::= "a"{1,99999999999999999999999})g", K::BadRepetition, 1, 16},
      {"repetition_unclosed", R"g(root ::= "a"{2)g", K::BadRepetition, 1},
      {"repetition_not_a_number", R"g(root ::= "a"{x})g", K::BadRepetition, 1},
      // Token references.
      {"token_ref_malformed", R"g(root ::= <[abc]>)g", K::Syntax, 1},
      {"token_list_trailing_comma", R"g(root ::= Token(1,))g", K::Syntax, 1},
      {"token_id_too_large", R"g(root ::= Token(99999999999))g", K::UnknownToken, 1, 16},
  };
}

class BadGrammar : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadGrammar, TypedLocatedError) {
  const BadCase& c = GetParam();
  const auto e = parse_error(c.src);
  ASSERT_TRUE(e.has_value()) << c.name << " parsed";
  EXPECT_EQ(e->kind(), c.kind) << c.name << ": got " << grammar_error_kind_name(e->kind()) << ": " << e->what();
  if (c.line) {
    EXPECT_EQ(e->location().line, c.line) << c.name << ": " << e->what();
  }
  if (c.column) {
    EXPECT_EQ(e->location().column, c.column) << c.name << ": " << e->what();
    EXPECT_EQ(e->location_text(), std::to_string(c.line) + ":" + std::to_string(c.column));
  }
  EXPECT_STRNE(e->what(), "");
}

INSTANTIATE_TEST_SUITE_P(Cases, BadGrammar, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(BadGrammarCompile, UnknownTokenIds) {
  auto d = make_domain({"a", "b", "c", "d"});  // ids 0..4
  struct Case {
    const char* src;
    int column;
  };
  for (const Case& c : {Case{R"g(root ::= "a" Token(5))g", 14}, Case{R"g(root ::= ExcludeToken(1, 7))g", 10},
                        Case{R"g(root ::= !<[100]>)g", 10}, Case{"root ::= x\nx ::= <[2147483647]>", 7}}) {
    const auto e = compile_error(c.src, d);
    ASSERT_TRUE(e.has_value()) << c.src;
    EXPECT_EQ(e->kind(), K::UnknownToken) << c.src << ": " << e->what();
    EXPECT_EQ(e->location().column, c.column) << c.src;
  }
  EXPECT_FALSE(compile_error(R"g(root ::= Token(4) ExcludeToken(1))g", d).has_value());
}

TEST(BadGrammarCompile, EmptyLanguage) {
  auto d = make_domain({"a", "x"});
  for (const char* src : {R"g(root ::= root "a")g", "root ::= a\na ::= \"x\" a", "root ::= \"a\" a\na ::= a a"}) {
    const auto e = compile_error(src, d);
    ASSERT_TRUE(e.has_value()) << src;
    EXPECT_EQ(e->kind(), K::EmptyLanguage) << src << ": " << e->what();
  }
  // The empty string is a language, and dead alternatives next to live ones are fine.
  EXPECT_FALSE(compile_error(R"g(root ::= "a"{0})g", d).has_value());
  EXPECT_FALSE(compile_error("root ::= dead | \"a\"\ndead ::= \"x\" dead", d).has_value());
}

TEST(BadGrammarCompile, AutomatonTooLarge) {
  auto d = make_domain({"a", "c"});
  const auto t0 = std::chrono::steady_clock::now();
  const auto e = compile_error(R"g(root ::= [a-c]* "c" [a-c]{20})g", d);  // 2^20 DFA states
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), K::TooLarge) << e->what();
  EXPECT_LT(seconds_since(t0), 20.0);
}

// ---- Huge inputs --------------------------------------------------------------------------------

constexpr size_t kTenMiB = size_t{10} << 20;

TEST(BadGrammarHuge, TenMegabytesOfOpenParens) {
  const std::string src = "root ::= " + std::string(kTenMiB, '(');
  const auto t0 = std::chrono::steady_clock::now();
  const auto e = parse_error(src);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), K::TooDeep) << e->what();
  EXPECT_EQ(e->location().line, 1);
  EXPECT_LT(seconds_since(t0), 5.0);
}

TEST(BadGrammarHuge, TenMegabytesOfOpenParensOnSeparateLines) {
  std::string src = "root ::=\n";
  while (src.size() < kTenMiB) src += "(\n";
  const auto e = parse_error(src);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), K::TooDeep) << e->what();
  EXPECT_GT(e->location().line, 2);
  EXPECT_LT(e->location().line, 2000);
}

TEST(BadGrammarHuge, TenMegabytesOfBalancedNestingInsideARule) {
  // Deep nesting that would close properly: still TooDeep, not a stack overflow.
  const size_t half = kTenMiB / 2;
  const std::string src = "root ::= " + std::string(half, '(') + "\"a\"" + std::string(half, ')');
  const auto e = parse_error(src);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), K::TooDeep);
}

TEST(BadGrammarHuge, TenMegabytesOfUnterminatedClassAndLiteral) {
  for (const std::string& src : {"root ::= " + std::string(kTenMiB, '['), "root ::= \"" + std::string(kTenMiB, 'a'),
                                 "root ::= [" + std::string(kTenMiB, 'a')}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto e = parse_error(src);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), K::Syntax) << e->what();
    EXPECT_EQ(e->location().column, 10);
    EXPECT_LT(seconds_since(t0), 10.0);
  }
}

TEST(BadGrammarHuge, TenMegabytesOfFlatSequence) {
  std::string src = "root ::=";
  while (src.size() < kTenMiB) src += " \"a\"";
  const size_t items = (src.size() - 8) / 4;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const Grammar g = parse_gbnf(src);
    const Expr& body = g.exprs[g.rules[g.root].body];
    EXPECT_EQ(body.kind, ExprKind::Sequence);
    EXPECT_EQ(body.children.size(), items);
  } catch (const GrammarError& e) {
    // A typed refusal is acceptable too.
    SUCCEED() << grammar_error_kind_name(e.kind());
  }
  EXPECT_LT(seconds_since(t0), 30.0);
}

TEST(BadGrammarHuge, OneMegabyteFlatSequenceAndChoiceCompile) {
  auto d = make_domain({"a", "aa", "b"});
  std::string seq = "root ::=", alt = "root ::= \"a\"";
  while (seq.size() < (size_t{1} << 20)) seq += " \"a\"";
  while (alt.size() < (size_t{1} << 20)) alt += " | \"a\"";
  for (const std::string* src : {&seq, &alt}) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      Matcher m(compile(parse_gbnf(*src), d));
      std::vector<uint32_t> mask(d->mask_words());
      m.fill_mask(mask.data());
      EXPECT_TRUE(testing::mask_bit(mask, 1));
      EXPECT_FALSE(testing::mask_bit(mask, 3));
    } catch (const GrammarError& e) {
      EXPECT_EQ(e.kind(), K::TooLarge) << e.what();
    }
    EXPECT_LT(seconds_since(t0), 20.0);
  }
}

// ---- Nesting limits -----------------------------------------------------------------------------

// GbnfOptions::max_nesting: "groups/repetitions nested deeper are a TooDeep error". A chain of
// postfix operators is nested repetition: "a"** is ("a"*)*. Without a parse-time limit, 10 MB of
// '*' parses into ~10M nested Repeat nodes (minutes of CPU and gigabytes) before the compiler
// refuses it.
TEST(BadGrammarNesting, PostfixChainsCountAsNesting) {
  const auto e = parse_error("root ::= \"a\"" + std::string(2000, '*'));
  ASSERT_TRUE(e.has_value()) << "2000 nested repetitions parsed although max_nesting is 128";
  EXPECT_EQ(e->kind(), K::TooDeep);
  GbnfOptions opt;
  opt.max_nesting = 10;
  EXPECT_FALSE(parse_error("root ::= \"a\"***", opt).has_value());
  const auto e2 = parse_error("root ::= \"a\"" + std::string(40, '?'), opt);
  ASSERT_TRUE(e2.has_value()) << "40 nested repetitions parsed although max_nesting is 10";
  EXPECT_EQ(e2->kind(), K::TooDeep);
}

// max_nesting counts nesting levels of groups: a limit of N admits N - 1 nested groups at least.
TEST(BadGrammarNesting, MaxNestingCountsGroupsOnce) {
  GbnfOptions opt;
  opt.max_nesting = 10;
  EXPECT_FALSE(parse_error(R"g(root ::= (("a")))g", opt).has_value());
  EXPECT_FALSE(parse_error("root ::= " + std::string(8, '(') + "\"a\"" + std::string(8, ')'), opt).has_value())
      << "8 nested groups refused with max_nesting = 10";
  const auto e = parse_error("root ::= " + std::string(12, '(') + "\"a\"" + std::string(12, ')'), opt);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), K::TooDeep);
  // Default limit (128): 120 nested groups are within it.
  EXPECT_FALSE(parse_error("root ::= " + std::string(120, '(') + "\"a\"" + std::string(120, ')')).has_value())
      << "120 nested groups refused with the default max_nesting of 128";
}

// Grammar compilation must not need a deep native stack: the IR is flat so that "10 MB of
// brackets stays safe". Runs parse + compile on a thread with a 2 MiB stack (the default thread
// stack of several runtimes) inside a death-test child, so that a stack overflow fails this test
// instead of killing the suite.
void* compile_on_small_stack_body(void* arg) {
  const std::string& src = *static_cast<const std::string*>(arg);
  auto d = make_domain({"a"});
  try {
    compile(parse_gbnf(src), d);
  } catch (const GrammarError&) {
  }
  return nullptr;
}

bool compile_on_small_stack(const std::string& src) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{2} << 20);
  pthread_t th;
  if (pthread_create(&th, &attr, compile_on_small_stack_body, const_cast<std::string*>(&src)) != 0) return false;
  pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
  return true;
}

TEST(BadGrammarNesting, CompileNeedsNoDeepStack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const std::string& src : {"root ::= \"a\"" + std::string(19990, '*'),
                                 "root ::= " + std::string(499, '(') + "\"a\"" + std::string(499, ')')}) {
    EXPECT_EXIT(
        {
          compile_on_small_stack(src);
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << "parse + compile crashed on a 2 MiB stack: " << src.substr(0, 40) << "... (" << src.size() << " bytes)";
  }
}

}  // namespace
}  // namespace ninfer::grammar
