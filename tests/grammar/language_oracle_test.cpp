// Exhaustive agreement between the matcher and the independent oracle on small grammars: every
// string over a small byte alphabet up to a length bound (pruned where both say "dead"), and the
// token masks of synthetic vocabularies at sampled reachable prefixes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "oracle_recognizer.h"
#include "test_support.h"

namespace ninfer::grammar {
namespace {

using namespace std::string_literals;
using oracle::Oracle;
using testing::make_domain;
using testing::mask_bit;

constexpr size_t kStringBudget = 50000;  // strings checked per grammar (byte level)
constexpr size_t kMaskPrefixes = 250;    // sampled prefixes per grammar for the token masks
constexpr size_t kMaxLen = 24;           // length cap of the enumerated strings
constexpr int kMaxReports = 8;           // failure messages per grammar and kind

using testing::show;

struct LangCase {
  const char* name;
  std::string gbnf;
  std::string alphabet;  // one byte per symbol
  std::vector<std::string> extra_tokens = {};
};

std::ostream& operator<<(std::ostream& os, const LangCase& c) { return os << c.name; }

std::vector<LangCase> cases() {
  return {
      {"choice_basic", R"g(root ::= "a" | "b" "c")g", "abc"},
      {"nested_optional", R"g(root ::= "a" ("b" ("c")?)? "d"?)g", "abcd", {"abcd", "bc", "cd"}},
      {"repeat_range", R"g(root ::= "ab"{2,3} "c"{0,2})g", "abc", {"abab", "bab", "abc"}},
      {"repeat_exact_class", R"g(root ::= [a-c]{3})g", "abcd"},
      {"repeat_min_only", R"g(root ::= ("a" | "bb"){2,})g", "ab", {"bbb", "abb"}},
      {"repeat_max_only", R"g(root ::= "x"{,2} "y")g", "xy", {"xxy", "xxx"}},
      {"balanced_parens", R"g(root ::= "(" root ")" root | "")g", "()", {"(()", "())", "()()"}},
      {"left_recursive_expr", R"g(root ::= expr
expr ::= expr "+" term | term
term ::= term "*" factor | factor
factor ::= "1" | "2" | "(" expr ")")g",
       "12+*()", {"1+", "+2", "*(", "1)", "(1+2)"}},
      {"indirect_left_recursion", R"g(root ::= a "c" | "b"
a ::= root "a")g",
       "abc", {"bac", "acac", "ca"}},
      {"ambiguous_ss", R"g(root ::= s
s ::= s s | "a" | "")g",
       "ab"},
      {"utf8_two_byte_range", R"g(root ::= [é-ÿ]+ | "a")g", "a\xC3\xA9\xBF\xA8\xC2\x80",
       {"\xC3", "\xC3\xA9", "\xA9\xC3", "\xC3\xBF\xC3", "a\xC3"}},
      {"utf8_three_byte_range", R"g(root ::= "<" [€-₿]* ">")g", "<>\xE2\x82\x83\xAC\xAB\xBF",
       {"<\xE2", "<\xE2\x82", "\xE2\x82", "\x82\xAC", "\xAC>", "\xE2\x82\xAC\xE2", "\xE2\x82\xAB"}},
      {"negated_class", R"g(root ::= "\"" [^a"]* "\"")g", "\"ab\xC3\xA9\xFF\x80",
       {"\"\xC3", "\xA9\"", "b\"", "\"\""}},
      {"dot_any_scalar", R"g(root ::= "<" . . ">")g", "<>a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x80\xFF\xED\xA0",
       {"<\xF0\x9F", "\x9F\x80\x80", "\xED\xA0\x80", "\xED\x9F\xBF", "\xC0\x80", "\xF4\x90\x80\x80"}},
      {"utf8_four_byte_range", R"g(root ::= [\U0001F600-\U0001F64F] "!")g", "\xF0\x9F\x98\x99\x80\xBF\x8F!",
       {"\xF0\x9F\x98", "\x98\x80!", "\xF0\x9F\x98\x80!", "\xF0\x9F\x97\xBF", "\xF0\x9F\x99\x8F"}},
      {"class_across_lengths", R"g(root ::= [\x7E-\u0801]+)g", "\x7E\x7F\xC2\x80\xDF\xBF\xE0\xA0\x81\x82",
       {"\xE0\xA0\x81", "\xE0\xA0\x82", "\xC2\x7F", "\xDF\xBF\xE0"}},
      {"literal_escapes", R"g(root ::= "\n\t\x41" "\u00e9" "\"\\" [\x00-\x02])g",
       "\n\tA\xC3\xA9\"\\\x00\x02\x03"s, {"\n\tA\xC3", "\\\x01"s, "\x00"s}},
      {"empty_alternatives", R"g(root ::= ("" | "a") ("b" | "") "")g", "ab"},
      {"dead_alternative", R"g(root ::= "a" dead | "b" | "x" dead "y" | "x" "z"
dead ::= "x" dead)g",
       "abxyz", {"ax", "xx", "xz"}},
      {"mutual_recursion", R"g(root ::= "a" b | ""
b ::= "b" root)g",
       "ab"},
      {"nested_repetition", R"g(root ::= ("a" "b"?)* "c")g", "abc"},
      {"ambiguous_plus", R"g(root ::= ([ab] | "ab" "c"?)+)g", "abc"},
      {"mini_json", R"g(root ::= obj
obj ::= "{" ( pair ("," pair)* )? "}"
pair ::= "\"" [a-b]* "\":" val
val ::= [0-9]+ | obj)g",
       "{}\",:a1", {"{\"", "\":", "\":{", "1}", "},\"", "\"a\":1}"}},
      {"nullable_pair", R"g(root ::= a a
a ::= "x" | "")g",
       "xy"},
      {"right_recursive_list", R"g(root ::= item ("," root)?
item ::= [0-9]{1,2})g",
       "0,9", {"0,", ",0", "09,", "999"}},
      {"repeat_of_rule", R"g(root ::= x{0,3}
x ::= "ab" | "a")g",
       "ab"},
      {"large_bound", R"g(root ::= "a"{2,50} "b")g", "ab"},
      {"repeat_nullable_child", R"g(root ::= ("a"?){3,5} "b")g", "ab"},
      {"multibyte_literals", R"g(root ::= "é" | "€uro" | "😀" | "e")g",
       "\xC3\xA9\xE2\x82\xACuro\xF0\x9F\x98\x80" "e", {"\xE2\x82", "\xAC" "u", "\xF0\x9F\x98", "\x80"}},
      {"class_escapes", R"g(root ::= [\]\-\\a]+ "^"?)g", "]-\\a^b"},
      {"left_recursion_epsilon", R"g(root ::= root "a" | "")g", "ab"},
      {"hidden_left_recursion", R"g(root ::= n root "x" | "y"
n ::= "" | "z")g",
       "xyz"},
      {"string_with_escapes", R"g(root ::= "\"" ( [^"\\] | "\\" . )* "\"")g", "\"\\a\xC3\xA9",
       {"\\\"", "\\\xC3", "\xA9\"", "a\\"}},
      {"lookahead_hint", R"g(root ::= num "b"
num ::= [0-9]+ (= "b"))g",
       "1b"},
      {"multiline_comments", R"g(# a comment line
root ::= greeting   # trailing comment
         " " name
greeting ::= "hi"
  | "hello"   # another
name ::= [a-b]+ my-rule_1
my-rule_1 ::= "!"?
)g",
       "hilo ab!", {"hel", "lo ", "i a", "b!"}},
      {"negated_latin1", R"g(root ::= [^\u0000-\u00FF])g", "\xC4\x80\xC3\xBF\xE0\xA0\xED\x9F\xEF\xF4\x8F\x90",
       {"\xF4\x8F\xBF\xBF", "\xF4\x90", "\xEF\xBF\xBF", "\xED\xA0\x80"}},
      {"dot_surrogates", R"g(root ::= .+)g", "\xED\x9F\xA0\xBF\x80"},
      {"nfa_blowup", R"g(root ::= [a-c]* "c" [a-c]{2})g", "abc"},
      {"cross_rule_tokens", R"g(root ::= "{" key ":" num "}"
key ::= "\"" [a-z]+ "\""
num ::= [0-9]+)g",
       "{}\":a1", {"{\"", "a\":", "\":1}", ":1", "1}", "\"a\":1}"}},
      {"repeated_group_choice", R"g(root ::= ("ab" | "a" | "b"){0,4} "!")g", "ab!"},
      {"unary_recursion", R"g(root ::= "s" root | "0")g", "s0"},
      {"byte_boundaries", R"g(root ::= [\x00-\x7F] [\u0080-\u07FF] [\u0800-\uFFFF] [\U00010000-\U0010FFFF])g",
       "\x00\x7F\xC2\x80\xDF\xBF\xE0\xA0\xEF\xF0\x90\xF4\x8F"s},
  };
}

