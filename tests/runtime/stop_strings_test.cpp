#include "runtime/stop_strings.h"

#include <random>

#include <gtest/gtest.h>

namespace ninfer::runtime {
namespace {

// Reference: the text before the first stop string to be complete (the earliest end; at one end,
// the longest stop), found by brute force over every prefix of the whole output.
std::string cut_at_first_stop(const std::string& text, const std::vector<std::string>& stops) {
  for (size_t end = 1; end <= text.size(); ++end) {
    const std::string prefix = text.substr(0, end);
    size_t start = std::string::npos;
    for (const std::string& s : stops)
      if (prefix.ends_with(s)) start = std::min(start, end - s.size());
    if (start != std::string::npos) return text.substr(0, start);
  }
  return text;
}

TEST(StopStrings, TheOutputEndsBeforeTheStopStringEvenAcrossPieces) {
  StopStrings s({"END"});
  EXPECT_EQ(s.push("hello E"), "hello ");  // "E" may begin the stop string: held back
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.push("N"), "");
  EXPECT_EQ(s.push("D and more"), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.push("later"), "");
}

TEST(StopStrings, HeldTextIsReleasedWhenItTurnsOutNotToBeAStop) {
  StopStrings s({"END"});
  EXPECT_EQ(s.push("xEN"), "x");
  EXPECT_EQ(s.push("x"), "ENx");
  EXPECT_EQ(s.push("E"), "");
  EXPECT_EQ(s.flush(), "E");
  EXPECT_FALSE(s.stopped());
}

// Whatever the split of the output into pieces, the published text is exactly the output cut
// before the first stop string to be complete (a brute-force oracle over random outputs and splits).
TEST(StopStrings, PublishedTextEqualsTheOutputCutAtTheEarliestStopForEverySplit) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab\n<";
  const std::vector<std::vector<std::string>> stop_sets = {{"ab"}, {"aab", "b\n"}, {"<a", "a<a<"}, {"\n\n"}};
  for (int iter = 0; iter < 4000; ++iter) {
    const auto& stops = stop_sets[iter % stop_sets.size()];
    std::string text;
    const int len = int(rng() % 12);
    for (int i = 0; i < len; ++i) text += alphabet[rng() % alphabet.size()];
    StopStrings s(stops);
    std::string published;
    for (size_t at = 0; at < text.size();) {
      const size_t n = 1 + rng() % 3;
      published += s.push(text.substr(at, n));
      at += n;
    }
    if (!s.stopped()) published += s.flush();
    ASSERT_EQ(published, cut_at_first_stop(text, stops)) << "text=" << text;
    ASSERT_EQ(s.stopped(), cut_at_first_stop(text, stops).size() != text.size());
  }
}

}  // namespace
}  // namespace ninfer::runtime
