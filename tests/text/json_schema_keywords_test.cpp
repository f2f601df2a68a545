// One test per JSON Schema keyword or feature of the compiler, with hand-written texts of the
// generation language that must be accepted or refused, and the typed errors (kind, keyword,
// JSON Pointer) of what is not supported, not a schema, or unsatisfiable.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "text/json_schema_test_support.h"

namespace ninfer::text::testing {
namespace {

using Texts = std::vector<std::string>;

// Every text of `accept` is a complete sentence of the schema's language, no text of `refuse` is.
void expect_language(const std::string& schema, const Texts& accept, const Texts& refuse,
                     const JsonFormatOptions& fmt = {}) {
  SCOPED_TRACE("schema: " + schema);
  std::shared_ptr<const grammar::CompiledGrammar> g;
  try {
    g = compile_schema(schema, fmt);
  } catch (const ConstraintError& e) {
    ADD_FAILURE() << "does not compile: " << constraint_error_kind_name(e.kind()) << ": " << e.what();
    return;
  }
  for (const auto& t : accept) EXPECT_TRUE(accepts(g, t)) << "should accept: " << t;
  for (const auto& t : refuse) EXPECT_FALSE(accepts(g, t)) << "should refuse: " << t;
}

// The schema raises a ConstraintError of `kind` at `pointer` (and, when given, naming `keyword`).
void expect_error(const std::string& schema, ConstraintErrorKind kind, const std::string& pointer,
                  const std::string& keyword = "", const JsonFormatOptions& fmt = {}) {
  SCOPED_TRACE("schema: " + schema);
  const auto e = schema_error(schema, fmt);
  ASSERT_TRUE(e.has_value()) << "compiles, expected " << constraint_error_kind_name(kind);
  EXPECT_EQ(constraint_error_kind_name(e->kind()), std::string(constraint_error_kind_name(kind))) << e->what();
  EXPECT_EQ(e->pointer(), pointer) << e->what();
  if (kind == ConstraintErrorKind::UnsupportedSchema || !keyword.empty()) {
    EXPECT_EQ(e->keyword(), keyword) << e->what();
  }
  EXPECT_NE(std::string(e->what()), "");
}

constexpr ConstraintErrorKind kUnsupported = ConstraintErrorKind::UnsupportedSchema;
constexpr ConstraintErrorKind kInvalid = ConstraintErrorKind::InvalidJsonSchema;
constexpr ConstraintErrorKind kUnsat = ConstraintErrorKind::Unsatisfiable;

// ---- whitespace

TEST(JsonSchemaKeywords, CompactWhitespace) {
  const std::string s =
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"integer"}}}})";
  expect_language(s, {R"({"a":1,"b":[1,2]})", R"({"a":1})", R"({})", R"({"b":[]})"},
                  {R"({"a": 1})", R"({ "a":1})", R"({"a":1 })", R"( {"a":1})", R"({"a":1} )", R"({"a":1,"b":[1, 2]})",
                   R"({"a":1, "b":[]})", "{\"a\":1,\n\"b\":[]}", R"({"b":[ ]})", R"({"a":1,})"});
}

TEST(JsonSchemaKeywords, FlexibleWhitespaceBoundedRuns) {
  const std::string s =
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"integer"}}}})";
  expect_language(
      s,
      {R"({"a":1,"b":[1,2]})", R"({ "a" : 1 , "b" : [ 1 , 2 ] })", "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}",
       "{\t\"a\":\r\n1}", "{        \"a\":1}" /* 8 spaces */, R"({ })", R"({"b":[ ]})"},
      {R"( {"a":1})", R"({"a":1} )", "{\"a\":1}\n", "{         \"a\":1}" /* 9 spaces */, "{\v\"a\":1}",
       "{\xC2\xA0\"a\":1}", R"({"a":- 1})", R"({"a":1 2})", R"({"b":[1 ,, 2]})", R"({"a":1,})"},
      flexible());
  // The run bound is configurable and counts every whitespace byte of a run.
  expect_language(s, {R"({  "a":1})", "{\r\n\"a\":1}"}, {R"({   "a":1})", "{ \r\n\"a\":1}"}, flexible(2));
  // Whitespace never enters strings, numbers or literals.
  expect_language(R"({"enum":[{"k":[true,null]}]})", {R"({"k":[true,null]})", R"({ "k" : [ true , null ] })"},
                  {R"({"k":[tr ue,null]})", R"({" k":[true,null]})", R"(  {"k":[true,null]})"}, flexible());
}

// Whitespace inside an empty object or array is one run too: it must respect the bound.
TEST(JsonSchemaKeywords, FlexibleWhitespaceRunInEmptyContainers) {
  expect_language(R"({"type":"object","properties":{"a":{"type":"array"}}})", {"{  }", R"({"a":[  ]})", R"({"a":[]})"},
                  {"{   }", R"({"a":[   ]})", "{    }"}, flexible(2));
  expect_language(R"({"const":{"k":{}}})", {R"({"k":{  }})"}, {R"({"k":{   }})"}, flexible(2));
}

// ---- objects

// Found by json_schema_fuzz: a number beyond binary64 is valid JSON syntax that the parser
// cannot hold; it must be a typed error, not an escaping exception.
TEST(JsonSchemaKeywords, NumbersBeyondBinary64AreInvalidSchemas) {
  expect_error(R"({"type":"number","maximum":1e400})", ConstraintErrorKind::InvalidJsonSchema, "");
  expect_error("888e8888888888876", ConstraintErrorKind::InvalidJsonSchema, "");
}

TEST(JsonSchemaKeywords, DeclaredPropertyOrder) {
  const std::string s =
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}}})";
  expect_language(
      s, {R"({"a":1,"b":2,"c":3})", R"({"a":1,"c":3})", R"({"b":2})", R"({})", R"({"a":1,"b":2,"c":3,"x":4})"},
      {R"({"b":2,"a":1})", R"({"c":3,"a":1})", R"({"a":1,"c":3,"b":2})", R"({"x":4,"a":1})", R"({"a":1,"a":1})"});
  // Declared order survives allOf: a part's own properties first, then those of its allOf parts.
  // (additionalProperties only sees the properties of its own schema object, so it stays out.)
  expect_language(R"({"properties":{"z":{}},"allOf":[{"properties":{"m":{}}},{"properties":{"a":{}}}]})",
                  {R"({"z":1,"m":2,"a":3})", R"({"m":2,"a":3})", R"({"z":1,"q":2})"},
                  {R"({"a":3,"m":2})", R"({"m":2,"z":1})", R"({"q":2,"z":1})"});
  expect_language(R"({"properties":{"z":{}},"allOf":[{"properties":{"m":{}}}],"additionalProperties":false})",
                  {R"({"z":1})"}, {R"({"z":1,"m":2})", R"({"m":2})"});
}

JsonFormatOptions flexible_order() {
  JsonFormatOptions f;
  f.property_order = JsonPropertyOrder::Flexible;
  return f;
}

