#include "text/text_excluding.h"

#include <string_view>

namespace ninfer::text {
namespace {

// The ECMAScript syntax characters, which must be escaped to stand for themselves.
bool is_syntax_char(char c) { return std::string_view("^$\\.*+?()[]{}|/").find(c) != std::string_view::npos; }

}  // namespace

CharAutomaton text_excluding(const std::vector<std::string>& forbidden, const AutomatonBudget& budget) {
  if (forbidden.empty()) return CharAutomaton::any_string();
  // "contains one of them" as a regex over escaped literals, then its complement.
  std::string alternatives;
  for (size_t i = 0; i < forbidden.size(); ++i) {
    if (i) alternatives += '|';
    for (char c : forbidden[i]) {
      if (is_syntax_char(c)) alternatives += '\\';
      alternatives += c;
    }
  }
  const std::string contains = "[\\s\\S]*(?:" + alternatives + ")[\\s\\S]*";
  return CharAutomaton::from_regex(contains, RegexMode::FullMatch, budget).complement();
}

}  // namespace ninfer::text
