// splice_grammar: a grammar copied into another keeps its language, whatever the offsets.
#include <gtest/gtest.h>

#include "grammar/gbnf_parser.h"
#include "grammar/grammar_splice.h"
#include "grammar/matcher.h"
#include "test_support.h"

namespace ninfer::grammar {
namespace {

bool accepts(const Grammar& g, const std::string& text) {
  Matcher m(compile(g, testing::make_domain({"a", "b", "c", "(", ")"})));
  return m.accept_bytes(text) && m.can_end();
}

TEST(GrammarSplice, TwoSplicedGrammarsKeepTheirLanguagesSideBySide) {
  const Grammar parens = parse_gbnf("root ::= \"(\" inner \")\"\ninner ::= \"a\" | root\n");
  const Grammar bs = parse_gbnf("root ::= x+\nx ::= \"b\" | \"c\"\n");
  Grammar g = parse_gbnf("root ::= \"a\"\n");  // something already there, so every index shifts
  const int32_t p = splice_grammar(g, parens, "p:");
  const int32_t b = splice_grammar(g, bs, "b:");
  Expr seq;
  seq.kind = ExprKind::Sequence;
  for (int32_t r : {p, b}) {
    Expr ref;
    ref.kind = ExprKind::RuleRef;
    ref.rule = r;
    seq.children.push_back(g.add(ref));
  }
  g.rules[g.root].body = g.add(seq);
  EXPECT_EQ(g.rules[p].name, "p:root");
  EXPECT_TRUE(accepts(g, "((a))bcb"));
  EXPECT_TRUE(accepts(g, "(a)c"));
  EXPECT_FALSE(accepts(g, "((a)bcb"));
  EXPECT_FALSE(accepts(g, "(a)"));
  EXPECT_FALSE(accepts(g, "a"));
}

}  // namespace
}  // namespace ninfer::grammar