// Flexible order, small objects: every sequence of up to 5 keys drawn from the declared names and
// one additional name is accepted exactly when no declared name repeats and every required name
// is there (brute force over 6^0 + ... + 6^5 sequences).
TEST(JsonSchemaKeywords, FlexiblePropertyOrderAcceptsExactlyThePermutations) {
  const std::string s =
      R"({"type":"object","properties":{"a":{"type":"integer"},"bb":{"type":"integer"},"c":{"type":"integer"},"d":{"type":"integer"}},"required":["c","a"],"additionalProperties":{"type":"integer"}})";
  const auto g = compile_schema(s, flexible_order());
  const std::vector<std::string> names{"a", "bb", "c", "d", "x", "y"};  // x, y: additional
  size_t accepted = 0, checked = 0;
  std::vector<size_t> seq;
  std::function<void()> visit = [&]() {
    std::string text = "{";
    std::set<std::string> seen;
    bool unique = true;
    for (size_t i = 0; i < seq.size(); ++i) {
      const std::string& k = names[seq[i]];
      if (k.size() <= 2 && k != "x" && k != "y" && !seen.insert(k).second) unique = false;
      text += (i ? "," : "") + ("\"" + k + "\":" + std::to_string(i));
    }
    text += "}";
    const bool expect = unique && seen.count("a") && seen.count("c");
    EXPECT_EQ(accepts(g, text), expect) << text;
    accepted += expect, ++checked;
    if (seq.size() == 5) return;
    for (size_t k = 0; k < names.size(); ++k) {
      seq.push_back(k);
      visit();
      seq.pop_back();
    }
  };
  visit();
  EXPECT_EQ(checked, 1u + 6 + 36 + 216 + 1296 + 7776);
  EXPECT_GT(accepted, 1000u);
  // Without additional properties, nothing else gets in; declared values keep their schemas.
  expect_language(R"({"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"additionalProperties":false})",
                  {R"({"b":"x","a":1})", R"({"a":1,"b":"x"})", R"({})"},
                  {R"({"b":1,"a":1})", R"({"b":"x","b":"y"})", R"({"c":1})"}, flexible_order());
  // Counted members stay exact in any order.
  expect_language(R"({"properties":{"a":{},"b":{},"c":{}},"minProperties":2,"maxProperties":2})",
                  {R"({"c":1,"a":2})", R"({"b":1,"x":2})", R"({"x":1,"c":2})"},
                  {R"({"c":1})", R"({"c":1,"a":2,"b":3})", R"({"a":1,"a":2})"}, flexible_order());
}

// Flexible order, objects past the size bound: the declared order, or `required` (in its own
// order) first and the other declared names after; additional names anywhere, declared ones once.
TEST(JsonSchemaKeywords, FlexiblePropertyOrderOfLargeObjects) {
  std::string props;
  for (char c = 'a'; c <= 'h'; ++c) props += std::string(props.empty() ? "" : ",") + "\"" + c + "\":{\"type\":\"integer\"}";
  const std::string s = R"({"type":"object","properties":{)" + props + R"(},"required":["f","b"]})";
  expect_language(s,
                  {R"({"a":1,"b":2,"f":3})", R"({"f":1,"b":2,"a":3,"c":4})", R"({"f":1,"b":2})",
                   R"({"z":0,"b":2,"q":0,"f":3,"h":4,"r":5})", R"({"f":1,"b":2,"z":"s","h":3})", R"({"b":1,"f":2,"a":3})",
                   R"({"f":1,"a":2,"b":3})", R"({"h":1,"f":2,"b":3})",
                   R"({"h":1,"g":2,"f":3,"e":4,"d":5,"c":6,"b":7,"a":8})"},
                  {R"({"a":1,"b":2})", R"({"f":1,"b":2,"f":3})", R"({"a":1,"z":2,"a":3,"b":4,"f":5})", R"({"b":1})",
                   R"({"h":1,"g":2,"f":3,"e":4,"d":5,"c":6,"a":8,"h":9,"b":7})"},
                  flexible_order());
  // 40 declared keys, 10 required, no others: every permutation is accepted, a repeated key or
  // a missing required key is refused.
  std::string many, req;
  for (int i = 0; i < 40; ++i) {
    many += std::string(i ? "," : "") + "\"k" + std::to_string(i) + "\":{\"type\":\"integer\"}";
    if (i % 4 == 0) req += std::string(req.empty() ? "" : ",") + "\"k" + std::to_string(i) + "\"";
  }
  const std::string big =
      R"({"type":"object","properties":{)" + many + R"(},"required":[)" + req + R"(],"additionalProperties":false})";
  std::vector<int> order(40);
  for (int i = 0; i < 40; ++i) order[i] = i;
  std::mt19937 rng(7);
  std::vector<std::string> valid, invalid;
  auto text = [](const std::vector<int>& keys) {
    std::string t = "{";
    for (size_t i = 0; i < keys.size(); ++i) t += std::string(i ? "," : "") + "\"k" + std::to_string(keys[i]) + "\":" + std::to_string(i);
    return t + "}";
  };
  for (int round = 0; round < 6; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    valid.push_back(text(order));
    std::vector<int> dup = order;
    dup.push_back(order[round]);
    invalid.push_back(text(dup));
    std::vector<int> missing;
    for (int k : order)
      if (k != round * 4) missing.push_back(k);
    invalid.push_back(text(missing));
  }
  expect_language(big, valid, invalid, flexible_order());
}

TEST(JsonSchemaKeywords, AdditionalPropertiesHaveUndeclaredNames) {
  const std::string s =
      R"({"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"string"}})";
  expect_language(s,
                  {R"({"a":1,"b":"x"})", R"({"b":"x"})", R"({"ab":"x"})", R"({"a ":"x"})", R"({"A":"x"})",
                   R"({"a":1,"b":"x","c":"y"})"},
                  {R"({"b":"x","a":1})",    // additional properties come after the declared ones
                   R"({"a":"x"})",          // a declared name keeps its own schema
                   R"({"b":"x","a":"y"})",  // an omitted optional property cannot reappear as an additional one
                   R"({"a":1,"a":"x"})", R"({"b":1})", R"({"\u0061":"x"})"});
  expect_language(R"({"properties":{"a":{"type":"integer"}},"additionalProperties":false})", {R"({"a":1})", R"({})"},
                  {R"({"b":"x"})", R"({"a":1,"b":2})"});
  // additionalProperties: true / absent = any value for any other name.
  expect_language(R"({"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true})",
                  {R"({"a":1,"b":{"c":[null]}})"}, {R"({"a":"x"})"});
}

TEST(JsonSchemaKeywords, RequiredNamesNeedNotBeDeclared) {
  const std::string s =
      R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a","z"],"additionalProperties":{"type":"boolean"}})";
  expect_language(s, {R"({"a":1,"z":true})", R"({"a":1,"z":true,"k":false})"},
                  {R"({"a":1})", R"({"z":true})", R"({"z":true,"a":1})", R"({"a":1,"z":1})",
                   R"({"a":1,"k":false,"z":true})", R"({})", "5"});
  // Required names are emitted in the order `required` mentions them, after the declared names.
  expect_language(R"({"type":"object","properties":{"m":{}},"required":["y","x"]})",
                  {R"({"m":1,"y":2,"x":3})", R"({"y":2,"x":3})"}, {R"({"x":3,"y":2})", R"({"y":2,"x":3,"m":1})"});
  // Without a type, required only constrains objects.
  expect_language(R"({"required":["a"]})", {R"({"a":1})", "1", R"("x")", "[]"}, {R"({})", R"({"b":1})"});
}

TEST(JsonSchemaKeywords, MinMaxPropertiesCountEveryMember) {
  const std::string s = R"({"type":"object","properties":{"a":{},"b":{}},"minProperties":2,"maxProperties":3})";
  expect_language(
      s,
      {R"({"a":1,"b":2})", R"({"a":1,"x":0})", R"({"a":1,"b":2,"x":3})", R"({"x":1,"y":2})", R"({"b":1,"x":2,"y":3})"},
      {R"({"a":1})", R"({})", R"({"x":1})", R"({"a":1,"b":2,"x":3,"y":4})", R"({"x":1,"y":2,"z":3,"w":4})"});
  expect_language(R"({"type":"object","maxProperties":0})", {R"({})"}, {R"({"a":1})"});
  expect_language(
      R"({"type":"object","properties":{"a":{}},"required":["a"],"maxProperties":1,"additionalProperties":true})",
      {R"({"a":1})"}, {R"({"a":1,"b":2})", R"({})"});
  expect_error(R"({"type":"object","minProperties":3,"maxProperties":2})", kUnsat, "");
  expect_error(R"({"type":"object","properties":{"a":{}},"minProperties":2,"additionalProperties":false})", kUnsat, "");
}

// A text with a repeated name parses (last value wins) into an object with fewer properties:
// counting members must not let `{"b":1,"b":2}` through `minProperties: 2`.
// Additional names are not kept distinct from one another, so {"b":1,"b":2} (one property once
// parsed) would count twice: a minimum that only additional properties can reach is refused.
TEST(JsonSchemaKeywords, MinPropertiesIsNotMetByRepeatedNames) {
  expect_error(R"({"type":"object","minProperties":2})", ConstraintErrorKind::UnsupportedSchema, "", "minProperties");
  // Reachable with declared names alone: supported and exact.
  expect_language(R"({"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false,"minProperties":2})",
                  {R"({"a":1,"b":2})"}, {R"({"a":1})", R"({"b":1,"b":2})"});
}

