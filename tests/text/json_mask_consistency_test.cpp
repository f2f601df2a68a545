// Masks of JSON Schema grammars against a token-by-token parse: the classifier's shortcuts for
// JSON strings (the string-safe slices, tails after a string-safe prefix, counted blocks of long
// strings whose ends are absorbed by every caller) must give exactly the tokens that
// Matcher::is_allowed accepts by scanning their bytes. The vocabulary mixes short and long
// string-safe tokens, multi-byte and partial UTF-8, quotes and escapes followed by JSON syntax.
// Objects in any key order add the key-set conditions (close, continue, undeclared name start,
// own and callers'), with tokens that end a value and begin or close the next member.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "grammar/token_domain.h"
#include "ninfer/output_constraint.h"
#include "text/constraint_compiler.h"

namespace ninfer::text::testing {
namespace {

std::shared_ptr<const grammar::TokenDomain> mixed_domain() {
  std::vector<std::string> v{"<eos>"};
  for (int b = 0x20; b < 0x7F; ++b) v.emplace_back(1, static_cast<char>(b));  // every printable byte
  const char* pieces[] = {"a", "ab", "abc", "xyz", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "-", "1", "0", " "};
  std::mt19937 rng(7);
  std::set<std::string> seen(v.begin(), v.end());
  auto add = [&](const std::string& t) {
    if (!t.empty() && seen.insert(t).second) v.push_back(t);
  };
  // String-safe tokens of 1..40 characters (the short slice ends at 16).
  for (int len : {2, 3, 5, 8, 15, 16, 17, 20, 31, 40})
    for (int k = 0; k < 4; ++k) {
      std::string t;
      for (int i = 0; i < len; ++i) t += pieces[rng() % 11];
      add(t);
    }
  // Tails: string-safe text then a quote, an escape or JSON syntax.
  const char* tails[] = {"\"", "\",", "\"}", "\":", "\",\"", "\"]", "\\n", "\\\"", "\\u00", "\\", "\"}]", "\",\"a\":"};
  for (const char* tail : tails) {
    add(tail);
    for (const char* head : {"a", "abc", "\xC3\xA9", "0123456789abcdefghij"}) add(std::string(head) + tail);
  }
  // Partial UTF-8 at the end or alone, and JSON syntax tokens.
  for (const char* t : {"\xC3", "\xE2\x82", "a\xE2", "\xF0\x9F", "\x82\xAC", "{\"", "\":\"", "\":", "\",\"", "},{", "[{",
                        "null", "true", "false", "12", "1.5", "-3", "e5", "\"\"", "{}", "[]", "\n", "\t"})
    add(t);
  // Keys and member boundaries.
  for (const char* t : {"\"a\":", "\"b", "\"b\":", "\"c\":\"", ",\"", "\"},", "\"}}", "1,\"", "1}", "},\"", "\",\"b\":",
                        "{\"a\":", "\"a\":1,\"b\":2}", ",\"a", "x\":", "true,\"", "true}"})
    add(t);
  std::vector<grammar::TokenClass> classes(v.size(), grammar::TokenClass::Normal);
  classes[0] = grammar::TokenClass::Control;
  return std::make_shared<const grammar::TokenDomain>(std::move(v), std::move(classes), std::vector<int32_t>{0});
}

// Random walks over the mask; at every step every token's mask bit equals is_allowed.
void expect_masks_match_parse(const std::string& schema, int walks, int steps, size_t min_longest = 0,
                              bool any_order = false) {
  SCOPED_TRACE(schema);
  static const auto domain = mixed_domain();
  JsonFormatOptions fmt;
  if (any_order) fmt.property_order = JsonPropertyOrder::Flexible;
  const auto compiled = compile_constraint(OutputConstraint::json_schema(schema, fmt), domain).grammar;
  std::mt19937 rng(11);
  size_t checks = 0, longest = 0;
  for (int w = 0; w < walks; ++w) {
    grammar::Matcher m(compiled);
    std::vector<uint32_t> words(m.mask_words());
    std::string text;
    for (int s = 0; s < steps && !m.terminated(); ++s) {
      m.fill_mask(words.data());
      std::vector<int32_t> allowed;
      for (int32_t id = 0; id < domain->size(); ++id) {
        const bool bit = words[id >> 5] >> (id & 31) & 1u;
        ASSERT_EQ(bit, m.is_allowed(id)) << "token " << id << " '" << domain->bytes(id) << "' after '" << text << "'";
        ++checks;
        if (bit && id != 0) allowed.push_back(id);
      }
      if (allowed.empty()) break;
      // Mostly long tokens without a quote, so walks stay inside strings and cross counted blocks.
      std::vector<int32_t> long_ones;
      for (int32_t id : allowed)
        if (domain->bytes(id).size() >= 8 && domain->bytes(id).find('"') == std::string::npos) long_ones.push_back(id);
      const bool stay = !long_ones.empty() && rng() % 10 < (any_order ? 3 : 8);
      const int32_t pick = stay ? long_ones[rng() % long_ones.size()] : allowed[rng() % allowed.size()];
      ASSERT_TRUE(m.accept_token(pick));
      text += domain->bytes(pick);
      longest = std::max(longest, text.size());
    }
  }
  EXPECT_GT(checks, 1000u);
  EXPECT_GT(longest, min_longest) << "walks did not reach deep enough";
}

TEST(JsonMaskConsistency, UnboundedStringsInObjects) {
  expect_masks_match_parse(
      R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"string"}}},"required":["a"]})",
      20, 60);
  expect_masks_match_parse(R"({"type":"object","additionalProperties":{"type":"string"}})", 20, 60);
}

TEST(JsonMaskConsistency, LongStringsInCountedBlocks) {
  expect_masks_match_parse(
      R"({"type":"object","properties":{"s":{"type":"string","maxLength":300},"t":{"type":"string","minLength":260,"maxLength":400},"u":{"type":"string","maxLength":1000}},"required":["s","t","u"]})",
      12, 300, 700);
  expect_masks_match_parse(R"({"type":"array","items":{"type":"string","maxLength":257},"maxItems":3})", 12, 200, 300);
}

TEST(JsonMaskConsistency, BoundedAndPatternStrings) {
  expect_masks_match_parse(
      R"({"type":"object","properties":{"p":{"type":"string","pattern":"^[a-z]+$"},"q":{"type":"string","minLength":2,"maxLength":20}},"required":["p","q"]})",
      20, 60);
}

TEST(JsonMaskConsistency, AnyOrderObjects) {
  // Required keys, no other names, a nested object: close and continue conditions, own and callers'.
  expect_masks_match_parse(
      R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"object","properties":{"a":{"type":"boolean"},"x":{"type":"string"}},"required":["x"],"additionalProperties":false}},"required":["a","b"],"additionalProperties":false})",
      40, 40, 0, true);
  // Undeclared names under a maximum: the name-start condition; a minimum reached by declared keys.
  expect_masks_match_parse(
      R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"maxProperties":3,"additionalProperties":{"type":"integer"}})",
      40, 40, 0, true);
  expect_masks_match_parse(
      R"({"type":"object","properties":{"a":{},"b":{"type":"string"},"c":{"type":"boolean"}},"minProperties":2,"additionalProperties":false})",
      40, 40, 0, true);
  // Alternatives sharing key rules, and an array of objects (callers outside any object).
  expect_masks_match_parse(
      R"({"type":"array","items":{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false},{"type":"object","properties":{"a":{"type":"string"},"c":{"type":"boolean"}},"required":["c"]}]}})",
      40, 40, 0, true);
}

}  // namespace
}  // namespace ninfer::text::testing
