// Explanations of rejected JSON, regex and choice outputs: the human list at typical failures and
// the path of schema nodes (JSON Pointer and what the node is) open at the failing byte.
#include <gtest/gtest.h>

#include "grammar/explain.h"
#include "json_schema_test_support.h"

namespace ninfer::text {
namespace {

using testing::byte_domain;
using testing::compile_schema;

std::shared_ptr<const grammar::CompiledGrammar> compile(const OutputConstraint& c) {
  return compile_constraint(c, byte_domain()).grammar;
}

// Oracle: byte b is expected after `prefix` when a fresh matcher accepts prefix then b.
void expect_bytes_match_oracle(const std::shared_ptr<const grammar::CompiledGrammar>& g, const std::string& text) {
  const size_t reach = grammar::explain_rejection(g, text).offset;
  for (size_t k = 0; k <= reach; ++k) {
    const std::string prefix = text.substr(0, k);
    SCOPED_TRACE(prefix);
    std::bitset<256> oracle;
    for (int b = 0; b < 256; ++b) {
      grammar::Matcher m(g);
      ASSERT_TRUE(m.accept_bytes(prefix));
      if (m.accept_bytes(std::string(1, static_cast<char>(b)))) oracle.set(b);
    }
    const grammar::Explanation e = grammar::explain_rejection(g, prefix);
    EXPECT_EQ(e.expected_bytes, oracle);
    grammar::Matcher m(g);
    ASSERT_TRUE(m.accept_bytes(prefix));
    EXPECT_EQ(e.can_end, m.can_end());
  }
}

TEST(ExplainSchema, ExpectedBytesEqualTheOracleIncludingKeySetChecksOfAnyOrderObjects) {
  const std::string schema = R"({"type":"object","properties":{"a":{"type":"integer","minimum":-5,"maximum":40},
      "b":{"type":"string","maxLength":3},"c":{"enum":[true,"x",[1]]}},"required":["a","c"],"additionalProperties":false,
      "minProperties":2})";
  JsonFormatOptions any = testing::flexible(2);
  any.property_order = JsonPropertyOrder::Flexible;
  for (const auto& fmt : {testing::compact(), any}) {
    auto g = compile_schema(schema, fmt);
    for (const char* text : {R"({"a":-5,"b":"éx","c":[1]})", R"({"c":"x","a":40})", R"({"b":"abcd"})",
                             R"({"c": true , "a":41})", R"({"a":3,"a":4})"})
      expect_bytes_match_oracle(g, text);
  }
}

const char* kOrderSchema = R"({"type":"object","properties":{
  "id":{"type":"integer","minimum":1,"maximum":999},
  "items":{"type":"array","items":{"type":"object","properties":{
     "sku":{"type":"string","pattern":"^[A-Z]{3}-\\d{3}$"},
     "qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}}},
  "required":["id","items"]})";

TEST(ExplainSchema, ThePathOfANestedPatternNamesEverySchemaNodeDownToTheString) {
  auto g = compile_schema(kOrderSchema);
  const grammar::Explanation e = grammar::explain_rejection(g, R"({"id":7,"items":[{"sku":"ABC-1x)");
  EXPECT_TRUE(e.rejected);
  EXPECT_EQ(e.expected, "expected a digit");
  ASSERT_FALSE(e.path.empty());
  EXPECT_EQ(e.path.back(), "/properties/items/items/properties/sku: string matching ^[A-Z]{3}-\\d{3}$");
  EXPECT_EQ(e.path.front(), "(root): object with keys \"id\", \"items\"");
  EXPECT_NE(std::find(e.path.begin(), e.path.end(), "/properties/items/items: object with keys \"sku\", \"qty\""), e.path.end());
}

TEST(ExplainSchema, AWrongKeyListsTheKeysThatMayComeThere) {
  auto g = compile_schema(R"({"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"}},
                              "additionalProperties":false})");
  const grammar::Explanation e = grammar::explain_rejection(g, R"({"mail":1})");
  EXPECT_EQ(e.offset, 2u);
  EXPECT_EQ(e.expected, "expected key \"email\" or \"name\"");
  const grammar::Explanation start = grammar::explain_rejection(g, R"({x)");
  EXPECT_EQ(start.expected, "expected one of: key \"email\" key \"name\" \"}\"");
}