// ---- arrays

TEST(JsonSchemaKeywords, PrefixItemsItemsAndCounts) {
  expect_language(
      R"({"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":{"type":"boolean"},"minItems":1,"maxItems":4})",
      {"[1]", R"([1,"a"])", R"([1,"a",true])", R"([1,"a",true,false])"},
      {"[]", R"(["a"])", "[1,2]", R"([1,"a",1])", R"([1,"a",true,false,true])", R"([1,"a",])"});
  // items: false closes the tuple; minItems may not reach past it.
  expect_language(R"({"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false})",
                  {"[]", "[1]", R"([1,"a"])"}, {R"([1,"a",true])", R"(["a"])"});
  expect_error(R"({"type":"array","prefixItems":[{}],"items":false,"minItems":2})", kUnsat, "");
  // minItems beyond the prefix requires rest items; maxItems inside the prefix truncates it.
  expect_language(R"({"prefixItems":[{"type":"integer"}],"items":{"type":"boolean"},"minItems":3})",
                  {"[1,true,false]", "[1,true,true,true]"}, {"[1]", "[1,true]", "[1,2,3]"});
  expect_language(R"({"type":"array","prefixItems":[{"const":1},{"const":2},{"const":3}],"maxItems":2})",
                  {"[]", "[1]", "[1,2]"}, {"[1,2,3]", "[2]"});
  // Uniform items with counts.
  expect_language(R"({"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":3})", {"[1,2]", "[1,2,3]"},
                  {"[]", "[1]", "[1,2,3,4]", R"([1,"2"])"});
  expect_language(R"({"type":"array","maxItems":0})", {"[]"}, {"[1]"});
  expect_error(R"({"type":"array","minItems":3,"maxItems":2})", kUnsat, "");
  // Schemas of the same position combine across allOf parts.
  expect_language(R"({"allOf":[{"prefixItems":[{"type":"integer"}]},{"prefixItems":[{"minimum":5}],"items":false}]})",
                  {"[5]", "[]"}, {"[4]", "[5,1]", "[5.5]"});
}

TEST(JsonSchemaKeywords, Draft07ItemsArrayAndAdditionalItems) {
  expect_language(
      R"({"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"},{"type":"string"}],"additionalItems":{"type":"null"}})",
      {"[]", "[1]", R"([1,"a"])", R"([1,"a",null,null])"}, {R"(["a"])", R"([1,"a",1])"});
  expect_language(
      R"({"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":false})",
      {"[1]"}, {"[1,2]"});
  // In 2020-12, `items` as an array is not a schema; prefixItems is the tuple keyword.
  expect_language(R"({"prefixItems":[{"type":"integer"}],"items":{"type":"string"}})", {R"([1,"a"])"}, {"[1,2]"});
}

// ---- numbers

TEST(JsonSchemaKeywords, IntegerRanges) {
  expect_language(R"({"type":"integer","minimum":-15,"maximum":120})", {"-15", "-1", "0", "9", "99", "120", "-10"},
                  {"-16", "121", "-0", "01", "1.0", "1e2", "+1", "-", "1000", "-150"});
  expect_language(R"({"type":"integer","minimum":-1000,"maximum":-10})", {"-10", "-1000", "-999", "-11"},
                  {"-9", "-1001", "0", "10", "-10000"});
  expect_language(R"({"type":"integer"})", {"0", "-1", "123456789012345678901234567890"},
                  {"-0", "1.0", "1e2", "00", "1.5"});
}

TEST(JsonSchemaKeywords, IntegerInt64Extremes) {
  expect_language(R"({"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807})",
                  {"-9223372036854775808", "9223372036854775807", "0"},
                  {"9223372036854775808", "-9223372036854775809"});
  expect_language(R"({"type":"integer","format":"int64"})", {"-9223372036854775808", "9223372036854775807"},
                  {"9223372036854775808", "-9223372036854775809"});
  expect_language(R"({"type":"integer","format":"int32"})", {"2147483647", "-2147483648"},
                  {"2147483648", "-2147483649"});
}

// Bounds beyond int64 clamp to the int64 extremes: MaskBench's sp_160 has maximum
// 9223372036854776000, and an unbounded digit string would let 9223372036854776001 through.
TEST(JsonSchemaKeywords, IntegerBoundsBeyondInt64Clamp) {
  expect_language(R"({"type":"integer","minimum":0,"maximum":9223372036854776000})",
                  {"0", "9223372036854775807", "1643723400"},
                  {"9223372036854776001", "9223372036854776000", "92233720368547760010", "-1"});
  expect_language(R"({"type":"integer","maximum":1e300})", {"9223372036854775807", "-5"},
                  {std::string(400, '9'), "9223372036854775808"});
  expect_language(R"({"type":"integer","minimum":-1e300})", {"-9223372036854775808", "5"},
                  {"-" + std::string(400, '9'), "-9223372036854775809"});
  expect_language(R"({"type":"integer","minimum":-18446744073709551615,"maximum":3})", {"-9223372036854775808", "3"},
                  {"-9223372036854775809", "4"});
}

// int64 bounds are exact: bounds above 2^53 do not round through binary64.
TEST(JsonSchemaKeywords, IntegerBoundsAboveTwoToThe53AreExact) {
  expect_language(R"({"type":"integer","minimum":9223372036854775806})", {"9223372036854775806", "9223372036854775807"},
                  {"9223372036854775805"});
  expect_language(R"({"type":"integer","maximum":9007199254740993})", {"9007199254740993", "9007199254740992"},
                  {"9007199254740994"});
  expect_language(R"({"type":"integer","maximum":9007199254740995})", {"9007199254740995"}, {"9007199254740996"});
  expect_language(R"({"type":"integer","exclusiveMaximum":9223372036854775807})", {"9223372036854775806"},
                  {"9223372036854775807"});
  expect_language(R"({"type":"integer","exclusiveMinimum":-9223372036854775808})", {"-9223372036854775807"},
                  {"-9223372036854775808"});
}

TEST(JsonSchemaKeywords, ExclusiveBounds) {
  expect_language(R"({"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10})", {"1", "9", "5"},
                  {"0", "10", "-1", "11"});
  expect_language(R"({"type":"integer","exclusiveMinimum":-2.5,"exclusiveMaximum":2.5})", {"-2", "2", "0"},
                  {"-3", "3"});
  // draft-04 boolean exclusiveMinimum/exclusiveMaximum modify minimum/maximum (in every draft).
  expect_language(
      R"({"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":3,"exclusiveMaximum":true})",
      {"1", "2"}, {"0", "3"});
  expect_language(R"({"type":"integer","minimum":0,"exclusiveMinimum":false,"maximum":3})", {"0", "3"}, {"-1", "4"});
  expect_language(R"({"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1})",
                  {"0.5", "0.000000000000001", "0.999999999999999"}, {"0", "1", "1.0", "0.0", "-0.5", "1.5"});
}

