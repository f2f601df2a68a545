// Unit tests for the tokenizer's building blocks: GPT-2 byte alphabet, regex wrapper and its \s
// rewrite, Split behaviors, added-token matching, the string -> id map, UTF-8 repair.
#include <gtest/gtest.h>

#include <set>

#include "tokenizer/added_tokens.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/regex.h"
#include "tokenizer/string_id_map.h"
#include "tokenizer/utf8.h"

namespace ninfer::tokenizer {
namespace {

using Pieces = std::vector<std::string>;

TEST(TokenizerByteLevel, AlphabetIsTheGpt2Bijection) {
  EXPECT_EQ(byte_level::code_point_of(' '), U'\u0120');   // Ġ
  EXPECT_EQ(byte_level::code_point_of('\n'), U'\u010A');  // Ċ
  EXPECT_EQ(byte_level::code_point_of('A'), U'A');
  EXPECT_EQ(byte_level::code_point_of(0xAD), U'\u0143');  // soft hyphen is remapped
  EXPECT_EQ(byte_level::code_point_of(0xFF), U'\u00FF');
  std::set<char32_t> seen;
  for (int b = 0; b < 256; ++b) {
    const char32_t cp = byte_level::code_point_of(static_cast<unsigned char>(b));
    EXPECT_TRUE(seen.insert(cp).second);
    EXPECT_EQ(byte_level::byte_of(cp), b);
  }
  EXPECT_EQ(byte_level::byte_of(U'\u4E00'), -1);
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_EQ(byte_level::decode(byte_level::encode(all)), all);
  EXPECT_EQ(byte_level::encode(" hi\n"), "\xC4\xA0hi\xC4\x8A");
  EXPECT_FALSE(byte_level::decode("\xE4\xB8\x80").has_value());  // 一 is not in the alphabet
  EXPECT_FALSE(byte_level::decode("\xFF").has_value());
}

std::vector<std::pair<size_t, size_t>> matches(const std::string& pattern, const std::string& subject, bool literal = false) {
  std::string error;
  auto re = Regex::compile(literal ? pattern : rewrite_white_space_escapes(pattern), literal, &error);
  EXPECT_TRUE(re) << error;
  std::vector<std::pair<size_t, size_t>> out;
  if (re) re->find_all(subject, out);
  return out;
}

TEST(TokenizerRegex, WhiteSpaceIsUnicodeWhiteSpace) {
  // U+0085, U+00A0, U+2028, U+3000 are White_Space; U+180E, U+200B, U+FEFF are not.
  for (const char* ws : {"\xC2\x85", "\xC2\xA0", "\xE2\x80\xA8", "\xE3\x80\x80", "\t", "\x0B"})
    EXPECT_EQ(matches("\\s", ws).size(), 1u) << ws;
  for (const char* other : {"\xE1\xA0\x8E", "\xE2\x80\x8B", "\xEF\xBB\xBF", "a"})
    EXPECT_TRUE(matches("\\s", other).empty()) << other;
  EXPECT_EQ(matches("[^\\s\\p{L}]+", "ab\xE1\xA0\x8E!"), (std::vector<std::pair<size_t, size_t>>{{2, 6}}));
  EXPECT_EQ(matches("\\S+", "a\xE1\xA0\x8E b"), (std::vector<std::pair<size_t, size_t>>{{0, 4}, {5, 6}}));
}

TEST(TokenizerRegex, RewriteLeavesOtherEscapesAlone) {
  EXPECT_EQ(rewrite_white_space_escapes("\\\\s"), "\\\\s");  // a literal backslash, then 's'
  EXPECT_EQ(rewrite_white_space_escapes("\\p{L}+|\\d"), "\\p{L}+|\\d");
  EXPECT_EQ(rewrite_white_space_escapes("\\Q\\s\\E"), "\\Q\\s\\E");
  EXPECT_EQ(rewrite_white_space_escapes("[]\\s]").substr(0, 3), "[]\\");  // ']' first in a class is literal
  EXPECT_EQ(matches("[]\\s]", "a] b").size(), 2u);
}

TEST(TokenizerRegex, EmptyMatchesAreSkippedAndLiteralsWork) {
  EXPECT_EQ(matches("x*", "abxxc\xC3\xA9"), (std::vector<std::pair<size_t, size_t>>{{2, 4}}));
  EXPECT_EQ(matches("a.b", "a.b axb", true), (std::vector<std::pair<size_t, size_t>>{{0, 3}}));
  std::string error;
  EXPECT_EQ(Regex::compile("(", false, &error), nullptr);
  EXPECT_FALSE(error.empty());
}

Pieces split(const std::string& behavior, const std::string& text, bool invert = false) {
  const std::string path = "test";
  const nlohmann::json j = {{"type", "Split"},
                            {"pattern", {{"String", "-"}}},
                            {"behavior", behavior},
                            {"invert", invert}};
  bool byte_level = false;
  auto pre = make_pre_tokenizer(JsonSite{path, "", j}, &byte_level);
  Pieces pieces{text};
  pre->apply(pieces, true);
  return pieces;
}

TEST(TokenizerPreTokenizer, SplitBehaviors) {
  EXPECT_EQ(split("Isolated", "a-b--c"), (Pieces{"a", "-", "b", "-", "-", "c"}));
  EXPECT_EQ(split("Removed", "a-b--c"), (Pieces{"a", "b", "c"}));
  EXPECT_EQ(split("MergedWithPrevious", "a-b--c"), (Pieces{"a-", "b-", "-", "c"}));
  EXPECT_EQ(split("MergedWithNext", "a-b--c"), (Pieces{"a", "-b", "-", "-c"}));
  EXPECT_EQ(split("Contiguous", "a-b--c"), (Pieces{"a", "-", "b", "--", "c"}));
  EXPECT_EQ(split("Removed", "a-b--c", true), (Pieces{"-", "-", "-"}));  // invert: the matches are kept
  EXPECT_EQ(split("Isolated", ""), (Pieces{}));
}

TEST(TokenizerPreTokenizer, ByteLevelWithGpt2Regex) {
  const std::string path = "test";
  const nlohmann::json j = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}};
  bool byte_level = false;
  auto pre = make_pre_tokenizer(JsonSite{path, "", j}, &byte_level);
  EXPECT_TRUE(byte_level);
  Pieces pieces{"Hello world's  42!"};
  pre->apply(pieces, true);
  EXPECT_EQ(pieces, (Pieces{" Hello", " world", "'s", " ", " 42", "!"}));
}

