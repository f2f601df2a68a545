// GBNF front end, positive cases: the IR it builds for escapes, classes, repetitions, token
// terminals, multi-line rules, comments, lookahead hints, and source locations.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace ninfer::grammar {
namespace {

using namespace std::string_literals;

const Expr& body(const Grammar& g, const char* rule = "root") {
  const int32_t r = g.rule_index(rule);
  EXPECT_GE(r, 0) << rule;
  return g.exprs[g.rules[r].body];
}

const Expr& child(const Grammar& g, const Expr& e, size_t i) { return g.exprs[e.children.at(i)]; }

std::vector<CodepointRange> R(std::initializer_list<std::pair<uint32_t, uint32_t>> rs) {
  std::vector<CodepointRange> out;
  for (auto [lo, hi] : rs) out.push_back({lo, hi});
  return out;
}

TEST(GbnfParser, LiteralEscapesDecodeToBytes) {
  const Grammar g = parse_gbnf(R"g(root ::= "\n\r\t\\\"\x41\x7f\u00e9\u20AC\U0001F600")g");
  const Expr& e = body(g);
  ASSERT_EQ(e.kind, ExprKind::Literal);
  EXPECT_EQ(e.literal, "\n\r\t\\\"A\x7F\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(GbnfParser, RawUtf8AndHexAboveAsciiAreCodePoints) {
  // A raw UTF-8 character is its bytes; \xNN names the code point U+00NN (so \xE9 is "é").
  EXPECT_EQ(body(parse_gbnf(R"g(root ::= "héllo €")g")).literal, "h\xC3\xA9llo \xE2\x82\xAC");
  EXPECT_EQ(body(parse_gbnf(R"g(root ::= "\xE9")g")).literal, "\xC3\xA9");
  EXPECT_EQ(body(parse_gbnf(R"g(root ::= "\x00")g")).literal, "\x00"s);
}

TEST(GbnfParser, EmptyLiteralIsEmpty) {
  EXPECT_EQ(body(parse_gbnf(R"g(root ::= "")g")).kind, ExprKind::Empty);
}

TEST(GbnfParser, CharacterClasses) {
  {
    const Grammar g = parse_gbnf(R"g(root ::= [b-ca\x41-\x43\n\]\-\\])g");
    const Expr& e = body(g);
    ASSERT_EQ(e.kind, ExprKind::CharClass);
    // Sorted and merged: \n, '-', 'A'-'C', '\\', ']', 'a'-'c'.
    EXPECT_EQ(e.ranges, R({{'\n', '\n'}, {'-', '-'}, {'A', 'C'}, {'\\', ']'}, {'a', 'c'}}));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= [^a])g");
    const Expr& e = body(g);
    EXPECT_EQ(e.ranges, R({{0, 0x60}, {0x62, 0xD7FF}, {0xE000, 0x10FFFF}}));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= .)g");
    const Expr& e = body(g);
    ASSERT_EQ(e.kind, ExprKind::CharClass);
    EXPECT_EQ(e.ranges, R({{0, 0xD7FF}, {0xE000, 0x10FFFF}}));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= [é-ÿ€\U0001F600-\U0001F64F])g");
    const Expr& e = body(g);
    EXPECT_EQ(e.ranges, R({{0xE9, 0xFF}, {0x20AC, 0x20AC}, {0x1F600, 0x1F64F}}));
  }
  {
    // A '-' at the end of a class is literal; a class spanning the surrogates skips them.
    EXPECT_EQ(body(parse_gbnf(R"g(root ::= [a-])g")).ranges, R({{'-', '-'}, {'a', 'a'}}));
    EXPECT_EQ(body(parse_gbnf(R"g(root ::= [\uD7FF-\uE000])g")).ranges, R({{0xD7FF, 0xD7FF}, {0xE000, 0xE000}}));
  }
}