TEST(JsonSchemaKeywords, BoundedNumbersCompareExactly) {
  const std::string s = R"({"type":"number","minimum":-1.5,"maximum":2.25})";
  expect_language(s, {"-1.5", "-1.49", "0", "0.5", "2.25", "2.2499999", "1", "-1", "2.250", "0.0", "1e0", "2.25e0",
                      "-0", "225E-2", "-15e-1", "0.0225e+2", "-0.15e1", "0e99", "2.25e000"},
                  {"-1.51", "2.2500001", "2.26", "3", "-2", "00.5", ".5", "1.", "+1", "2.2500000000000000001", "2.26e0",
                   "226e-2", "-1.51e0", "1e1", "1e", "1e+", "1.e0", "e1", "-0.151e1"});
  // Bounds are compared as the decimals written in the schema, not as binary64 values:
  // 0.30000000000000001 parses to the same double as 0.3 but is above it.
  expect_language(R"({"type":"number","maximum":0.3})", {"0.3", "0.29999999999999999", "-5"},
                  {"0.30000000000000001", "0.3000000000000001", "0.31"});
  expect_language(R"({"type":"number","minimum":0.1})", {"0.1", "0.10000000000000001", "7"},
                  {"0.09999999999999999", "0"});
  // Exponent spellings are accepted within the bounds (issue 10: 1e0 and 10e-1 under [0.5, 1.5]).
  expect_language(R"({"type":"number","minimum":0.5,"maximum":1.5})", {"1e0", "10e-1", "1", "0.5", "1.5", "15E-1", "5e-1"},
                  {"1e1", "1e-1", "16e-1", "4.9e-1", "0"});
  // A mantissa's integer part has at most 15 digits, the exponent at most 290 (finite binary64).
  expect_language(R"({"type":"number","minimum":0})",
                  {"0", "12.5", "999999999999999", "999999999999999.5", "1e3", "1e290", "1.5e-290", "15E+289"},
                  {"-1", "1000000000000000", "1e291", "1e308", "1e-400", "-1e-3"});
}

TEST(JsonSchemaKeywords, BoundedNumberDigitCaps) {
  // Inclusive bounds: rounding to binary64 is monotonic, so any number of digits stays in range.
  expect_language(R"({"type":"number","minimum":-1.5,"maximum":2.25})",
                  {"1.2345678901234567", "0.000000000000000000001"}, {});
  // Exclusive bounds: at most 15 significant digits, so that no text rounds onto the bound.
  expect_language(R"({"type":"number","minimum":0,"exclusiveMaximum":1})",
                  {"0.999999999999999", "0.99999999999999", "0.5"},
                  {"0.9999999999999999", "0.99999999999999999", "0.999999999999999999999", "1"});
  expect_language(R"({"type":"number","exclusiveMinimum":1,"maximum":2})", {"1.00000000000001", "2"},
                  {"1.000000000000001", "1.0000000000000000001", "1"});
}

TEST(JsonSchemaKeywords, MultipleOf) {
  expect_language(R"({"type":"integer","multipleOf":7,"minimum":-20,"maximum":30})", {"-14", "0", "7", "28", "-7"},
                  {"1", "-20", "35", "30", "-21", "14.0"});
  // (multipleOf goes through the bounded-number automaton: magnitudes below 1e15.)
  expect_language(R"({"type":"integer","multipleOf":3})", {"0", "9", "12345", "-3", "999999999999999"},
                  {"10", "-4", "12346", "-0", "03"});
  // A multiple of an integer is an integer, even for type number.
  expect_language(R"({"type":"number","multipleOf":5})", {"10", "-5", "0"}, {"10.5", "10.0", "7"});
  // Divisors combine (least common multiple).
  expect_language(R"({"type":"integer","allOf":[{"multipleOf":2},{"multipleOf":3}]})", {"12", "0", "-6"},
                  {"4", "9", "3"});
  expect_error(R"({"type":"number","multipleOf":0.5})", kUnsupported, "/multipleOf", "multipleOf");
  expect_error(R"({"properties":{"p":{"type":"integer","multipleOf":1000003}}})", kUnsupported,
               "/properties/p/multipleOf", "multipleOf");
}

// ---- strings

TEST(JsonSchemaKeywords, StringLengthsCountScalarValuesAndEscapesAreCanonical) {
  expect_language(
      R"({"type":"string","minLength":2,"maxLength":3})",
      {R"("ab")", "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"", R"("\n\t")", R"("\u0001x")", R"("\"\\")", R"("\u001fa")"},
      {R"("a")", R"("abcd")", R"("\u0041b")", R"("\/a")", R"("\u001Fa")", "\"a\tb\"", R"("\ud83d\ude00a")", R"("ab)",
       "ab"});
  expect_language(R"({"type":"string"})", {R"("")", "\"\xC3\xA9\"", "\"\x7F\"", R"("\b\f\r")"},
                  {R"("\u00e9")", R"("\u007f")", R"("\u0008")", "\"\xC3\"", "\"\xED\xA0\x80\"", "\"\n\""});
  expect_error(R"({"type":"string","maxLength":100000})", kUnsupported, "", "maxLength");
}

// Long bounds are compiled as blocks of characters plus a tail; every length near a block
// boundary or a bound, with multi-byte characters and escapes, is checked against the bounds.
TEST(JsonSchemaKeywords, LongStringLengthsAreExactAcrossBlocks) {
  const char* units[] = {"a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\\n", "\\u0001", "\\\"", "z"};
  auto text = [&](uint32_t n) {
    std::string s = "\"";
    for (uint32_t i = 0; i < n; ++i) s += units[(i * 5 + i / 7) % 8];
    return s + "\"";
  };
  const uint32_t unbounded = UINT32_MAX;
  const std::pair<uint32_t, uint32_t> bounds[] = {{0, 300},   {0, 257},   {100, 300}, {256, 256}, {257, 257},
                                                  {300, 300}, {129, 450}, {0, 1000},  {300, unbounded}, {640, 700}};
  for (auto [lo, hi] : bounds) {
    std::string schema = R"({"type":"string","minLength":)" + std::to_string(lo);
    if (hi != unbounded) schema += R"(,"maxLength":)" + std::to_string(hi);
    schema += "}";
    std::set<uint32_t> lengths{0, 1, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 257, 258, 320, 1100};
    for (uint32_t v : {lo, hi})
      if (v != unbounded)
        for (uint32_t d = 0; d < 3; ++d) lengths.insert(v + d), lengths.insert(v >= d ? v - d : 0);
    std::vector<std::string> accepted, rejected;
    for (uint32_t n : lengths) (n >= lo && (hi == unbounded || n <= hi) ? accepted : rejected).push_back(text(n));
    SCOPED_TRACE(schema);
    expect_language(schema, accepted, rejected);
  }
}

TEST(JsonSchemaKeywords, PatternSearchSemanticsAndAnchors) {
  expect_language(R"({"type":"string","pattern":"ab"})", {R"("ab")", R"("xxabyy")", R"("ab ab")"},
                  {R"("a")", R"("")", R"("ba")"});
  expect_language(R"({"type":"string","pattern":"^ab"})", {R"("ab")", R"("abz")"}, {R"("zab")"});
  expect_language(R"({"type":"string","pattern":"ab$"})", {R"("zab")"}, {R"("abz")"});
  expect_language(R"({"type":"string","pattern":"^a[0-9]{2}$"})", {R"("a12")"}, {R"("a123")", R"("a1")", R"("xa12")"});
  expect_language(R"({"type":"string","pattern":"\\."})", {R"("a.b")"}, {R"("ab")"});
  // The pattern sees decoded characters; the text carries canonical escapes.
  expect_language(R"({"type":"string","pattern":"^\"\n$"})", {R"("\"\n")"}, {"\"\"\n\"", R"("\u0022\n")"});
  // pattern with other string keywords; patterns only constrain strings.
  expect_language(R"({"pattern":"^x+$","maxLength":2})", {R"("x")", R"("xx")", "5", "null"},
                  {R"("xxx")", R"("xy")", R"("")"});
  expect_error(R"j({"type":"string","pattern":"(?=a)"})j", kUnsupported, "/pattern", "pattern");
  expect_error(R"({"properties":{"p":{"pattern":"\\p{L}"}}})", kUnsupported, "/properties/p/pattern", "pattern");
}

TEST(JsonSchemaKeywords, FormatDate) {
  expect_language(R"({"type":"string","format":"date"})",
                  {R"("2000-02-29")", R"("2024-02-29")", R"("2400-02-29")", R"("2023-12-31")", R"("0000-01-01")",
                   R"("2023-04-30")"},
                  {R"("1900-02-29")", R"("2023-02-29")", R"("2100-02-29")", R"("2023-04-31")", R"("2023-13-01")",
                   R"("2023-00-10")", R"("2023-1-01")", R"("2023-01-32")", R"("20230101")"});
}

