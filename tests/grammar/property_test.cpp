// Property tests: random small grammars (GBNF text, and raw IR with byte classes that GBNF cannot
// spell) against the independent oracle: byte-level prefix viability, can_end, and the token
// masks of a random small vocabulary, along oracle-guided random walks and random strings.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "oracle_recognizer.h"
#include "test_support.h"

namespace ninfer::grammar {
namespace {

using oracle::Oracle;
using testing::make_domain;
using testing::mask_bit;

// Interprets a vector of random bytes as a sequence of bounded choices; an exhausted stream
// answers 0, and 0 is always the simplest option, so rapidcheck's shrinking (shorter vectors,
// smaller bytes) yields smaller grammars.
class Choices {
 public:
  explicit Choices(const std::vector<uint8_t>& v) : v_(v) {}
  uint32_t next(uint32_t k) { return i_ < v_.size() ? v_[i_++] % k : 0; }

 private:
  const std::vector<uint8_t>& v_;
  size_t i_ = 0;
};

// Bytes the random strings and tokens are made of: ASCII letters plus pieces of "é" (C3 A9) and
// "à" (C3 A0), so classes over multi-byte characters and truncated sequences are exercised.
const std::string kAlphabet = "abc\xC3\xA9\xA0";

using testing::show;

// ---- Random GBNF text -------------------------------------------------------------------------

class GbnfGen {
 public:
  GbnfGen(Choices& ch, uint32_t num_rules, uint32_t max_depth) : ch_(ch), rules_(num_rules), max_depth_(max_depth) {}

  std::string grammar() {
    std::string out;
    for (uint32_t r = 0; r < rules_; ++r) out += name(r) + " ::= " + alternatives(0) + "\n";
    return out;
  }

 private:
  Choices& ch_;
  uint32_t rules_;
  uint32_t max_depth_;

  static std::string name(uint32_t r) { return r == 0 ? "root" : "r" + std::to_string(r); }

  std::string alternatives(uint32_t depth) {
    const uint32_t n = depth >= max_depth_ ? 1 : 1 + ch_.next(3);
    std::string out;
    for (uint32_t i = 0; i < n; ++i) out += (i ? " | " : "") + sequence(depth);
    return out;
  }

  std::string sequence(uint32_t depth) {
    const uint32_t n = 1 + ch_.next(3);
    std::string out;
    for (uint32_t i = 0; i < n; ++i) out += (i ? " " : "") + postfix(depth);
    return out;
  }

  std::string postfix(uint32_t depth) {
    std::string p = primary(depth);
    const uint32_t m = ch_.next(3), extra = ch_.next(3);
    switch (ch_.next(11)) {
      case 5: return p + "*";
      case 6: return p + "+";
      case 7: return p + "?";
      case 8: return p + "{" + std::to_string(m) + "}";
      case 9: return p + "{" + std::to_string(m) + "," + std::to_string(m + extra) + "}";
      case 10: return p + (extra ? "{," + std::to_string(extra) + "}" : "{" + std::to_string(m) + ",}");
      default: return p;
    }
  }

  std::string literal() {
    const uint32_t len = 1 + ch_.next(3);
    std::string out = "\"";
    for (uint32_t i = 0; i < len; ++i) out.push_back("abc"[ch_.next(3)]);
    return out + "\"";
  }