TEST(GbnfParser, Repetitions) {
  struct Case {
    const char* src;
    uint32_t min, max;
  };
  for (const Case& c : {Case{R"g(root ::= "a"*)g", 0, kUnbounded}, Case{R"g(root ::= "a"+)g", 1, kUnbounded},
                        Case{R"g(root ::= "a"?)g", 0, 1}, Case{R"g(root ::= "a"{3})g", 3, 3},
                        Case{R"g(root ::= "a"{2,})g", 2, kUnbounded}, Case{R"g(root ::= "a"{,4})g", 0, 4},
                        Case{R"g(root ::= "a"{2,5})g", 2, 5}, Case{R"g(root ::= "a"{ 2 , 5 })g", 2, 5},
                        Case{R"g(root ::= "a"{0})g", 0, 0}, Case{R"g(root ::= "a"{100000})g", 100000, 100000},
                        Case{R"g(root ::= "a"{,})g", 0, kUnbounded}}) {
    const Grammar g = parse_gbnf(c.src);
    const Expr& e = body(g);
    ASSERT_EQ(e.kind, ExprKind::Repeat) << c.src;
    EXPECT_EQ(e.min, c.min) << c.src;
    EXPECT_EQ(e.max, c.max) << c.src;
    EXPECT_EQ(child(g, e, 0).kind, ExprKind::Literal) << c.src;
  }
  // Postfix operators stack: ("a"{2})? .
  const Grammar g = parse_gbnf(R"g(root ::= "a"{2}?)g");
  const Expr& outer = body(g);
  ASSERT_EQ(outer.kind, ExprKind::Repeat);
  EXPECT_EQ(outer.max, 1u);
  EXPECT_EQ(child(g, outer, 0).min, 2u);
}

TEST(GbnfParser, TokenTerminals) {
  {
    const Grammar g = parse_gbnf(R"g(root ::= Token(1,2))g");
    const Expr& e = body(g);
    ASSERT_EQ(e.kind, ExprKind::TokenSet);
    EXPECT_EQ(e.token_ids, (std::vector<int32_t>{1, 2}));
    EXPECT_FALSE(e.exclude);
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= Token( 3 , 1 ,3 ))g");
    const Expr& e = body(g);
    EXPECT_EQ(e.token_ids, (std::vector<int32_t>{1, 3}));  // sorted, unique
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= ExcludeToken(4))g");
    const Expr& e = body(g);
    ASSERT_EQ(e.kind, ExprKind::TokenSet);
    EXPECT_EQ(e.token_ids, (std::vector<int32_t>{4}));
    EXPECT_TRUE(e.exclude);
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= <[5]> !<[6]>)g");
    const Expr& seq = body(g);
    ASSERT_EQ(seq.kind, ExprKind::Sequence);
    EXPECT_EQ(child(g, seq, 0).token_ids, (std::vector<int32_t>{5}));
    EXPECT_FALSE(child(g, seq, 0).exclude);
    EXPECT_EQ(child(g, seq, 1).token_ids, (std::vector<int32_t>{6}));
    EXPECT_TRUE(child(g, seq, 1).exclude);
  }
  {
    // "Token" without a parenthesis is an ordinary rule name.
    const Grammar g = parse_gbnf("root ::= Token\nToken ::= \"t\"");
    EXPECT_EQ(body(g).kind, ExprKind::RuleRef);
  }
}

TEST(GbnfParser, MultiLineRulesAndComments) {
  const Grammar g = parse_gbnf(R"g(# leading comment
root ::= greeting   # trailing comment
         " "
         name       # the name
  | "bye"
greeting ::=
  "hi" |
  "hello"
name ::= ( # comment inside a group
    [a-z]+ # letters
  | "x"
  ))g");
  ASSERT_EQ(g.rules.size(), 3u);
  EXPECT_EQ(g.rules[g.root].name, "root");
  const Expr& root = body(g);
  ASSERT_EQ(root.kind, ExprKind::Choice);
  ASSERT_EQ(root.children.size(), 2u);
  const Expr& seq = child(g, root, 0);
  ASSERT_EQ(seq.kind, ExprKind::Sequence);
  ASSERT_EQ(seq.children.size(), 3u);
  EXPECT_EQ(child(g, seq, 0).kind, ExprKind::RuleRef);
  EXPECT_EQ(g.rules[child(g, seq, 0).rule].name, "greeting");
  EXPECT_EQ(child(g, seq, 1).literal, " ");
  EXPECT_EQ(g.rules[child(g, seq, 2).rule].name, "name");
  EXPECT_EQ(child(g, root, 1).literal, "bye");
  const Expr& greeting = body(g, "greeting");
  ASSERT_EQ(greeting.kind, ExprKind::Choice);
  EXPECT_EQ(child(g, greeting, 1).literal, "hello");
  EXPECT_EQ(body(g, "name").kind, ExprKind::Choice);
  EXPECT_EQ(g.rules[g.rule_index("greeting")].location.line, 6);
  EXPECT_EQ(g.rules[g.rule_index("name")].location.line, 9);

  // The grammar means what it says.
  auto d = testing::make_domain({"hi", " ", "bob", "hello x", "bye"});
  Matcher m(compile(g, d));
  EXPECT_TRUE(m.accept_bytes("hello bob"));
  EXPECT_TRUE(m.can_end());
}