TEST(JsonSchemaKeywords, FormatTimeAndDateTime) {
  expect_language(R"({"type":"string","format":"time"})",
                  {R"("12:30:00Z")", R"("23:59:59.999+14:00")", R"("00:00:00z")", R"("08:15:00-05:30")"},
                  {R"("12:30:00")", R"("24:00:00Z")", R"("12:60:00Z")", R"("12:30:00+24:00")", R"("1:30:00Z")"});
  expect_language(R"({"type":"string","format":"date-time"})",
                  {R"("2023-06-01T12:30:00Z")", R"("2023-06-01t12:30:00.123+05:30")", R"("2024-02-29T00:00:00-01:00")"},
                  {R"("2023-06-01 12:30:00Z")", R"("2023-06-01T12:30:00")", R"("2023-06-01T24:00:00Z")",
                   R"("2023-02-29T00:00:00Z")", R"("2023-06-01")"});
}

TEST(JsonSchemaKeywords, FormatDuration) {
  expect_language(R"({"type":"string","format":"duration"})",
                  {R"("P1Y")", R"("P1Y2M3DT4H5M6S")", R"("PT0S")", R"("P4W")", R"("P1D")", R"("PT36H")", R"("P1M2D")"},
                  {R"("P")", R"("PT")", R"("P1W2D")", R"("1Y")", R"("P1S")", R"("PT1D")",
                   // RFC 3339 Appendix A: a year is followed by months before days, hours by minutes before seconds.
                   R"("P1Y2D")", R"("PT1H2S")"});
}

TEST(JsonSchemaKeywords, FormatEmailAndHostname) {
  expect_language(R"({"type":"string","format":"email"})",
                  {R"("a@b.co")", R"("first.last+tag@sub.example.org")", R"("x_y-z@a-b.c")"},
                  {R"("a..b@c.com")", R"(".a@c.com")", R"("a.@c.com")", R"("a@-b.com")", R"("ab.com")",
                   R"("a b@c.com")", R"("a@b@c.com")"});
  const std::string label63(63, 'a');
  expect_language(R"({"type":"string","format":"hostname"})",
                  {R"("example.com")", R"("a")", R"("a-b.c")", "\"" + label63 + "\""},
                  {R"("-a.com")", R"("a-.com")", R"("a..b")", R"("a_b.com")", "\"" + label63 + "a\"", R"("")",
                   // "--" at positions 3-4 is refused outright (A-labels would need Punycode checks).
                   R"("xn--bcher-kva.example")"});
}

// RFC 5890/5891: a label with "xn--" is an A-label and must be valid Punycode of a valid U-label
// (the JSON-Schema-Test-Suite's hostname cases). Refusing every "??--" label would be a sound subset.
TEST(JsonSchemaKeywords, FormatHostnameRefusesInvalidALabels) {
  expect_language(R"({"type":"string","format":"hostname"})", {R"("example.com")"},
                  {R"("XN--aa---o47jg78q")", R"("xn--X")", R"("xn--hello-txk")", R"("xn--l-fda")"});
}

TEST(JsonSchemaKeywords, FormatIpAddresses) {
  expect_language(R"({"type":"string","format":"ipv4"})", {R"("192.168.0.1")", R"("0.0.0.0")", R"("255.255.255.255")"},
                  {R"("256.1.1.1")", R"("01.1.1.1")", R"("1.1.1")", R"("1.1.1.1.1")", R"("1.1.1.1 ")"});
  expect_language(R"({"type":"string","format":"ipv6"})",
                  {R"("::1")", R"("::")", R"("2001:db8::8a2e:370:7334")", R"("1:2:3:4:5:6:7:8")",
                   R"("::ffff:192.168.0.1")", R"("FE80::1")"},
                  {R"("1:2:3:4:5:6:7:8:9")", R"(":::1")", R"("12345::")", R"("1::2::3")", R"("fe80::1%eth0")",
                   R"("1:2:3:4:5:6:7")"});
}