TEST(TokenizerPreTokenizer, UnknownTypeIsUnsupported) {
  const std::string path = "file.json";
  const nlohmann::json j = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Digits"}}}}};
  bool byte_level = false;
  try {
    make_pre_tokenizer(JsonSite{path, "/pre_tokenizer", j}, &byte_level);
    FAIL() << "expected Unsupported";
  } catch (const TokenizerError& e) {
    EXPECT_EQ(e.kind(), TokenizerErrorKind::Unsupported);
    EXPECT_EQ(e.location(), "file.json#/pre_tokenizer/pretokenizers/0/type");
  }
}

TEST(TokenizerAddedTokens, LeftmostLongestWithStrip) {
  AddedTokenMatcher m;
  m.build({{10, "<a>", true, false, false}, {11, "<a>b", true, false, false}, {12, "[x]", false, true, true}});
  using S = AddedTokenMatcher::Segment;
  const auto segs = m.split("q<a>by<a>z  [x]\t w");
  const std::vector<S> want = {{0, 1, -1}, {1, 5, 11}, {5, 6, -1}, {6, 9, 10}, {9, 10, -1}, {12, 15, 12}, {17, 18, -1}};
  ASSERT_EQ(segs.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(segs[i].begin, want[i].begin) << i;
    EXPECT_EQ(segs[i].end, want[i].end) << i;
    EXPECT_EQ(segs[i].id, want[i].id) << i;
  }
  EXPECT_EQ(m.split("<a").size(), 1u);
}

TEST(TokenizerStringIdMap, InsertFindAssign) {
  StringIdMap map;
  EXPECT_FALSE(map.find("a").has_value());
  EXPECT_TRUE(map.insert("a", 1));
  EXPECT_FALSE(map.insert("a", 2));
  EXPECT_EQ(map.find("a"), 1);
  map.assign("a", 3);
  EXPECT_EQ(map.find("a"), 3);
  EXPECT_TRUE(map.insert("", 4));
  EXPECT_EQ(map.find(""), 4);
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(map.insert("key" + std::to_string(i), i));
  for (int i = 0; i < 100000; i += 997) EXPECT_EQ(map.find("key" + std::to_string(i)), i);
  EXPECT_FALSE(map.find("key100000").has_value());
  EXPECT_EQ(map.size(), 100002u);
}

TEST(TokenizerUtf8, ValidationAndRepair) {
  EXPECT_TRUE(utf8::is_valid("plain ascii text that is long enough"));
  EXPECT_TRUE(utf8::is_valid("\xE2\x82\xAC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(utf8::is_valid("\xC0\x80"));          // overlong
  EXPECT_FALSE(utf8::is_valid("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(utf8::is_valid("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(utf8::is_valid("abc\xE2\x82"));       // truncated
  EXPECT_EQ(utf8::repair("a\xFF" "b\xE2\x82"), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace ninfer::tokenizer