TEST(ExplainSchema, AfterAMemberTheSeparatorAndTheCloseAreExpected) {
  auto g = compile_schema(R"({"type":"object","properties":{"a":{"type":"boolean"},"b":{"type":"boolean"}}})");
  const grammar::Explanation e = grammar::explain_rejection(g, R"({"a":true;)");
  EXPECT_EQ(e.expected, "expected one of: \",\" \"}\"");
  EXPECT_EQ(grammar::byte_class_text(e.expected_bytes), "[,}]");
  const grammar::Explanation value = grammar::explain_rejection(g, R"({"a":x)");
  EXPECT_EQ(value.expected, "expected one of: \"false\" \"true\"");
  ASSERT_FALSE(value.path.empty());
  EXPECT_EQ(value.path.back(), "/properties/a: boolean");
}

TEST(ExplainSchema, SharedSubSchemasAreNamedAtThePlaceTheyAreOpen) {
  // Both properties have the same schema, hence one rule: the path names the property written.
  auto g = compile_schema(R"({"type":"object","properties":{"x":{"type":"integer","minimum":0},"y":{"type":"integer","minimum":0}}})");
  const grammar::Explanation e = grammar::explain_rejection(g, R"({"x":1,"y":-)");
  ASSERT_FALSE(e.path.empty());
  EXPECT_EQ(e.path.back(), "/properties/y: integer >= 0");
}

TEST(ExplainSchema, StringsAndEndsOfInputAreDescribed) {
  auto g = compile_schema(R"({"type":"string"})");
  const grammar::Explanation inside = grammar::explain_rejection(g, "\"ab\x01");
  EXPECT_EQ(inside.expected, "expected one of: \"\\\"\" \"\\\\\" or a string character");
  const grammar::Explanation after = grammar::explain_rejection(g, "\"ab\" ");
  EXPECT_TRUE(after.can_end);
  EXPECT_EQ(after.expected, "expected end of input");
}

TEST(ExplainSchema, AClosingQuoteIsNotTakenForTheStartOfAQuotedLiteral) {
  auto g = compile_schema(R"({"type":"array","items":{"type":"string","maxLength":2}})");
  const grammar::Explanation e = grammar::explain_rejection(g, R"(["ab","cde"])");
  EXPECT_EQ(e.offset, 9u);
  EXPECT_EQ(e.expected, "expected \"\\\"\"");
}

TEST(ExplainSchema, AnyOrderObjectsExplainWhatTheirKeySetStillAllows) {
  JsonFormatOptions fmt;
  fmt.property_order = JsonPropertyOrder::Flexible;
  auto g = compile_schema(R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],
                              "additionalProperties":false})",
                          fmt);
  // After "b", only "a" remains and the object may not close yet.
  const grammar::Explanation e = grammar::explain_rejection(g, R"({"b":1})");
  EXPECT_EQ(e.offset, 6u);
  EXPECT_EQ(e.expected, "expected one of: \",\" or a digit");
  const grammar::Explanation key = grammar::explain_rejection(g, R"({"b":1,"b)");
  EXPECT_EQ(key.expected, "expected key \"a\"");
}

TEST(ExplainSchema, RegexAndChoiceConstraintsNameTheirPatternAndOptions) {
  auto re = compile(OutputConstraint::regex("[a-c]{2}-[0-9]+"));
  const grammar::Explanation r = grammar::explain_rejection(re, "ab_");
  EXPECT_EQ(r.expected, "expected \"-\"");
  EXPECT_EQ(r.path, (std::vector<std::string>{"regex [a-c]{2}-[0-9]+"}));
  auto ch = compile(OutputConstraint::choice({"red", "green", "blue"}));
  const grammar::Explanation c = grammar::explain_rejection(ch, "gx");
  EXPECT_EQ(c.expected, "expected \"reen\"");
  ASSERT_EQ(c.path.size(), 1u);
  EXPECT_EQ(c.path[0].rfind("one of 3 options:", 0), 0u) << c.path[0];
}

TEST(ExplainSchema, EnumsAndNumberRangesAreDescribedInThePath) {
  auto g = compile_schema(R"({"type":"object","properties":{"color":{"enum":["red","green"]},"n":{"type":"number","maximum":2.5}}})");
  const grammar::Explanation e = grammar::explain_rejection(g, R"({"color":"x)");
  EXPECT_EQ(e.expected, "expected one of: \"green\" \"red\"");
  ASSERT_FALSE(e.path.empty());
  EXPECT_EQ(e.path.back(), "/properties/color: enum of 2 values");
  const grammar::Explanation n = grammar::explain_rejection(g, R"({"n":x)");
  ASSERT_FALSE(n.path.empty());
  EXPECT_EQ(n.path.back(), "/properties/n: number <= 2.5");
}

}  // namespace
}  // namespace ninfer::text