TEST(JsonSchemaKeywords, FormatUuidAndUri) {
  expect_language(R"({"type":"string","format":"uuid"})",
                  {R"("123e4567-e89b-12d3-a456-426614174000")", R"("123E4567-E89B-12D3-A456-426614174000")"},
                  {R"("123e4567e89b12d3a456426614174000")", R"("123e4567-e89b-12d3-a456-42661417400")",
                   R"("g23e4567-e89b-12d3-a456-426614174000")", R"("{123e4567-e89b-12d3-a456-426614174000}")"});
  expect_language(R"({"type":"string","format":"uri"})",
                  {R"("https://example.com/path?q=1#frag")", R"("urn:isbn:0451450523")", R"("mailto:a@b.com")",
                   R"("http://user:pw@host:8080/a%20b")"},
                  {R"("//example.com")", R"("/relative")", R"("http://exa mple.com")", R"("1http://x")",
                   R"("http://x/%zz")", R"("example.com")"});
  // Formats constrain strings only; unknown formats are refused.
  expect_language(R"({"format":"uuid"})", {"1", "null"}, {R"("x")"});
  expect_error(R"({"type":"string","format":"idn-email"})", kUnsupported, "/format", "format");
  expect_error(R"({"properties":{"a":{"format":"uri-reference"}}})", kUnsupported, "/properties/a/format", "format");
}

// ---- enum / const

TEST(JsonSchemaKeywords, EnumAndConstFilteredBySiblings) {
  expect_language(R"({"type":"string","enum":["a","abcdef","xyz",1],"maxLength":3})", {R"("a")", R"("xyz")"},
                  {R"("abcdef")", "1", R"("ab")"});
  expect_language(R"({"enum":[1,"x",null,[1,2],{"k":1},true]})", {"1", R"("x")", "null", "[1,2]", R"({"k":1})", "true"},
                  {"[1, 2]", R"({"k": 1})", "false", "2", R"("y")", "[2,1]"});
  expect_language(R"({"enum":[1,2,3,4,5],"minimum":2,"exclusiveMaximum":5,"not":{"const":3}})", {"2", "4"},
                  {"1", "3", "5"});
  expect_language(R"({"const":"a\"b\u00e9"})", {"\"a\\\"b\xC3\xA9\""}, {R"("a\"b\u00e9")"});
  // Values inside enum objects are checked against properties too.
  expect_language(R"({"enum":[{"a":1},{"a":"x"}],"properties":{"a":{"type":"integer"}}})", {R"({"a":1})"},
                  {R"({"a":"x"})"});
  expect_error(R"({"type":"integer","enum":["a","b"]})", kUnsat, "/enum");
  expect_error(R"({"const":5,"minimum":6})", kUnsat, "/const");
  expect_error(
      R"({"type":"object","properties":{"p":{"type":"string","enum":["abcdef"],"maxLength":3}},"required":["p"]})",
      kUnsat, "/properties/p/enum");
}

// Equality and bounds on enum values above 2^53 are exact.
TEST(JsonSchemaKeywords, EnumValuesAboveTwoToThe53AreExact) {
  expect_language(R"({"type":"integer","enum":[9007199254740993,1],"maximum":9007199254740992})", {"1"},
                  {"9007199254740993"});
  expect_language(R"({"allOf":[{"enum":[9007199254740993,1]},{"enum":[9007199254740992,1]}]})", {"1"},
                  {"9007199254740993", "9007199254740992"});
}

// ---- applicators

TEST(JsonSchemaKeywords, AnyOfDistributesSiblings) {
  expect_language(
      R"({"type":"object","properties":{"kind":{"type":"string"}},"anyOf":[{"required":["a"],"properties":{"a":{"type":"integer"}}},{"required":["b"],"properties":{"b":{"type":"boolean"}}}]})",
      {R"({"kind":"x","a":1})", R"({"b":true})", R"({"kind":"y","a":1,"b":true})"},
      {R"({})", R"({"a":"s"})", R"({"kind":1,"a":1})", R"({"kind":"x"})"});
  expect_language(R"({"maxLength":3,"anyOf":[{"type":"string"},{"type":"integer","minimum":10}]})",
                  {R"("abc")", "12345"}, {R"("abcd")", "5", "null"});
  expect_language(R"({"anyOf":[{"type":"string","maxLength":1},{"type":"string","minLength":3}]})",
                  {R"("a")", R"("abc")", R"("")"}, {R"("ab")"});
}

TEST(JsonSchemaKeywords, OneOfExclusivityByTypes) {
  expect_language(R"({"oneOf":[{"type":"string"},{"type":"integer"}]})", {R"("x")", "5"}, {"true", "5.5", "null"});
  expect_language(R"({"oneOf":[{"type":"null"},{"type":"array","items":{"type":"integer"}}]})", {"null", "[1]"},
                  {R"(["a"])"});
  // Overlapping types: integers satisfy both, so only non-integral numbers remain.
  expect_language(R"({"oneOf":[{"type":"integer"},{"type":"number"}]})", {"1.5", "-0.25"}, {"1", "0", "true"});
}

TEST(JsonSchemaKeywords, OneOfExclusivityByEnum) {
  expect_language(R"({"oneOf":[{"enum":["a","b"]},{"enum":["c"]},{"const":1}]})", {R"("a")", R"("c")", "1"},
                  {R"("d")", "2"});
  expect_language(R"({"oneOf":[{"enum":["a","b"]},{"enum":["b","c"]}]})", {R"("a")", R"("c")"}, {R"("b")", R"("d")"});
}

TEST(JsonSchemaKeywords, OneOfExclusivityByDiscriminator) {
  const std::string s =
      R"({"oneOf":[{"type":"object","properties":{"kind":{"const":"cat"},"meow":{"type":"boolean"}},"required":["kind"]},)"
      R"({"type":"object","properties":{"kind":{"enum":["dog","wolf"]},"bark":{"type":"integer"}},"required":["kind"]}]})";
  expect_language(s, {R"({"kind":"cat","meow":true})", R"({"kind":"dog"})", R"({"kind":"wolf","bark":2})"},
                  {R"({"kind":"cow"})", R"({})", R"({"kind":"cat","meow":1})", R"({"kind":"dog","bark":"x"})"});
}

TEST(JsonSchemaKeywords, OneOfExclusivityByForbiddenProperty) {
  const std::string s =
      R"({"oneOf":[{"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":false},)"
      R"({"type":"object","properties":{"b":{}},"required":["b"],"additionalProperties":false}]})";
  expect_language(s, {R"({"a":1})", R"({"b":2})"}, {R"({"a":1,"b":2})", R"({})"});
  expect_language(
      R"({"oneOf":[{"type":"object","required":["a"],"properties":{"b":false}},{"type":"object","required":["b"]}]})",
      {R"({"a":1})", R"({"b":1})"}, {R"({"a":1,"b":1})", R"({})"});
}

// Alternatives that may overlap: each is taken with the negation of the others (exactly one holds).
TEST(JsonSchemaKeywords, OneOfOverlappingAlternativesExcludeEachOther) {
  expect_language(R"({"oneOf":[{"type":"object","required":["a"]},{"type":"object","required":["b"]}]})",
                  {R"({"a":1})", R"({"b":1})", R"({"a":1,"c":2})"}, {R"({"a":1,"b":2})", R"({})", "1"});
  // Non-numbers satisfy both bounds, so they fail exactly-one.
  expect_language(R"({"properties":{"x":{"oneOf":[{"minimum":0},{"maximum":10}]}}})",
                  {R"({"x":-1})", R"({"x":11})", R"({"x":10.5})", R"({})"},
                  {R"({"x":0})", R"({"x":10})", R"({"x":5})", R"({"x":"s"})", R"({"x":null})"});
  expect_language(R"({"oneOf":[{"type":"string"},{"type":"string","minLength":3}]})", {R"("ab")", R"("")"},
                  {R"("abc")", "1"});
  expect_language(R"({"oneOf":[{"required":["a"]},{"required":["b"]},{"required":["a","b"]}]})",
                  {R"({"a":1})", R"({"b":1})"}, {R"({"a":1,"b":1})", R"({})", "1", R"("s")"});
  // Without an expressible negation the oneOf stays refused.
  expect_error(R"({"oneOf":[{"multipleOf":2},{"multipleOf":3}]})", kUnsupported, "/oneOf", "oneOf");
}

TEST(JsonSchemaKeywords, AllOfMerges) {
  const std::string s =
      R"({"allOf":[{"type":"object","properties":{"a":{"type":"integer","minimum":0}},"required":["a"]},)"
      R"({"properties":{"a":{"maximum":10},"b":{"type":"string"}},"additionalProperties":false}]})";
  expect_language(s, {R"({"a":5})", R"({"a":5,"b":"x"})", R"({"a":0})", R"({"a":10})"},
                  {R"({"a":11})", R"({"a":-1})", R"({"b":"x"})", R"({"a":5,"c":1})", R"({"a":5,"b":1})"});
  expect_language(R"({"allOf":[{"type":"string","minLength":2},{"maxLength":3},{"pattern":"^a"}]})",
                  {R"("ab")", R"("abc")"}, {R"("a")", R"("abcd")", R"("bc")"});
  expect_language(R"({"allOf":[{"type":["string","integer"]},{"type":["integer","null"]}]})", {"1"},
                  {R"("x")", "null"});
  expect_error(R"({"allOf":[{"type":"string"},{"type":"integer"}]})", kUnsat, "");
}

TEST(JsonSchemaKeywords, RecursiveRefTree) {
  const std::string s =
      R"({"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},)"
      R"("required":["value"],"additionalProperties":false}},"$ref":"#/$defs/node"})";
  expect_language(
      s,
      {R"({"value":1})", R"({"value":1,"children":[]})",
       R"({"value":1,"children":[{"value":2,"children":[{"value":3}]},{"value":4}]})",
       R"({"value":1,"children":[{"value":2,"children":[{"value":3,"children":[{"value":4,"children":[{"value":5}]}]}]}]})"},
      {R"({"value":1,"children":[{}]})", R"({"value":1,"children":[{"value":"x"}]})",
       R"({"value":1,"children":[{"value":2,"children":[{"value":3,"children":[{"value":4,"children":[{"v":5}]}]}]}]})",
       R"({"children":[],"value":1})"});
}