std::vector<std::string> literals_of(const Grammar& g) {
  std::vector<std::string> out;
  for (const auto& e : g.exprs)
    if (e.kind == ExprKind::Literal) out.push_back(e.literal);
  return out;
}

// Synthetic vocabulary: single bytes, byte pairs, some triples, the grammar's literals with their
// prefixes, suffixes and pairwise concatenations, the case's extra tokens, and one duplicate.
std::vector<std::string> build_vocab(const Grammar& g, const LangCase& c) {
  std::vector<std::string> vocab;
  std::set<std::string> seen;
  auto add = [&](const std::string& t) {
    if (!t.empty() && t.size() <= 16 && seen.insert(t).second) vocab.push_back(t);
  };
  for (char a : c.alphabet) add(std::string(1, a));
  for (char a : c.alphabet)
    for (char b : c.alphabet) add(std::string{a, b});
  uint32_t lcg = 12345;
  auto next = [&](size_t k) {
    lcg = lcg * 1103515245u + 12345u;
    return static_cast<size_t>((lcg >> 16) % k);
  };
  for (int i = 0; i < 30; ++i) {
    std::string t;
    for (int k = 0; k < 3; ++k) t.push_back(c.alphabet[next(c.alphabet.size())]);
    add(t);
  }
  auto lits = literals_of(g);
  for (const auto& l : lits) {
    add(l);
    for (size_t k = 1; k < l.size(); ++k) {
      add(l.substr(0, k));
      add(l.substr(k));
    }
  }
  for (size_t i = 0; i < lits.size() && i < 6; ++i)
    for (size_t j = 0; j < lits.size() && j < 6; ++j) add(lits[i] + lits[j]);
  for (const auto& t : c.extra_tokens) add(t);
  if (!vocab.empty()) vocab.push_back(vocab.front());  // two ids with the same bytes
  return vocab;
}

