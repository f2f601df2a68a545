// Explanations of rejected input: the expected bytes against a brute-force oracle over the public
// matcher API, the human list, and the rule path for GBNF grammars.
#include <gtest/gtest.h>

#include <bitset>

#include "grammar/explain.h"
#include "test_support.h"

namespace ninfer::grammar {
namespace {

using testing::compile_gbnf;
using testing::make_domain;
using testing::show;

std::shared_ptr<const CompiledGrammar> gbnf(const std::string& src) { return compile_gbnf(src, make_domain({"a"})); }

// Oracle: byte b is expected after `prefix` when a fresh matcher accepts prefix then b.
std::bitset<256> oracle_bytes(const std::shared_ptr<const CompiledGrammar>& g, std::string_view prefix) {
  std::bitset<256> out;
  for (int b = 0; b < 256; ++b) {
    Matcher m(g);
    if (!m.accept_bytes(prefix)) ADD_FAILURE() << "oracle prefix refused: " << show(prefix);
    if (m.accept_bytes(std::string(1, static_cast<char>(b)))) out.set(b);
  }
  return out;
}

// Every prefix of each text (up to its first refused byte) is explained exactly as the oracle says.
void expect_matches_oracle(const std::shared_ptr<const CompiledGrammar>& g, const std::vector<std::string>& texts) {
  for (const auto& text : texts) {
    const Explanation e = explain_rejection(g, text);
    for (size_t k = 0; k <= e.offset; ++k) {
      const std::string prefix = text.substr(0, k);
      SCOPED_TRACE(show(prefix));
      const Explanation at = explain_rejection(g, prefix);
      EXPECT_FALSE(at.rejected);
      EXPECT_EQ(at.offset, k);
      EXPECT_EQ(at.expected_bytes, oracle_bytes(g, prefix));
      Matcher m(g);
      ASSERT_TRUE(m.accept_bytes(prefix));
      EXPECT_EQ(at.can_end, m.can_end());
    }
    if (e.rejected) {
      EXPECT_FALSE(e.expected_bytes[static_cast<uint8_t>(text[e.offset])]) << show(text);
    }
  }
}

TEST(Explain, ExpectedBytesEqualTheBruteForceOracleOnEveryPrefix) {
  expect_matches_oracle(gbnf(R"(root ::= "{" members? "}"
members ::= pair ("," pair)*
pair ::= key ":" value
key ::= "\"name\"" | "\"email\"" | "\"age\""
value ::= [0-9]+ | "true" | "false" | "null" | "\"" [^"\\]* "\""
)"),
                        {"{\"name\":12,\"email\":\"x\xc3\xa9y\"}", "{\"age\":true}", "{\"nope\":1}", "{\"name\":tru}",
                         "{}", "{\"email\":\"a\"x"});
  expect_matches_oracle(gbnf(R"(root ::= ([a-z]+ "=" ("yes" | "no") "\n")* "end")"), {"ab=yes\ncd=no\nend", "x=maybe"});
  expect_matches_oracle(gbnf(R"(root ::= [\u00e9-\u4e00]+ ".")"), {"\xc3\xa9\xe4\xb8\x80.", "\xc3\xa9\xc3"});
}

TEST(Explain, TheMatcherStateIsUnchangedByAnExplanation) {
  auto g = gbnf(R"(root ::= "ab" [0-9]+)");
  Matcher m(g);
  ASSERT_TRUE(m.accept_bytes("a"));
  const size_t steps = m.num_steps();
  const Explanation e = explain_rejection(m, "bx");
  EXPECT_TRUE(e.rejected);
  EXPECT_EQ(e.offset, 1u);
  EXPECT_EQ(e.expected, "expected a digit");
  EXPECT_EQ(m.num_steps(), steps);
  EXPECT_TRUE(m.accept_bytes("b1"));
  EXPECT_TRUE(m.can_end());
}

TEST(Explain, PunctuationIsListedOneByOne) {
  auto g = gbnf(R"(root ::= "[" [0-9] ("," [0-9])* "]")");
  const Explanation e = explain_rejection(g, "[1x");
  EXPECT_EQ(e.offset, 2u);
  EXPECT_EQ(e.expected, "expected one of: \",\" \"]\"");
  EXPECT_EQ(byte_class_text(e.expected_bytes), "[,\\]]");
  EXPECT_FALSE(e.can_end);
}

TEST(Explain, ForcedWordsAreShownWholeRatherThanByTheirFirstByte) {
  auto g = gbnf(R"(root ::= "true" | "false" | "null")");
  EXPECT_EQ(explain_rejection(g, "x").expected, "expected one of: \"false\" \"null\" \"true\"");
  EXPECT_EQ(explain_rejection(g, "tx").expected, "expected \"rue\"");
}

TEST(Explain, AlternativeKeysAreNamedAsKeys) {
  auto g = gbnf(R"(root ::= "{" ("\"name\"" | "\"email\"") ":" [0-9] "}")");
  const Explanation e = explain_rejection(g, "{x");
  EXPECT_EQ(e.expected, "expected key \"email\" or \"name\"");
  EXPECT_EQ(byte_class_text(e.expected_bytes), "[\"]");
}

TEST(Explain, TheEndOfInputIsNamed) {
  auto g = gbnf(R"(root ::= "ab" "c"?)");
  const Explanation end = explain_rejection(g, "abcd");
  EXPECT_EQ(end.offset, 3u);
  EXPECT_TRUE(end.can_end);
  EXPECT_TRUE(end.expected_bytes.none());
  EXPECT_EQ(end.expected, "expected end of input");
  EXPECT_EQ(explain_rejection(g, "abx").expected, "expected one of: \"c\" or end of input");
}

TEST(Explain, ByteClassesAreGroupedIntoWordsAPersonUses) {
  EXPECT_EQ(explain_rejection(gbnf(R"(root ::= [a-zA-Z] [0-9])"), "1").expected, "expected a letter");
  EXPECT_EQ(explain_rejection(gbnf(R"(root ::= [1-9] [0-9]*)"), "x").expected, "expected a digit in [1-9]");
  EXPECT_EQ(explain_rejection(gbnf(R"(root ::= [ \t\n\r]* "x")"), "y").expected, "expected one of: \"x\" or whitespace");
  // Inside a multi-byte character only continuation bytes fit.
  const Explanation mid = explain_rejection(gbnf(R"(root ::= [\u00e0-\u00ff])"), "\xc3x");
  EXPECT_EQ(mid.expected, "expected a UTF-8 continuation byte in [\\xa0-\\xbf]");
  // Many unrelated bytes fall back to a class.
  const Explanation wide = explain_rejection(gbnf(R"(root ::= [!-/:-@])"), "a");
  EXPECT_EQ(wide.expected, "expected a byte in [!-/:-@]");
}

TEST(Explain, TheByteClassTextEscapesWhatARegexClassWouldMisread) {
  std::bitset<256> b;
  for (int c : {int('-'), int(']'), int('\\'), int('^'), int('a'), int('b'), int('c'), int('d'), 0x00, 0xff}) b.set(c);
  EXPECT_EQ(byte_class_text(b), "[\\x00\\-\\\\-\\^a-d\\xff]");
  EXPECT_EQ(byte_class_text({}), "[]");
}

TEST(Explain, ThePathNamesTheOpenGbnfRulesFromTheRoot) {
  auto g = gbnf(R"(root ::= "[" item ("," item)* "]"
item ::= "{" "\"sku\":" sku "}"
sku ::= [A-Z] [A-Z] [A-Z] "-" [0-9] [0-9] [0-9]
)");
  const Explanation e = explain_rejection(g, "[{\"sku\":ABC-1x");
  EXPECT_EQ(e.expected, "expected a digit");
  EXPECT_EQ(e.path, (std::vector<std::string>{"root", "item", "sku"}));
}

TEST(Explain, RecursiveRulesGiveTheChainOfOpenCalls) {
  auto g = gbnf(R"g(root ::= list
list ::= "(" (atom | list)* ")"
atom ::= [a-z]+ "."
)g");
  const Explanation e = explain_rejection(g, "((ab.(c!");
  EXPECT_EQ(e.offset, 7u);
  ASSERT_GE(e.path.size(), 2u);
  EXPECT_EQ(e.path.front(), "root");
  EXPECT_EQ(e.path.back(), "atom");
}

TEST(Explain, ATerminatedMatcherExpectsNothing) {
  auto g = compile_gbnf(R"(root ::= "a")", make_domain({"a"}));
  Matcher m(g);
  ASSERT_TRUE(m.accept_token(1));
  ASSERT_TRUE(m.accept_token(0));
  const Explanation e = explain_next(m);
  EXPECT_TRUE(e.expected_bytes.none());
  EXPECT_FALSE(e.can_end);
}

TEST(Explain, ExplanationsOfAHugeAlternationStayBounded) {
  std::string src = "root ::= ";
  for (int i = 0; i < 3000; ++i) src += std::string(i ? " | " : "") + "\"k" + std::to_string(i) + "\"";
  auto g = gbnf(src);
  const Explanation e = explain_rejection(g, "x");
  EXPECT_EQ(e.expected, "expected \"k\"");
  const Explanation digits = explain_rejection(g, "kx");
  EXPECT_EQ(digits.expected, "expected a digit");
}

}  // namespace
}  // namespace ninfer::grammar
