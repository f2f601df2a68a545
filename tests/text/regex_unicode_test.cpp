// Unicode semantics of the regex front end (ECMAScript \s, '.', astral characters, escapes) and
// the two lowering encodings, checked on the character automaton, on the byte automaton
// simulated directly, and through the compiled grammar's Matcher.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/regex_lowering.h"
#include "text/regex_test_support.h"

namespace ninfer::text {
namespace {

using testing::byte_automaton_accepts;
using testing::utf8;

CharAutomaton full(const char* p) { return CharAutomaton::from_regex(p, RegexMode::FullMatch); }
bool accepts_char(const CharAutomaton& a, char32_t c) { return a.accepts(std::u32string(1, c)); }

TEST(RegexUnicode, SpaceClassIsEcmaScriptWhiteSpace) {
  const CharAutomaton s = full("\\s"), ns = full("\\S");
  for (char32_t c : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2000, 0x2005, 0x200A, 0x2028, 0x2029, 0x202F,
                     0x205F, 0x3000, 0xFEFF}) {
    EXPECT_TRUE(accepts_char(s, c)) << std::hex << uint32_t(c);
    EXPECT_FALSE(accepts_char(ns, c)) << std::hex << uint32_t(c);
  }
  // U+0085 (NEL), U+180E and U+200B are not ECMAScript white space.
  for (char32_t c : {0x08, 0x0E, 0x1F, 0x85, 0x180E, 0x200B, 0x1FFF, 0x2027, 0x202A, 0xFEFE, 0x61, 0x1F600}) {
    EXPECT_FALSE(accepts_char(s, c)) << std::hex << uint32_t(c);
    EXPECT_TRUE(accepts_char(ns, c)) << std::hex << uint32_t(c);
  }
  EXPECT_EQ(full("[\\s]"), s);
  EXPECT_EQ(full("[^\\s]"), ns);
  EXPECT_EQ(full("[\\s\\S]"), full("[^]"));
}

TEST(RegexUnicode, DotExcludesOnlyLineTerminators) {
  const CharAutomaton dot = full("."), any = full("[^]");
  for (char32_t c : {U'a', char32_t(0x85), char32_t(0xE9), char32_t(0xD7FF), char32_t(0xE000), char32_t(0xFFFF),
                     char32_t(0x1F600), char32_t(0x10FFFF), char32_t(0), char32_t(0x0B), char32_t(0x0C)})
    EXPECT_TRUE(accepts_char(dot, c)) << std::hex << uint32_t(c);
  for (char32_t c : {U'\n', U'\r', char32_t(0x2028), char32_t(0x2029)}) {
    EXPECT_FALSE(accepts_char(dot, c)) << std::hex << uint32_t(c);
    EXPECT_TRUE(accepts_char(any, c)) << std::hex << uint32_t(c);
  }
  // Surrogates and values past U+10FFFF are not characters at all.
  EXPECT_FALSE(accepts_char(any, 0xD800));
  EXPECT_FALSE(accepts_char(any, 0x110000));
}

TEST(RegexUnicode, NegatedClassAcceptsMultiByteCharacters) {
  const CharAutomaton a = full("[^a]");
  EXPECT_TRUE(a.accepts(U"\u00e9"));
  EXPECT_TRUE(a.accepts(U"\u4e2d"));
  EXPECT_TRUE(a.accepts(U"\U0001F600"));
  EXPECT_FALSE(a.accepts(U"a"));
  EXPECT_FALSE(a.accepts(U"\u00e9\u00e9"));
  const grammar::ByteAutomaton b = lower_to_bytes(a.dfa(), Encoding::Raw);
  for (const char* ok : {"b", "\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80", "\x7F", "\xF4\x8F\xBF\xBF", "\xEF\xBF\xBF"})
    EXPECT_TRUE(byte_automaton_accepts(b, ok)) << ok;
  // Overlong, surrogate, past U+10FFFF, truncated, stray continuation: never valid UTF-8.
  for (const char* bad : {"a", "\xC0\x80", "\xC1\xBF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xC3",
                          "\x80", "\xE0\x80\x80", "\xF0\x80\x80\x80", "\xFF"})
    EXPECT_FALSE(byte_automaton_accepts(b, bad)) << bad;
}

TEST(RegexUnicode, BracedAndSurrogatePairEscapes) {
  EXPECT_TRUE(full("\\u{1F600}").accepts(U"\U0001F600"));
  EXPECT_EQ(full("\\u{1F600}"), full("\\uD83D\\uDE00"));
  EXPECT_EQ(full("\\u{1F600}"), full("\xF0\x9F\x98\x80"));
  EXPECT_EQ(full("\\u{41}"), full("A"));
  EXPECT_EQ(full("\\x41"), full("\\u0041"));
  EXPECT_EQ(full("\\cJ"), full("\\n"));
  EXPECT_EQ(full("[\\b]"), full("\\x08"));
  EXPECT_TRUE(full("\\0").accepts(std::u32string(1, U'\0')));
  // A lone surrogate escape can never match a scalar value.
  EXPECT_TRUE(full("\\uD800").is_empty());
  EXPECT_TRUE(full("[\\uD800-\\uDFFF]").is_empty());
}

TEST(RegexUnicode, AstralAndNonAsciiRanges) {
  const CharAutomaton emoji = full("[\\u{1F600}-\\u{1F64F}]+");
  EXPECT_TRUE(emoji.accepts(U"\U0001F600\U0001F64F"));
  EXPECT_FALSE(emoji.accepts(U"\U0001F680"));
  const CharAutomaton bmp = full("[\\u0000-\\uFFFF]"), astral = full("[^\\u0000-\\uFFFF]");
  EXPECT_TRUE(bmp.accepts(U"\uFFFF"));
  EXPECT_FALSE(bmp.accepts(U"\U00010000"));
  EXPECT_TRUE(astral.accepts(U"\U00010000"));
  EXPECT_TRUE(astral.accepts(U"\U0010FFFF"));
  EXPECT_FALSE(astral.accepts(U"\uFFFF"));
  EXPECT_TRUE(full("\xC3\xA9+").accepts(U"\u00e9\u00e9\u00e9"));
  const CharAutomaton latin = full("[\xC3\xA0-\xC3\xBC]");  // [à-ü]
  EXPECT_TRUE(latin.accepts(U"\u00e9"));
  EXPECT_FALSE(latin.accepts(U"\u00fd"));
  EXPECT_FALSE(latin.accepts(U"a"));
}

TEST(RegexUnicode, RawLoweringAgreesOnEncodingBoundaries) {
  const std::vector<char32_t> chars{0x00, 0x0A, U'"', U'\\', U'a', 0x7F, 0x80, 0xA0, 0x7FF, 0x800, 0xFFF, 0x1000,
                                    0x2028, 0x3000, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0x10FFFF};
  std::vector<std::u32string> strings{U""};
  for (char32_t a : chars) {
    strings.push_back(std::u32string(1, a));
    for (char32_t b : chars) strings.push_back(std::u32string{a, b});
  }
  std::vector<std::string> tokens;
  for (char32_t c : chars) tokens.push_back(utf8(std::u32string(1, c)));
  for (const char* p : {".", "[^a]", "\\s", "\\S+", "[\\u0080-\\u{10000}]", "[\\u07FF-\\u0800]{2}", "[^\\u0800-\\uFFFF]",
                        ".{2}", "(\\u{10FFFF}|\\u0000)*", "[\\u{3FFFF}-\\u{40000}\\u2028]+", "[^\\x00-\\x7F]*"}) {
    SCOPED_TRACE(p);
    const CharAutomaton a = full(p);
    const grammar::ByteAutomaton b = lower_to_bytes(a.dfa(), Encoding::Raw);
    grammar::Matcher m(testing::compile_lowered(a, Encoding::Raw, tokens));
    for (const auto& s : strings) {
      const bool want = a.accepts(s);
      EXPECT_EQ(byte_automaton_accepts(b, utf8(s)), want) << utf8(s);
      const auto cp = m.mark();
      EXPECT_EQ(m.accept_bytes(utf8(s)) && m.can_end(), want) << utf8(s);
      m.rollback(cp);
    }
  }
}

// Independent spelling: nlohmann::json's dump escapes exactly like json.dumps(ensure_ascii=False).
std::string json_spelling(std::u32string_view s) {
  const std::string quoted = nlohmann::json(utf8(s)).dump();
  return quoted.substr(1, quoted.size() - 2);
}

TEST(RegexUnicode, JsonStringEncodingOfQuotesAndControls) {
  const CharAutomaton a = CharAutomaton::from_regex("^a\"b$", RegexMode::Search);
  const grammar::ByteAutomaton b = lower_to_bytes(a.dfa(), Encoding::JsonString);
  EXPECT_TRUE(byte_automaton_accepts(b, "a\\\"b"));
  EXPECT_FALSE(byte_automaton_accepts(b, "a\"b"));
  grammar::Matcher m(testing::compile_lowered(a, Encoding::JsonString, {"a", "b", "\\", "\"", "\\\""}));
  {
    const auto cp = m.mark();
    EXPECT_TRUE(m.accept_bytes("a\\\"b") && m.can_end());
    m.rollback(cp);
    EXPECT_FALSE(m.accept_bytes("a\"b"));
  }
  struct Spell {
    const char* pattern;
    std::string yes;
    std::vector<std::string> no;
  };
  const std::vector<Spell> spells{
      {"\\x01", "\\u0001", {"\x01", "\\u01"}},
      {"\\x1f", "\\u001f", {"\\u001F", "\x1f"}},
      {"\\n", "\\n", {"\n", "\\u000a", "\\u000A"}},
      {"\\r\\t", "\\r\\t", {"\r\t"}},
      {"[\\b]\\f", "\\b\\f", {"\b\f", "\\u0008\\u000c"}},
      {"\\\\", "\\\\", {"\\", "\\u005c"}},
      {"\"", "\\\"", {"\"", "\\u0022"}},
      {"/", "/", {"\\/"}},
      {"\\x7F", "\x7F", {"\\u007f"}},
      {"\\u2028", "\xE2\x80\xA8", {"\\u2028"}},
      {"\\0", "\\u0000", {std::string(1, '\0')}},
      {"\xC3\xA9", "\xC3\xA9", {"\\u00e9"}},
  };
  for (const auto& sp : spells) {
    const grammar::ByteAutomaton bb = lower_to_bytes(full(sp.pattern).dfa(), Encoding::JsonString);
    EXPECT_TRUE(byte_automaton_accepts(bb, sp.yes)) << sp.pattern;
    for (const auto& n : sp.no) EXPECT_FALSE(byte_automaton_accepts(bb, n)) << sp.pattern << " spelled " << n;
  }
}

TEST(RegexUnicode, JsonStringSpellsEveryCharacterLikeJsonDumps) {
  // "Any one character" lowered as a JSON string body accepts exactly the spellings of single
  // characters: checked against every byte string of length 1 and 2.
  const grammar::ByteAutomaton b = lower_to_bytes(full("[^]").dfa(), Encoding::JsonString);
  std::set<std::string> spellings;
  for (char32_t c = 0; c < 0x800; ++c) spellings.insert(json_spelling(std::u32string(1, c)));
  size_t checked = 0;
  for (int x = 0; x < 256; ++x) {
    const std::string one(1, static_cast<char>(x));
    EXPECT_EQ(byte_automaton_accepts(b, one), spellings.count(one) > 0) << x;
    for (int y = 0; y < 256; ++y) {
      const std::string two = one + static_cast<char>(y);
      if (byte_automaton_accepts(b, two) != (spellings.count(two) > 0)) ADD_FAILURE() << x << "," << y;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 65536u);
  // Longer spellings (\u00xx escapes, 3- and 4-byte UTF-8) of a sample of characters.
  for (char32_t c : {0x00, 0x01, 0x0B, 0x0E, 0x1F, 0x7F, 0x800, 0x2028, 0xFFFF, 0x10000, 0x10FFFF}) {
    EXPECT_TRUE(byte_automaton_accepts(b, json_spelling(std::u32string(1, c)))) << std::hex << uint32_t(c);
    if (c < 0x20 && c != 0x08 && c != 0x09 && c != 0x0A && c != 0x0C && c != 0x0D) {
      char upper[8];
      std::snprintf(upper, sizeof upper, "\\u%04X", static_cast<unsigned>(c));
      if (std::string(upper) != json_spelling(std::u32string(1, c))) {
        EXPECT_FALSE(byte_automaton_accepts(b, upper)) << upper;
      }
    }
  }
  // Two-character strings spelled the same way through the compiled grammar.
  const CharAutomaton two = full("[\\s\\S]{2}");
  grammar::Matcher m(testing::compile_lowered(two, Encoding::JsonString, {"\\", "u", "0", "a", "\""}));
  for (const std::u32string& s : {std::u32string(U"a\""), std::u32string(U"\x01\x1f"), std::u32string(U"\\\n"),
                                  std::u32string(U"\u00e9\U0001F600")}) {
    const auto cp = m.mark();
    EXPECT_TRUE(m.accept_bytes(json_spelling(s)) && m.can_end()) << json_spelling(s);
    m.rollback(cp);
  }
}

}  // namespace
}  // namespace ninfer::text