class LanguageOracle : public ::testing::TestWithParam<LangCase> {};

struct Totals {
  size_t grammars = 0, strings = 0, prefixes = 0, mask_prefixes = 0, token_checks = 0;
  ~Totals() {
    if (grammars)
      std::printf("[language oracle] grammars=%zu strings=%zu viable-prefixes=%zu mask-prefixes=%zu token-checks=%zu\n",
                  grammars, strings, prefixes, mask_prefixes, token_checks);
  }
};
Totals totals;

TEST_P(LanguageOracle, MatcherAgreesWithOracle) {
  const LangCase& c = GetParam();
  const Grammar g = parse_gbnf(c.gbnf);
  ASSERT_TRUE(Oracle::supported(g));
  const Oracle o(g);
  ASSERT_TRUE(o.root_productive());
  const auto vocab = build_vocab(g, c);
  const auto domain = make_domain(vocab);
  const auto cg = compile(g, domain);
  Matcher m(cg);

  // 1. Byte level, breadth first: every string over the alphabet is checked, shortest first, until
  // the budget or the length cap is reached (strings whose prefix is dead for both sides are
  // pruned: a dead prefix has no viable extension). The matcher moves between consecutive
  // strings by rolling back to the longest common prefix and accepting single bytes, so rollback
  // is exercised all the time.
  size_t strings = 0;
  int reports = 0;
  std::vector<std::string> viable{""};  // reachable prefixes (accepted by both)
  {
    const auto v = o.check("");
    EXPECT_TRUE(v.viable);
    EXPECT_EQ(m.can_end(), v.complete) << "can_end at \"\"";
  }
  std::string cur;  // what the matcher holds, one step per byte
  auto move_to = [&](const std::string& target) -> bool {
    size_t l = 0;
    while (l < cur.size() && l < target.size() && cur[l] == target[l]) ++l;
    m.rollback({l});
    cur.resize(l);
    while (cur.size() < target.size()) {
      if (!m.accept_bytes(std::string_view(target).substr(cur.size(), 1))) return false;
      cur.push_back(target[cur.size()]);
    }
    return m.num_steps() == cur.size();
  };
  std::vector<std::string> frontier{""};
  size_t reached = 0;
  for (size_t len = 0; len < kMaxLen && !frontier.empty() && strings < kStringBudget; ++len) {
    std::vector<std::string> next;
    for (const auto& p : frontier) {
      if (strings >= kStringBudget) break;
      ASSERT_TRUE(move_to(p)) << c.name << ": could not re-enter the reachable prefix " << show(p);
      for (char b : c.alphabet) {
        std::string t = p + b;
        ++strings;
        const auto v = o.check(t);
        const bool ok = m.accept_bytes(std::string_view(&b, 1));
        if (ok != v.viable && reports++ < kMaxReports)
          ADD_FAILURE() << c.name << ": accept_bytes of the last byte of " << show(t) << " returned " << ok
                        << ", oracle viable=" << v.viable;
        if (ok) {
          if (v.viable) {
            if (m.can_end() != v.complete && reports++ < kMaxReports)
              ADD_FAILURE() << c.name << ": can_end after " << show(t) << " is " << m.can_end()
                            << ", oracle complete=" << v.complete;
            next.push_back(std::move(t));
          }
          m.rollback_steps(1);
        }
      }
    }
    reached = len + 1;
    viable.insert(viable.end(), next.begin(), next.end());
    frontier = std::move(next);
  }
  m.rollback({0});
  EXPECT_EQ(m.num_steps(), 0u);

  // 2. Token masks at sampled reachable prefixes.
  std::vector<std::string> sample;
  const size_t stride = std::max<size_t>(1, viable.size() / kMaskPrefixes);
  for (size_t i = 0; i < viable.size(); i += stride) sample.push_back(viable[i]);
  if (viable.size() > 1) sample.push_back(viable.back());
  std::vector<uint32_t> mask(domain->mask_words()), again(domain->mask_words());
  size_t token_checks = 0;
  int mask_reports = 0;
  for (const auto& p : sample) {
    m.rollback({0});
    if (!p.empty()) {
      ASSERT_TRUE(m.accept_bytes(p)) << c.name << " " << show(p);
    }
    m.fill_mask(mask.data());
    const auto here = o.check(p);
    if (mask_bit(mask, 0) != here.complete && mask_reports++ < kMaxReports)
      ADD_FAILURE() << c.name << ": EOS bit after " << show(p) << " is " << mask_bit(mask, 0)
                    << ", oracle complete=" << here.complete;
    for (int32_t id = 1; id < domain->size(); ++id) {
      const std::string& t = domain->bytes(id);
      if (p.size() + t.size() > oracle::kMaxInput) continue;
      ++token_checks;
      const bool want = o.check(p + t).viable;
      const bool bit = mask_bit(mask, id);
      if (bit != want && mask_reports++ < kMaxReports)
        ADD_FAILURE() << c.name << ": mask bit of token " << id << " " << show(t) << " after " << show(p) << " is "
                      << bit << ", oracle viable(prefix+token)=" << want;
      if (m.is_allowed(id) != bit && mask_reports++ < kMaxReports)
        ADD_FAILURE() << c.name << ": is_allowed(" << id << ") disagrees with the mask after " << show(p);
      const bool acc = m.accept_token(id);
      if (acc != bit && mask_reports++ < kMaxReports)
        ADD_FAILURE() << c.name << ": accept_token(" << id << ") " << show(t) << " = " << acc
                      << " disagrees with the mask after " << show(p);
      if (acc) m.rollback_steps(1);
    }
    EXPECT_EQ(m.is_allowed(0), here.complete);
    if (m.accept_token(0)) {
      EXPECT_TRUE(m.terminated());
      m.rollback_steps(1);
    }
    EXPECT_FALSE(m.terminated());
    m.fill_mask(again.data());
    EXPECT_EQ(mask, again) << c.name << ": mask changed by is_allowed/accept_token/rollback after " << show(p);
  }

  ++totals.grammars;
  totals.strings += strings;
  totals.prefixes += viable.size();
  totals.mask_prefixes += sample.size();
  totals.token_checks += token_checks;
  std::printf(
      "[language oracle] %-26s length<=%2zu strings=%6zu viable=%6zu vocab=%4zu mask-prefixes=%3zu token-checks=%6zu\n",
      c.name, reached, strings, viable.size(), vocab.size(), sample.size(), token_checks);
}