  std::string primary(uint32_t depth) {
    static const char* const kClasses[] = {"[ab]", "[a-c]",  "[^a]",   "[^ab]", "[bc]",
                                           "[a]",  "[à-é]", "[^b-c]", "[é]"};
    static const char* const kSpecial[] = {"\"é\"", "\"\\u00e0\"", "\"\\x61b\"", "\"a\\xC3\\xA9\""};
    switch (ch_.next(10)) {
      case 2: return kClasses[ch_.next(9)];
      case 3: return ".";
      case 4:
      case 5: return name(ch_.next(rules_));
      case 6:
      case 9: return depth < max_depth_ ? "(" + alternatives(depth + 1) + ")" : literal();
      case 7: return "\"\"";
      case 8: {
        // "\xC3\xA9" inside a GBNF literal is the two code points U+00C3 U+00A9, not "é".
        return kSpecial[ch_.next(4)];
      }
      default: return literal();
    }
  }
};

// ---- Random IR (byte classes, empty expressions, raw repeats, embedded automata) ---------------

// Small byte NFAs: {start, accepting states, edges (from, lo, hi, to)}.
struct AutomatonSpec {
  uint32_t states;
  std::vector<uint32_t> accepting;
  std::vector<std::array<uint32_t, 4>> edges;
};
const std::vector<AutomatonSpec> kAutomata = {
    {2, {1}, {{0, 'a', 'a', 1}, {1, 'b', 'b', 1}}},                                      // ab*
    {3, {2}, {{0, 0xC3, 0xC3, 1}, {1, 0xA9, 0xA9, 2}}},                                  // é
    {3, {1}, {{0, 'a', 'a', 1}, {0, 'b', 'b', 2}}},                                      // a, with a dead branch on b
    {1, {0}, {{0, 'c', 'c', 0}}},                                                        // c*
    {2, {}, {{0, 'a', 'a', 1}}},                                                         // nothing at all
    {2, {1}, {{0, 0x80, 0xBF, 0}, {0, 'a', 'b', 1}}},                                    // [\x80-\xBF]* [ab]
    {4, {3}, {{0, 'a', 'a', 1}, {0, 'a', 'a', 2}, {1, 'b', 'b', 3}, {2, 'c', 'c', 3}}},  // a(b|c), nondeterministic
};

std::shared_ptr<const ByteAutomaton> sample_automaton(uint32_t which) {
  const AutomatonSpec& spec = kAutomata[which];
  auto a = std::make_shared<ByteAutomaton>();
  a->edges.resize(spec.states);
  a->accepting.assign(spec.states, 0);
  for (uint32_t s : spec.accepting) a->accepting[s] = 1;
  for (const auto& ed : spec.edges)
    a->edges[ed[0]].push_back({static_cast<uint8_t>(ed[1]), static_cast<uint8_t>(ed[2]), ed[3]});
  a->start = 0;
  return a;
}

Grammar random_ir(Choices& ch) {
  Grammar g;
  const uint32_t nrules = 1 + ch.next(3);
  for (uint32_t r = 0; r < nrules; ++r) g.rules.push_back(Rule{r == 0 ? "root" : "r" + std::to_string(r), -1, -1, {}});
  auto build = [&](auto&& self, uint32_t depth) -> int32_t {
    Expr e;
    const uint32_t k = depth >= 3 ? ch.next(4) : ch.next(10);
    switch (k) {
      case 0: {
        e.kind = ExprKind::Literal;
        const uint32_t len = 1 + ch.next(2);
        for (uint32_t i = 0; i < len; ++i)
          e.literal.push_back(kAlphabet[ch.next(static_cast<uint32_t>(kAlphabet.size()))]);
        break;
      }
      case 1: {
        e.kind = ExprKind::ByteClass;  // includes byte ranges that cut UTF-8 sequences in half
        static const CodepointRange kByteRanges[][2] = {{{'a', 'b'}, {0xA0, 0xA9}}, {{0xC3, 0xC3}, {'c', 'c'}},
                                                         {{0x80, 0xFF}, {0, 0}},     {{'a', 'a'}, {0xA9, 0xA9}}};
        const auto& r = kByteRanges[ch.next(4)];
        e.ranges = {r[0]};
        if (r[1].hi) e.ranges.push_back(r[1]);
        e.ranges = normalize_ranges(e.ranges, false, 255);
        break;
      }
      case 2: {
        e.kind = ExprKind::CharClass;
        static const CodepointRange kCp[] = {{'a', 'c'}, {0xE0, 0xE9}, {0xE9, 0xE9}, {'b', 0xE0}, {0, kMaxCodepoint}};
        e.ranges = normalize_ranges({kCp[ch.next(5)]}, ch.next(4) == 0, kMaxCodepoint);
        if (e.ranges.empty()) e.ranges = {{'a', 'a'}};
        break;
      }
      case 3:
        e.kind = ExprKind::RuleRef;
        e.rule = static_cast<int32_t>(ch.next(nrules));
        break;
      case 4:
        e.kind = ExprKind::Empty;
        break;
      case 5:
      case 6: {
        e.kind = k == 5 ? ExprKind::Sequence : ExprKind::Choice;
        const uint32_t n = 1 + ch.next(3);
        for (uint32_t i = 0; i < n; ++i) e.children.push_back(self(self, depth + 1));
        break;
      }
      case 9:
        e.kind = ExprKind::Automaton;
        e.automaton = sample_automaton(ch.next(static_cast<uint32_t>(kAutomata.size())));
        break;
      default: {
        e.kind = ExprKind::Repeat;
        e.children.push_back(self(self, depth + 1));
        e.min = ch.next(3);
        const uint32_t span = ch.next(4);
        e.max = span == 3 ? kUnbounded : e.min + span;
        break;
      }
    }
    return g.add(std::move(e));
  };
  for (uint32_t r = 0; r < nrules; ++r) g.rules[r].body = build(build, 0);
  g.root = 0;
  return g;
}

// ---- The agreement check ----------------------------------------------------------------------

struct Stats {
  size_t grammars = 0, empty_language = 0, bytes = 0, masks = 0, tokens = 0;
};
Stats stats;

// Compares matcher and oracle on one grammar. `drive` supplies the random choices of the walks.
void check_agreement(const Grammar& g, const std::string& text, Choices& drive) {
  RC_ASSERT(Oracle::supported(g));
  const Oracle o(g);
  // Random small vocabulary over the alphabet (duplicates allowed).
  std::vector<std::string> tokens;
  const uint32_t ntok = 4 + drive.next(12);
  for (uint32_t i = 0; i < ntok; ++i) {
    std::string t;
    const uint32_t len = 1 + drive.next(3);
    for (uint32_t k = 0; k < len; ++k) t.push_back(kAlphabet[drive.next(static_cast<uint32_t>(kAlphabet.size()))]);
    tokens.push_back(t);
  }
  const auto domain = make_domain(tokens);
  std::shared_ptr<const CompiledGrammar> cg;
  try {
    cg = compile(g, domain);
  } catch (const GrammarError& e) {
    if (e.kind() == GrammarErrorKind::EmptyLanguage) {
      RC_ASSERT(!o.root_productive());
      ++stats.empty_language;
      return;
    }
    RC_FAIL("compile failed: " + std::string(e.what()) + "\n" + text);
  }
  RC_ASSERT(o.root_productive());
  ++stats.grammars;
  Matcher m(cg);
  std::vector<uint32_t> mask(domain->mask_words());

  // Compares everything at the matcher's current position `p`.
  auto check_here = [&](const std::string& p) {
    const auto here = o.check(p);
    if (!here.viable) RC_FAIL("walk reached a prefix the oracle rejects: " + show(p) + "\n" + text);
    if (m.can_end() != here.complete)
      RC_FAIL("can_end after " + show(p) + " is " + std::to_string(m.can_end()) + "\n" + text);
    for (char b : kAlphabet) {
      ++stats.bytes;
      const bool want = o.check(p + b).viable;
      const bool got = m.accept_bytes(std::string_view(&b, 1));
      if (got) m.rollback_steps(1);
      if (got != want)
        RC_FAIL("byte " + show(std::string(1, b)) + " after " + show(p) + ": matcher " + std::to_string(got) +
                ", oracle " + std::to_string(want) + "\n" + text);
    }
    m.fill_mask(mask.data());
    ++stats.masks;
    if (mask_bit(mask, 0) != here.complete) RC_FAIL("EOS bit after " + show(p) + "\n" + text);
    for (int32_t id = 1; id < domain->size(); ++id) {
      ++stats.tokens;
      const bool want = o.check(p + domain->bytes(id)).viable;
      if (mask_bit(mask, id) != want)
        RC_FAIL("mask bit of token " + show(domain->bytes(id)) + " after " + show(p) + ": matcher " +
                std::to_string(mask_bit(mask, id)) + ", oracle " + std::to_string(want) + "\n" + text);
      if (m.is_allowed(id) != want) RC_FAIL("is_allowed disagrees with the oracle after " + show(p) + "\n" + text);
    }
  };

  // Oracle-guided random walks: bytes or whole tokens, always staying inside the language.
  for (int walk = 0; walk < 2; ++walk) {
    m.rollback({0});
    std::string p;
    for (int step = 0; step < 14 && p.size() < 40; ++step) {
      check_here(p);
      if (drive.next(3) == 0) {
        std::vector<int32_t> allowed;
        for (int32_t id = 1; id < domain->size(); ++id)
          if (mask_bit(mask, id)) allowed.push_back(id);
        if (!allowed.empty()) {
          const int32_t id = allowed[drive.next(static_cast<uint32_t>(allowed.size()))];
          RC_ASSERT(m.accept_token(id));
          p += domain->bytes(id);
          continue;
        }
      }
      std::string live;
      for (char b : kAlphabet)
        if (o.check(p + b).viable) live.push_back(b);
      if (live.empty()) break;
      const char b = live[drive.next(static_cast<uint32_t>(live.size()))];
      RC_ASSERT(m.accept_bytes(std::string_view(&b, 1)));
      p.push_back(b);
    }
  }

  // Random strings, byte by byte, until both sides reject.
  for (int k = 0; k < 6; ++k) {
    m.rollback({0});
    std::string p;
    const uint32_t len = drive.next(10);
    for (uint32_t i = 0; i < len; ++i) {
      const char b = kAlphabet[drive.next(static_cast<uint32_t>(kAlphabet.size()))];
      const auto v = o.check(p + b);
      const bool got = m.accept_bytes(std::string_view(&b, 1));
      ++stats.bytes;
      if (got != v.viable)
        RC_FAIL("random string " + show(p + b) + ": matcher " + std::to_string(got) + ", oracle " +
                std::to_string(v.viable) + "\n" + text);
      if (!got) break;
      p.push_back(b);
      if (m.can_end() != v.complete) RC_FAIL("can_end after random string " + show(p) + "\n" + text);
    }
  }
}

// rc::check with more cases than rapidcheck's default 100 (RC_PARAMS=max_success=N raises it
// further; the seed comes from RC_PARAMS too, so failures can be replayed).
template <class Prop>
bool check_many(const std::string& description, int cases, Prop&& prop) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(params.maxSuccess, cases);
  rc::detail::TestMetadata metadata;
  metadata.id = description;
  metadata.description = description;
  std::cerr << "- " << description << std::endl;
  const auto result = rc::detail::checkTestable(std::forward<Prop>(prop), metadata, params);
  rc::detail::printResultMessage(result, std::cerr);
  std::cerr << std::endl;
  return result.template is<rc::detail::SuccessResult>();
}

void print_stats(const char* what) {
  std::printf("[property] %s: grammars=%zu (empty-language skipped=%zu) byte-checks=%zu masks=%zu token-checks=%zu\n",
              what, stats.grammars, stats.empty_language, stats.bytes, stats.masks, stats.tokens);
  stats = {};
}

// One property case: a random GBNF grammar of min_rules + [0, extra_rules) rules at the given
// group depth, and a random drive, checked against the oracle.
void check_random_gbnf(int min_rules, int extra_rules, int depth) {
  const auto recipe = *rc::gen::container<std::vector<uint8_t>>(rc::gen::arbitrary<uint8_t>());
  const auto drive_bytes = *rc::gen::container<std::vector<uint8_t>>(rc::gen::arbitrary<uint8_t>());
  Choices ch(recipe);
  GbnfGen gen(ch, min_rules + ch.next(extra_rules), depth);
  const std::string text = gen.grammar();
  Grammar g;
  try {
    g = parse_gbnf(text);
  } catch (const GrammarError& e) {
    RC_FAIL("generated grammar does not parse: " + std::string(e.what()) + "\n" + text);
  }
  Choices drive(drive_bytes);
  check_agreement(g, text, drive);
}

TEST(GrammarProperty, RandomGbnfSmall) {
  EXPECT_TRUE(check_many("random GBNF grammars (1-3 rules) agree with the oracle", 700, [] {
    check_random_gbnf(1, 3, 2);
  }));
  print_stats("GBNF, small");
}

TEST(GrammarProperty, RandomGbnfRecursive) {
  // More rules and deeper groups: mutual, left and hidden-left recursion are common here.
  EXPECT_TRUE(check_many("random recursive GBNF grammars (3-5 rules) agree with the oracle", 700, [] {
    check_random_gbnf(3, 3, 3);
  }));
  print_stats("GBNF, recursive");
}

TEST(GrammarProperty, RandomIr) {
  EXPECT_TRUE(check_many("random IR grammars (byte classes, raw repeats, automata) agree with the oracle", 700, [] {
    const auto recipe = *rc::gen::container<std::vector<uint8_t>>(rc::gen::arbitrary<uint8_t>());
    const auto drive_bytes = *rc::gen::container<std::vector<uint8_t>>(rc::gen::arbitrary<uint8_t>());
    Choices ch(recipe);
    const Grammar g = random_ir(ch);
    Choices drive(drive_bytes);
    check_agreement(g, g.to_string(), drive);
  }));
  print_stats("IR");
}

}  // namespace
}  // namespace ninfer::grammar
