// Differential test against an independent oracle: std::regex (ECMAScript grammar) on ASCII
// patterns and every string up to a length bound over a small alphabet. FullMatch must agree with
// std::regex_match and Search with std::regex_search. Each automaton is then lowered (Raw) into a
// grammar, compiled, and a grammar::Matcher must agree on the same strings, which checks the
// lowering end to end.
// GCC 12 reports a false -Wmaybe-uninitialized inside libstdc++'s <regex> (std::function in the
// NFA states) when sanitizers are on; the warning is about library code, not this test.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "text/regex_test_support.h"

namespace ninfer::text {
namespace {

using testing::all_strings;
using testing::chars_of;
using testing::compile_lowered;

struct OracleCase {
  const char* pattern;
  const char* alphabet;
};


std::vector<OracleCase> oracle_cases() {
  return {
      // literals, alternation, groups
      {"abc", "abc"}, {"a|b", "abc"}, {"ab|cd", "abcd"}, {"(?:ab|a)(?:bc|c)", "abc"}, {"(|a)b", "ab"},
      {"a|", "ab"}, {"|", "a"}, {"()", "a"}, {"(a)(b)", "ab"}, {"((a))", "ab"}, {"a(b|c)*d", "abcd"},
      {"(a|ab)(c|bcd)(d*)", "abcd"}, {"(a|b)(c|d)|(a|c)(b|d)", "abcd"}, {"(a(b(c)?)?)?", "abc"},
      // quantifiers
      {"a*", "ab"}, {"a+", "ab"}, {"a?", "ab"}, {"a*b", "abc"}, {"a+b+", "ab"}, {"(ab)*", "ab"},
      {"(ab)+c", "abc"}, {"(a|b)*c", "abc"}, {"(a|bc)*", "abc"}, {"a{2}", "ab"}, {"a{2,}", "ab"},
      {"a{1,3}", "ab"}, {"a{0,2}b", "ab"}, {"(ab){1,2}", "ab"}, {"(a|b){2,3}", "abc"}, {"a{0}", "ab"},
      {"a{0}b", "ab"}, {"(a*)*", "ab"}, {"(a?)+", "ab"}, {"(a*b*)*c", "abc"}, {"(a+|b+)*c", "abc"},
      {"((a|b)c)*", "abc"}, {"a{2}b{0,2}c+", "abc"}, {"([ab]{2})+", "ab"}, {"(a?){3}", "ab"},
      {"(a|b)*a(a|b){2}", "ab"}, {"x*(ab|ba)+x*", "abx"}, {"[ab]*a[ab]", "ab"}, {"(a{1,2}){2}", "ab"},
      // lazy quantifiers (same language)
      {"a*?", "ab"}, {"a+?b", "ab"}, {"a??b", "ab"}, {"(ab){1,2}?", "ab"}, {"a{2,}?", "ab"},
      {"(a|b)*?c", "abc"}, {"(?:a|b|c|d)+?d", "abcd"}, {"a{1,3}?b", "ab"},
      // classes
      {"[abc]", "abcd"}, {"[a-c]+", "abcd"}, {"[^a]", "abc"}, {"[^a-b]*", "abc"}, {"[a-]", "a-b"},
      {"[-a]+", "a-b"}, {"[a\\-c]", "a-bc"}, {"[\\]a]", "]ab"}, {"[\\^a]", "^ab"}, {"[a^]", "^ab"},
      {"[\\d]", "1a"}, {"[\\da]+", "1ab"}, {"[^\\d]", "1a "}, {"[\\w-]+", "a-_ "}, {"[\\s]", " a\t"},
      {"[^\\s]+", " a\t"}, {"[.]", ".a"}, {"[*+?]", "*+?a"}, {"[(){}|$]", "(){|$a"}, {"[a-c]{2,4}", "abcd"},
      {"[\\w.]+@\\w+", "a.@ "}, {"[^\\W_]", "a_ 1"}, {"[\\D]", "1a"}, {"[\\S\\s]", " a"},
      // escapes and predefined classes
      {"\\d+", "09a/:"}, {"\\D", "1a"}, {"\\w+", "azAZ09_ "}, {"\\W", "a -`@[{"}, {"\\s*", " a\t\n"},
      {"\\S+", " a\t"}, {"a\\.b", "a.b"}, {"\\*\\+\\?", "*+?"}, {"\\(a\\)", "()a"}, {"\\[\\]", "[]a"},
      {"\\{\\}", "{}a"}, {"\\|", "|a"}, {"\\^\\$", "^$a"}, {"\\\\", "\\a"}, {"\\t\\n", "\t\na"},
      {"\\x41\\x62", "Aab"}, {"\\u0041+", "Aa"}, {"\\r", "\ra"}, {"\\f\\v", "\f\va"},
      {"\\d{1,2}-\\d{2}", "12-a"},
      // dot
      {".", "a\n\r"}, {".*", "a\n"}, {"a.c", "abc\n"}, {".+", "ab\r"},
      // anchors
      {"^a", "ab"}, {"a$", "ab"}, {"^a$", "ab"}, {"^ab|cd$", "abcd"}, {"^(a|b)$", "abc"}, {"^$", "a"},
      {"^", "a"}, {"$", "a"}, {"^a*$", "ab"}, {"a|^b", "ab"}, {"a$|b", "ab"}, {"^a|b|c$", "abcd"},
      {"^(?:ab)+$", "ab"}, {"^a|^b", "abc"}, {"a$|b$", "abc"}, {"^a+b?$|^b", "ab"},
  };
}

constexpr size_t kMaxLen = 7;
constexpr size_t kMaxStrings = 12000;  // shorter strings for larger alphabets

size_t length_bound(size_t alphabet) {
  size_t len = kMaxLen;
  auto count = [&](size_t l) {
    size_t n = 1, p = 1;
    for (size_t i = 0; i < l; ++i) p *= alphabet, n += p;
    return n;
  };
  while (len > 2 && count(len) > kMaxStrings) --len;
  return len;
}

std::string show(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return "\"" + out + "\"";
}

// Walks the strings as a trie with mark/rollback; a rejected byte must kill every enumerated
// extension (none is accepted by the oracle). Returns the number of strings covered.
size_t check_matcher(grammar::Matcher& m, std::string& s, const std::vector<std::string>& alphabet, size_t max_len,
                     const std::unordered_map<std::string, bool>& expected,
                     const std::unordered_set<std::string>& viable, const std::string& what) {
  size_t covered = 1;
  EXPECT_EQ(m.can_end(), expected.at(s)) << what << " on " << show(s);
  if (s.size() == max_len) return covered;
  size_t subtree = 1;
  for (size_t l = 0, p = 1; l < max_len - s.size() - 1; ++l) p *= alphabet.size(), subtree += p;
  for (const auto& a : alphabet) {
    const auto cp = m.mark();
    s += a;
    if (m.accept_bytes(a)) {
      covered += check_matcher(m, s, alphabet, max_len, expected, viable, what);
      m.rollback(cp);
    } else {
      EXPECT_FALSE(viable.count(s)) << what << ": matcher rejects the viable prefix " << show(s);
      covered += subtree;
    }
    s.resize(s.size() - a.size());
  }
  return covered;
}

struct Totals {
  size_t patterns = 0, comparisons = 0, matcher_strings = 0;
};

// Compares both modes of one pattern with std::regex and with the lowered grammar.
void check_pattern(const std::string& pattern, const std::string& alphabet_chars, Totals& totals) {
  SCOPED_TRACE("pattern " + show(pattern));
  const std::regex re(pattern, std::regex::ECMAScript);
  const CharAutomaton full = CharAutomaton::from_regex(pattern, RegexMode::FullMatch);
  const CharAutomaton search = CharAutomaton::from_regex(pattern, RegexMode::Search);
  const auto alphabet = chars_of(alphabet_chars);
  const size_t max_len = length_bound(alphabet.size());
  std::unordered_map<std::string, bool> want_full, want_search;
  std::unordered_set<std::string> viable_full, viable_search;
  int reports = 0;
  for (const std::string& s : all_strings(alphabet, max_len)) {
    const bool m = std::regex_match(s, re);
    const bool f = std::regex_search(s, re, std::regex_constants::match_default);
    want_full[s] = m;
    want_search[s] = f;
    if (m)
      for (size_t k = 0; k <= s.size(); ++k) viable_full.insert(s.substr(0, k));
    if (f)
      for (size_t k = 0; k <= s.size(); ++k) viable_search.insert(s.substr(0, k));
    const std::u32string u(s.begin(), s.end());
    if (full.accepts(u) != m && reports++ < 5) ADD_FAILURE() << "FullMatch disagrees with regex_match on " << show(s);
    if (search.accepts(u) != f && reports++ < 5) ADD_FAILURE() << "Search disagrees with regex_search on " << show(s);
    totals.comparisons += 2;
  }
  ++totals.patterns;
  for (int mode = 0; mode < 2; ++mode) {
    const CharAutomaton& a = mode == 0 ? full : search;
    grammar::Matcher matcher(compile_lowered(a, Encoding::Raw, alphabet));
    std::string s;
    const size_t covered = check_matcher(matcher, s, alphabet, max_len, mode == 0 ? want_full : want_search,
                                         mode == 0 ? viable_full : viable_search, mode == 0 ? "full matcher" : "search matcher");
    EXPECT_EQ(covered, want_full.size());
    totals.matcher_strings += covered;
  }
}

TEST(RegexOracle, AgreesWithStdRegexAndLoweredMatcher) {
  Totals totals;
  for (const auto& c : oracle_cases()) check_pattern(c.pattern, c.alphabet, totals);
  std::printf("[ regex oracle ] %zu patterns, %zu automaton/std::regex comparisons, %zu matcher strings\n",
              totals.patterns, totals.comparisons, totals.matcher_strings);
  EXPECT_GE(totals.patterns, 100u);
}

// Random patterns over {a, b}: nesting of groups, alternation, classes and all quantifier forms.
std::string random_pattern(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto atom = [&]() -> std::string {
    switch (pick(depth > 0 ? 7 : 5)) {
      case 0: return "a";
      case 1: return "b";
      case 2: return "[ab]";
      case 3: return "[^a]";
      case 4: return ".";
      case 5: return "(" + random_pattern(rng, depth - 1) + ")";
      default: return "(?:" + random_pattern(rng, depth - 1) + ")";
    }
  };
  std::string out;
  const int branches = 1 + (pick(3) == 0);
  for (int br = 0; br < branches; ++br) {
    if (br) out += "|";
    const int items = 1 + pick(3);
    for (int i = 0; i < items; ++i) {
      out += atom();
      static const char* const kQuant[] = {"", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,2}", "{2,}", "*?", "+?"};
      out += kQuant[pick(12)];
    }
  }
  return out;
}

TEST(RegexOracle, RandomPatternsAgreeWithStdRegex) {
  std::mt19937 rng(20240601);
  Totals totals;
  const auto alphabet = chars_of("abc");
  const auto strings = all_strings(alphabet, 5);
  for (int i = 0; i < 150; ++i) {
    std::string p = random_pattern(rng, 2);
    if (rng() % 4 == 0) p = "^" + p;
    if (rng() % 4 == 0) p += "$";
    SCOPED_TRACE("random pattern " + p);
    const std::regex re(p, std::regex::ECMAScript);
    const CharAutomaton full = CharAutomaton::from_regex(p, RegexMode::FullMatch);
    const CharAutomaton search = CharAutomaton::from_regex(p, RegexMode::Search);
    int reports = 0;
    for (const auto& s : strings) {
      const std::u32string u(s.begin(), s.end());
      if (full.accepts(u) != std::regex_match(s, re) && reports++ < 3) ADD_FAILURE() << "FullMatch on " << show(s);
      if (search.accepts(u) != std::regex_search(s, re) && reports++ < 3) ADD_FAILURE() << "Search on " << show(s);
      totals.comparisons += 2;
    }
    // Lowering: the byte automaton simulated directly agrees with the character automaton.
    const grammar::Grammar g = testing::grammar_of(full, Encoding::Raw);
    for (const auto& s : strings)
      ASSERT_EQ(testing::byte_automaton_accepts(*g.exprs.back().automaton, s), full.accepts(std::u32string(s.begin(), s.end())))
          << show(s);
    ++totals.patterns;
  }
  std::printf("[ regex oracle ] %zu random patterns, %zu comparisons\n", totals.patterns, totals.comparisons);
}

}  // namespace
}  // namespace ninfer::text