INSTANTIATE_TEST_SUITE_P(Grammars, LanguageOracle, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<LangCase>& info) { return std::string(info.param.name); });

// The oracle itself, on hand-checked answers (so that agreement above means something).
TEST(OracleSelfCheck, HandCheckedAnswers) {
  {
    const Grammar g = parse_gbnf(R"g(root ::= expr
expr ::= expr "+" term | term
term ::= "1" | "(" expr ")")g");
    const Oracle o(g);
    EXPECT_TRUE(o.is_complete("1+1+(1+1)"));
    EXPECT_TRUE(o.is_viable_prefix("1+(1+"));
    EXPECT_FALSE(o.is_complete("1+(1+"));
    EXPECT_FALSE(o.is_viable_prefix("1++"));
    EXPECT_FALSE(o.is_viable_prefix(")"));
    EXPECT_TRUE(o.is_viable_prefix(""));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= [é-ÿ] "x")g");
    const Oracle o(g);
    EXPECT_TRUE(o.is_viable_prefix("\xC3"));
    EXPECT_FALSE(o.is_viable_prefix("\xC2"));      // U+0080..U+00BF are below é
    EXPECT_FALSE(o.is_viable_prefix("\xC3\xA8"));  // è
    EXPECT_TRUE(o.is_complete("\xC3\xA9x"));
    EXPECT_FALSE(o.is_viable_prefix("\xC3\xA9\xC3"));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= .)g");
    const Oracle o(g);
    EXPECT_TRUE(o.is_viable_prefix("\xED\x9F"));
    EXPECT_FALSE(o.is_viable_prefix("\xED\xA0"));  // surrogates
    EXPECT_FALSE(o.is_viable_prefix("\xC0"));      // overlong
    EXPECT_FALSE(o.is_viable_prefix("\xE0\x80"));  // overlong
    EXPECT_FALSE(o.is_viable_prefix("\xF4\x90"));  // past U+10FFFF
    EXPECT_TRUE(o.is_complete("\xF4\x8F\xBF\xBF"));
    EXPECT_FALSE(o.is_viable_prefix("\x80"));
    EXPECT_TRUE(o.is_complete("\x00"s));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= "a" dead | "b"
dead ::= "x" dead)g");
    const Oracle o(g);
    EXPECT_FALSE(o.is_viable_prefix("a"));
    EXPECT_TRUE(o.is_complete("b"));
    EXPECT_FALSE(o.rule_productive(g.rule_index("dead")));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= ("a"?){3,5} "b")g");
    const Oracle o(g);
    EXPECT_TRUE(o.is_complete("aaaaab"));
    EXPECT_FALSE(o.is_viable_prefix("aaaaaa"));
    EXPECT_TRUE(o.is_complete("b"));
  }
  {
    const Grammar g = parse_gbnf(R"g(root ::= dead
dead ::= dead "x")g");
    EXPECT_FALSE(Oracle(g).root_productive());
    EXPECT_FALSE(Oracle(g).is_viable_prefix(""));
  }
}

}  // namespace
}  // namespace ninfer::grammar