TEST(JsonSchemaKeywords, RefToRootAndPointerEscapes) {
  expect_language(
      R"({"type":"object","properties":{"name":{"type":"string"},"next":{"$ref":"#"}},"additionalProperties":false})",
      {R"({"name":"a","next":{"name":"b","next":{}}})", R"({})"}, {R"({"next":{"x":1}})", R"({"next":1})"});
  expect_language(
      R"({"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a/b":{"type":"integer"},"c~d":{"type":"string"},"e f":{"type":"null"}},)"
      R"("properties":{"x":{"$ref":"#/definitions/a~1b"},"y":{"$ref":"#/definitions/c~0d"},"z":{"$ref":"#/definitions/e%20f"}}})",
      {R"({"x":1,"y":"s","z":null})"}, {R"({"x":"1"})", R"({"y":1})", R"({"z":1})"});
  // $ref to the root's own $id.
  expect_language(
      R"({"$id":"http://example.com/root.json","anyOf":[{"type":"integer"},{"type":"array","items":{"$ref":"http://example.com/root.json"}}]})",
      {"1", "[1,[2,[]]]"}, {R"(["a"])"});
  expect_error(R"({"properties":{"a":{"$ref":"#/$defs/missing"}}})", kInvalid, "/properties/a/$ref");
  expect_error(R"({"properties":{"a":{"$ref":"http://example.com/other.json"}}})", kUnsupported, "/properties/a/$ref",
               "$ref");
  expect_error(R"({"$defs":{"x":{"$anchor":"foo"}},"$ref":"#foo"})", kUnsupported, "/$ref", "$ref");
}

TEST(JsonSchemaKeywords, NotTypeEnumConst) {
  expect_language(R"({"not":{"type":"string"}})", {"1", "null", "true", "[]", "{}", "1.5"}, {R"("x")"});
  expect_language(R"({"type":"integer","not":{"enum":[0,1]}})", {"2", "-1"}, {"0", "1"});
  expect_language(R"({"type":"string","not":{"const":"x"}})", {R"("y")", R"("xx")", R"("")"}, {R"("x")"});
  expect_language(R"({"type":["boolean","null"],"not":{"const":false}})", {"true", "null"}, {"false"});
  expect_error(R"({"not":{}})", kUnsat, "");
  expect_language(R"({"properties":{"a":{"not":{"type":"string","minLength":2}}}})",
                  {R"({"a":1})", R"({"a":"x"})", R"({"a":""})", R"({"a":null})", "{}"}, {R"({"a":"xy"})"});
}

// `not` of anything else is rewritten by De Morgan into the supported vocabulary.
TEST(JsonSchemaKeywords, NotDeMorgan) {
  // Not all names present (non-objects satisfy `required`, so they fail the negation).
  expect_language(R"({"not":{"required":["a","b"]}})", {"{}", R"({"a":1})", R"({"b":1})", R"({"c":1})"},
                  {R"({"a":1,"b":2})", "1", R"("x")", "[]"});
  // None present.
  expect_language(R"({"type":"object","not":{"anyOf":[{"required":["a"]},{"required":["b"]}]}})",
                  {"{}", R"({"c":1})"}, {R"({"a":1})", R"({"b":1})", R"({"a":1,"b":1})"});
  expect_language(R"({"not":{"not":{"type":"string"}}})", {R"("x")"}, {"1", "null"});
  expect_language(R"({"not":{"minimum":3}})", {"2", "-1", "2.5"}, {"3", "4", R"("x")", "null"});
  expect_language(R"({"not":{"exclusiveMaximum":3}})", {"3", "4", "3.5"}, {"2", "2.99", "[]"});
  expect_language(R"({"not":{"maxLength":2}})", {R"("abc")"}, {R"("ab")", R"("")", "1"});
  expect_language(R"({"not":{"minItems":2}})", {"[]", "[1]"}, {"[1,2]", "1"});
  expect_language(R"({"properties":{"a":{},"b":{}},"additionalProperties":false,"not":{"maxProperties":1}})",
                  {R"({"a":1,"b":2})"}, {R"({"a":1})", "{}", "[]"});
  expect_language(R"({"not":{"properties":{"a":{"type":"string"}}}})", {R"({"a":1})", R"({"a":null,"b":2})"},
                  {R"({"a":"x"})", "{}", R"({"b":1})", "1"});
  expect_language(R"({"not":{"allOf":[{"type":"string"},{"minLength":2}]}})", {R"("a")", "1", "null"},
                  {R"("ab")"});
  // Not exactly one: non-strings satisfy minLength only, short strings `string` only.
  expect_language(R"({"not":{"oneOf":[{"type":"string"},{"minLength":2}]}})", {R"("ab")", R"("abc")"},
                  {R"("a")", "1", "null"});
  expect_language(R"({"not":{"prefixItems":[{"type":"integer"}]}})", {R"(["a"])", R"(["a",1])"},
                  {"[]", "[1]", R"([1,"a"])", "1"});
  expect_language(R"({"not":{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"integer"}}})",
                  {R"("a")", "1.5", "null"}, {R"("ab")", "3"});
  expect_language(R"({"$defs":{"s":{"type":"string"}},"not":{"$ref":"#/$defs/s"}})", {"1"}, {R"("x")"});
  expect_language(R"({"not":{"dependentRequired":{"a":["b"]}}})", {R"({"a":1})", R"({"a":1,"c":2})"},
                  {R"({"a":1,"b":2})", "{}", R"({"b":1})", "1"});
  // Draft-07 ignores the siblings of $ref: their negation would not be exact.
  expect_error(R"({"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{}},)"
               R"("not":{"$ref":"#/definitions/s","type":"string"}})",
               kUnsupported, "/not/$ref", "not");
  expect_error(R"({"not":{"multipleOf":2}})", kUnsupported, "/not/multipleOf", "not");
  expect_error(R"({"not":{"format":"email"}})", kUnsupported, "/not/format", "not");
}

TEST(JsonSchemaKeywords, IfThenElse) {
  const std::string s =
      R"({"type":"object","properties":{"kind":{"type":"string"},"x":{},"y":{}},)"
      R"("if":{"properties":{"kind":{"const":"a"}},"required":["kind"]},"then":{"required":["x"]},"else":{"required":["y"]}})";
  expect_language(s, {R"({"kind":"a","x":1})", R"({"kind":"b","y":1})", R"({"y":1})", R"({"kind":"a","x":1,"y":2})"},
                  {R"({"kind":"a","y":1})", R"({"kind":"b","x":1})", "{}", R"({"kind":"a"})"});
  expect_language(R"({"if":{"type":"string"},"then":{"minLength":2}})", {R"("ab")", "1", "null"}, {R"("a")", R"("")"});
  expect_language(R"({"if":{"type":"string"},"else":{"type":"integer"}})", {R"("a")", "1"}, {"1.5", "null"});
  // then/else without if assert nothing.
  expect_language(R"({"then":false,"else":false})", {"1", R"("x")"}, {});
}

TEST(JsonSchemaKeywords, DependentRequiredAndDependencies) {
  const std::string props = R"("type":"object","properties":{"a":{},"b":{},"c":{}})";
  expect_language("{" + props + R"(,"dependentRequired":{"a":["b","c"]}})",
                  {R"({"a":1,"b":2,"c":3})", R"({"b":2})", "{}", R"({"c":1})"},
                  {R"({"a":1})", R"({"a":1,"b":2})", R"({"a":1,"c":3})"});
  expect_language(R"({"dependentRequired":{"a":["b"]}})", {"1", R"("x")", "{}", R"({"b":1,"a":2})"}, {R"({"a":1})"});
  expect_language(R"({"$schema":"http://json-schema.org/draft-07/schema#",)" + props +
                      R"(,"dependencies":{"a":["b"],"c":{"properties":{"a":{"type":"integer"}}}}})",
                  {R"({"a":1,"b":2})", R"({"a":1,"b":2,"c":3})", R"({"c":3})", R"({"a":"x","b":2})"},
                  {R"({"a":1})", R"({"a":"x","b":2,"c":3})"});
}

TEST(JsonSchemaKeywords, DependentSchemas) {
  expect_language(R"({"type":"object","properties":{"a":{},"b":{"type":"integer"}},"dependentSchemas":{"a":{"required":["b"]}}})",
                  {R"({"a":1,"b":2})", R"({"b":2})", "{}"}, {R"({"a":1})", R"({"a":1,"b":"x"})"});
  expect_language(R"({"dependentSchemas":{"a":false}})", {R"({"b":1})", "1"}, {R"({"a":1})"});
}

// "not integer" leaves the numbers with a non-zero fraction only.
TEST(JsonSchemaKeywords, NotIntegerKeepsNonIntegralNumbers) {
  expect_language(R"({"not":{"type":"integer"}})", {"1.5", R"("x")", "null"}, {"1", "0", "-7"});
  expect_language(R"({"type":"number","not":{"type":"integer"}})", {"1.5", "-0.25"}, {"1", "0"});
  // Texts whose binary64 value is an integer (the fraction lost in parsing) are not generated.
  expect_language(R"({"type":"number","not":{"type":"integer"}})", {"12345678901234.5", "0.000000000000001"},
                  {"100000000000000000000.5", "1.0000000000000001", "123456789012345.5", "1.50"});
  // Excluded values cut the range (exclusive bounds are exact).
  expect_language(R"({"type":"number","minimum":-3,"maximum":3,"not":{"enum":[0,1.5]}})", {"-3", "0.1", "1.4", "3"},
                  {"0", "1.5", "-0", "3.5"});
}

TEST(JsonSchemaKeywords, PatternPropertiesAndAdditionalRegions) {
  const std::string s =
      R"({"type":"object","properties":{"id":{"type":"integer"}},"patternProperties":{"^s_":{"type":"string"},"^n_":{"type":"number"}},)"
      R"("additionalProperties":{"type":"boolean"}})";
  expect_language(s, {R"({"id":1,"s_a":"x","n_b":2,"other":true})", R"({"n_b":2.5,"s_a":"y"})", R"({"zz":false})"},
                  {R"({"s_a":1})", R"({"n_b":"x"})", R"({"other":1})", R"({"id":"x"})", R"({"s_a":"x","id":1})"});
  // A name matching several patterns satisfies each of them.
  expect_language(R"({"patternProperties":{"a":{"type":"integer"},"b":{"minimum":5}}})",
                  {R"({"ab":7})", R"({"a":1})", R"({"b":5.5})"}, {R"({"ab":3})", R"({"ab":7.5})", R"({"b":4})"});
  // additionalProperties false leaves only the pattern regions.
  expect_language(R"({"patternProperties":{"^x":{}},"additionalProperties":false})", {R"({"x1":1})"}, {R"({"y":1})"});
  // Declared names that match a pattern are subject to both.
  expect_language(R"({"properties":{"s_x":{"maxLength":2}},"patternProperties":{"^s_":{"type":"string"}}})",
                  {R"({"s_x":"ab"})"}, {R"({"s_x":"abc"})", R"({"s_x":5})"});
  expect_error(R"({"patternProperties":{"(?<=a)b":{}}})", kUnsupported, "/patternProperties/(?<=a)b",
               "patternProperties");
}

TEST(JsonSchemaKeywords, PropertyNames) {
  expect_language(R"({"type":"object","propertyNames":{"pattern":"^[a-z]+$"}})",
                  {R"({"abc":1})", R"({})", R"({"a":1,"b":2})"}, {R"({"Abc":1})", R"({"a1":1})", R"({"":1})"});
  expect_language(R"({"properties":{"X":{},"y":{}},"propertyNames":{"pattern":"^[a-z]+$"}})",
                  {R"({"y":1})", R"({"z":1})"}, {R"({"X":1})"});
  expect_error(R"({"propertyNames":{"maxLength":3}})", kUnsupported, "/propertyNames/maxLength", "propertyNames");
}

// ---- errors

TEST(JsonSchemaKeywords, UnsupportedKeywordsCarryKeywordAndPointer) {
  struct Case {
    const char* schema;
    const char* keyword;
    const char* pointer;
  };
  const Case cases[] = {
      {R"({"items":{"contains":{"type":"integer"}}})", "contains", "/items/contains"},
      {R"({"type":"array","uniqueItems":true})", "uniqueItems", "/uniqueItems"},
      {R"({"$defs":{"d":{"unevaluatedProperties":false}},"allOf":[{"$ref":"#/$defs/d"}]})", "unevaluatedProperties",
       "/$defs/d/unevaluatedProperties"},
      {R"({"prefixItems":[{}],"unevaluatedItems":false})", "unevaluatedItems", "/unevaluatedItems"},
      {R"({"$dynamicRef":"#meta"})", "$dynamicRef", "/$dynamicRef"},
      {R"({"anyOf":[{"type":"string"},{"minContains":1}]})", "minContains", "/anyOf/1/minContains"},
      {R"({"properties":{"a b":{"$ref":"other.json#/x"}}})", "$ref", "/properties/a b/$ref"},
      {R"({"properties":{"a/b":{"multipleOf":0.1}}})", "multipleOf", "/properties/a~1b/multipleOf"},
      {R"({"additionalProperties":{"not":{"multipleOf":3}}})", "not", "/additionalProperties/not/multipleOf"},
      {R"({"items":{"oneOf":[{"type":"string"},{"multipleOf":2}]}})", "oneOf", "/items/oneOf"},
      {R"({"prefixItems":[{"format":"iri"}]})", "format", "/prefixItems/0/format"},
      {R"({"propertyNames":{"const":"a"}})", "propertyNames", "/propertyNames/const"},
  };
  for (const auto& c : cases) expect_error(c.schema, kUnsupported, c.pointer, c.keyword);
}

TEST(JsonSchemaKeywords, InvalidJsonSchema) {
  expect_error("{", kInvalid, "");
  expect_error(R"({"type":"object",})", kInvalid, "");
  expect_error("[1,2]", kInvalid, "");
  expect_error("5", kInvalid, "");
  expect_error(R"({"type":"strin"})", kInvalid, "/type");
  expect_error(R"({"properties":{"a":{"type":5}}})", kInvalid, "/properties/a/type");
  expect_error(R"({"minLength":-1})", kInvalid, "/minLength");
  expect_error(R"({"maxItems":1.5})", kInvalid, "/maxItems");
  expect_error(R"({"enum":3})", kInvalid, "/enum");
  expect_error(R"({"allOf":[]})", kInvalid, "/allOf");
  expect_error(R"({"pattern":5})", kInvalid, "/pattern");
  expect_error(R"({"properties":{"a":3}})", kInvalid, "/properties/a");
  expect_error(R"({"$ref":"#/$defs/missing"})", kInvalid, "/$ref");
}

TEST(JsonSchemaKeywords, UnsatisfiableSchemasPointAtTheConflict) {
  expect_error("false", kUnsat, "");
  expect_error(R"({"type":"string","minLength":5,"maxLength":2})", kUnsat, "");
  expect_error(R"({"type":"object","properties":{"a":{"type":"string","minLength":5,"maxLength":2}},"required":["a"]})",
               kUnsat, "/properties/a");
  // Without a type, an object with an impossible required property is only one alternative.
  expect_language(R"({"properties":{"a":{"type":"string","minLength":5,"maxLength":2}},"required":["a"]})",
                  {"1", R"("x")"}, {R"({"a":"xxxxx"})", R"({})"});
  expect_error(R"({"type":"string","enum":["abcdef","ghijkl"],"maxLength":3})", kUnsat, "/enum");
  expect_error(R"({"type":"integer","minimum":5,"maximum":3})", kUnsat, "/minimum");
  expect_error(R"({"properties":{"a":{}},"required":["z"],"additionalProperties":false,"type":"object"})", kUnsat,
               "/required");
  // An unsatisfiable optional property does not empty the language.
  expect_language(R"({"type":"object","properties":{"a":{"type":"string","minLength":5,"maxLength":2}}})",
                  {R"({})", R"({"b":1})"}, {R"({"a":"xxxxx"})", R"({"a":"x"})"});
}

// $ref/allOf cycles that never reach an assertion are refused instead of looping.
TEST(JsonSchemaKeywords, RefCyclesWithoutProgressAreRefused) {
  for (const char* s :
       {R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})",
        R"({"allOf":[{"$ref":"#"}]})", R"({"properties":{"p":{"$ref":"#/properties/p"}},"required":["p"]})"}) {
    SCOPED_TRACE(s);
    const auto e = schema_error(s);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), kUnsupported) << e->what();
    EXPECT_EQ(e->keyword(), "$ref") << e->what();
  }
  // Recursion through a value position is fine.
  expect_language(R"({"type":"array","items":{"$ref":"#"}})", {"[]", "[[],[[]]]"}, {"[1]", "[[1]]"});
}

// Unknown keywords and annotations assert nothing.
TEST(JsonSchemaKeywords, AnnotationsAndUnknownKeywordsAreIgnored) {
  expect_language(
      R"({"title":"t","description":"d","default":5,"examples":[1],"deprecated":true,"x-vendor":{"if":1},"javaType":"Int","type":"integer","$comment":"c"})",
      {"1", "5"}, {R"("x")"});
}

// `not` with a pattern keeps strings that do not match (non-strings would satisfy the pattern).
TEST(JsonSchemaKeywords, NotPatternKeepsNonMatchingStrings) {
  expect_language(R"({"not":{"pattern":"^x"}})", {R"("yes")", R"("")", R"("ax")"}, {R"("xyz")", R"("x")", "1", "null"});
}

// `not` with one required name: objects without that name (non-objects would satisfy `required`).
TEST(JsonSchemaKeywords, NotRequiredForbidsTheName) {
  expect_language(R"({"type":"object","properties":{"a":{"type":"integer"}},"not":{"required":["b"]}})",
                  {R"({"a":1})", "{}", R"({"a":1,"bb":2})", R"({"c":true})"}, {R"({"b":1})", R"({"a":1,"b":2})", "[]"});
}


}  // namespace
}  // namespace ninfer::text::testing