TEST(GbnfParser, CrLfLineEndingsAndNames) {
  const Grammar g = parse_gbnf("root ::= my-rule_2 \r\n  | x9\r\nmy-rule_2 ::= \"a\"\r\nx9 ::= \"b\"\r\n");
  ASSERT_EQ(g.rules.size(), 3u);
  EXPECT_GE(g.rule_index("my-rule_2"), 0);
  EXPECT_GE(g.rule_index("x9"), 0);
  EXPECT_EQ(g.rules[g.rule_index("x9")].location.line, 4);
}

TEST(GbnfParser, ReferencesBeforeDefinitionAndRecursion) {
  const Grammar g = parse_gbnf(R"g(root ::= expr
expr ::= expr "+" term | term
term ::= "1")g");
  const Expr& expr = body(g, "expr");
  ASSERT_EQ(expr.kind, ExprKind::Choice);
  const Expr& left = child(g, expr, 0);
  ASSERT_EQ(left.kind, ExprKind::Sequence);
  EXPECT_EQ(child(g, left, 0).rule, g.rule_index("expr"));
  EXPECT_EQ(child(g, left, 2).rule, g.rule_index("term"));
}

TEST(GbnfParser, RootRuleOption) {
  GbnfOptions opt;
  opt.root_rule = "start";
  const Grammar g = parse_gbnf("other ::= \"x\"\nstart ::= other", opt);
  EXPECT_EQ(g.rules[g.root].name, "start");
}

TEST(GbnfParser, LookaheadHint) {
  const Grammar g = parse_gbnf("root ::= num \"b\"\nnum ::= [0-9]+ (= \"b\")\n");
  const Rule& num = g.rules[g.rule_index("num")];
  ASSERT_GE(num.lookahead, 0);
  EXPECT_EQ(g.exprs[num.lookahead].literal, "b");
  EXPECT_EQ(g.exprs[num.body].kind, ExprKind::Repeat);
  EXPECT_EQ(g.rules[g.root].lookahead, -1);
}

TEST(GbnfParser, ExpressionLocations) {
  const Grammar g = parse_gbnf("root ::= \"a\"\n  | foo [x]\nfoo ::= \"f\"");
  const Expr& root = body(g);
  ASSERT_EQ(root.kind, ExprKind::Choice);
  const Expr& seq = child(g, root, 1);
  EXPECT_EQ(child(g, seq, 0).location.line, 2);
  EXPECT_EQ(child(g, seq, 0).location.column, 5);
  EXPECT_EQ(child(g, seq, 1).location.column, 9);
  EXPECT_EQ(child(g, root, 0).location.column, 10);
}

TEST(GbnfParser, NestingJustBelowTheLimitParsesAndCompiles) {
  const std::string src = "root ::= " + std::string(120, '(') + "\"a\"" + std::string(120, ')') + "+";
  const Grammar g = parse_gbnf(src);
  auto d = testing::make_domain({"a", "b"});
  Matcher m(compile(g, d));
  EXPECT_TRUE(m.accept_bytes("aaa"));
  EXPECT_FALSE(m.accept_bytes("b"));
}

}  // namespace
}  // namespace ninfer::grammar
