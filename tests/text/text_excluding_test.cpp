// text_excluding: every string without the forbidden substrings, against a brute-force check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/text_excluding.h"

namespace ninfer::text {
namespace {

bool contains_any(const std::u32string& s, const std::vector<std::u32string>& forbidden) {
  for (const auto& f : forbidden)
    if (s.find(f) != std::u32string::npos) return true;
  return false;
}

TEST(TextExcluding, AcceptsExactlyTheStringsWithoutTheForbiddenOnesOverASmallAlphabet) {
  const std::vector<std::string> forbidden{"</a>", "<a>", "\naa"};
  const std::vector<std::u32string> f32{U"</a>", U"<a>", U"\naa"};
  const CharAutomaton a = text_excluding(forbidden);
  const std::u32string alphabet = U"<>/a\n\u00e9";
  // Every string up to length 5 over the alphabet.
  std::vector<std::u32string> level{U""};
  size_t checked = 0;
  for (int len = 0; len <= 5; ++len) {
    std::vector<std::u32string> next;
    for (const auto& s : level) {
      EXPECT_EQ(a.accepts(s), !contains_any(s, f32)) << len;
      ++checked;
      if (len < 5)
        for (char32_t c : alphabet) next.push_back(s + c);
    }
    level = std::move(next);
  }
  EXPECT_GT(checked, 9000u);
}

TEST(TextExcluding, NoForbiddenStringsIsAnyStringAndTheEmptyOneIsNothing) {
  EXPECT_TRUE(text_excluding({}).accepts(U"anything </think>"));
  EXPECT_TRUE(text_excluding({""}).is_empty());
}

TEST(TextExcluding, SyntaxCharactersAreLiteral) {
  const CharAutomaton a = text_excluding({"a.*b", "(|)"});
  EXPECT_TRUE(a.accepts(U"axxb"));
  EXPECT_FALSE(a.accepts(U"xa.*bx"));
  EXPECT_FALSE(a.accepts(U"(|)"));
  EXPECT_TRUE(a.accepts(U"(|"));
}

}  // namespace
}  // namespace ninfer::text
