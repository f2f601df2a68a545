// Bounded JSON numbers (src/text/number_automaton.*) against an independent oracle: the text is
// parsed by hand, its exact decimal value compared with the bounds by string arithmetic (never
// through double), and the family of spellings of number_automaton.h checked rule by rule.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "text/number_automaton.h"

namespace ninfer::text {
namespace {

// ---- oracle

// m · 10^x with m a digit string without leading zeros ("" = zero).
struct Exact {
  bool negative = false;
  std::string m;
  long x = 0;
  bool zero() const { return m.empty(); }
  long order() const { return static_cast<long>(m.size()) + x; }  // |v| in [10^(order-1), 10^order)
};

std::string strip_leading_zeros(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && s[i] == '0') ++i;
  return s.substr(i);
}

// Compares magnitudes: -1, 0, 1.
int compare_magnitude(const Exact& a, const Exact& b) {
  if (a.zero() || b.zero()) return a.zero() == b.zero() ? 0 : a.zero() ? -1 : 1;
  if (a.order() != b.order()) return a.order() < b.order() ? -1 : 1;
  std::string p = a.m, q = b.m;
  p.resize(std::max(p.size(), q.size()), '0');
  q.resize(p.size(), '0');
  return p < q ? -1 : p > q ? 1 : 0;
}

int compare(const Exact& a, const Exact& b) {
  const int sa = a.zero() ? 0 : a.negative ? -1 : 1, sb = b.zero() ? 0 : b.negative ? -1 : 1;
  if (sa != sb) return sa < sb ? -1 : 1;
  return sa * compare_magnitude(a, b);
}

// The pieces of a text of -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, parsed by hand.
struct Parsed {
  bool negative = false;
  std::string int_part, frac_part;
  bool has_exp = false;
  bool exp_negative = false;
  std::string exp_digits;
};

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::optional<Parsed> parse(const std::string& t) {
  Parsed p;
  size_t i = 0;
  if (i < t.size() && t[i] == '-') p.negative = true, ++i;
  size_t j = i;
  while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
  p.int_part = t.substr(i, j - i);
  if (!all_digits(p.int_part) || (p.int_part.size() > 1 && p.int_part[0] == '0')) return std::nullopt;
  i = j;
  if (i < t.size() && t[i] == '.') {
    j = ++i;
    while (j < t.size() && t[j] >= '0' && t[j] <= '9') ++j;
    p.frac_part = t.substr(i, j - i);
    if (!all_digits(p.frac_part)) return std::nullopt;
    i = j;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    p.has_exp = true;
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) p.exp_negative = t[i] == '-', ++i;
    p.exp_digits = t.substr(i);
    if (!all_digits(p.exp_digits)) return std::nullopt;
    i = t.size();
  }
  if (i != t.size()) return std::nullopt;
  return p;
}

Exact value_of(const Parsed& p) {
  Exact v;
  v.negative = p.negative;
  std::string all = p.int_part + p.frac_part;
  v.m = strip_leading_zeros(all);
  long e = 0;
  const std::string ed = strip_leading_zeros(p.exp_digits);
  if (ed.size() > 9) e = 1000000000L;  // far beyond every bound either way
  else if (!ed.empty()) e = std::stol(ed);
  if (p.exp_negative) e = -e;
  v.x = e - static_cast<long>(p.frac_part.size());
  while (!v.m.empty() && v.m.back() == '0') v.m.pop_back(), ++v.x;
  return v;
}

// A decimal literal written like "-1.5e-3" (used for the bounds), as an Exact.
Exact exact(const std::string& literal) {
  auto p = parse(literal);
  EXPECT_TRUE(p.has_value()) << literal;
  return value_of(*p);
}

struct Bound {
  std::string literal;  // the shortest round-trip decimal of the double (as the schema's bound is read)
  bool exclusive = false;
};

struct Range {
  std::optional<Bound> lower, upper;
  std::string name() const {
    return std::string(lower ? (lower->exclusive ? "(" : "[") + lower->literal : "(-inf") + ", " +
           (upper ? upper->literal + (upper->exclusive ? ")" : "]") : "+inf)");
  }
};

// The range as the oracle reads it: exact bounds (a missing side is ±1e308 inclusive) and the
// family's limits that depend on the bounds.
struct OracleRange {
  Exact lo, hi;
  bool lo_exclusive = false, hi_exclusive = false, exclusive = false;
  long zeros_allowed = kBoundedNumberExclusiveZeros;  // after "0.", with an exclusive bound
  long exponent_limit = kBoundedNumberExponentLimit;
  explicit OracleRange(const Range& r)
      : lo(exact(r.lower ? r.lower->literal : "-1e308")), hi(exact(r.upper ? r.upper->literal : "1e308")) {
    lo_exclusive = r.lower && r.lower->exclusive;
    hi_exclusive = r.upper && r.upper->exclusive;
    exclusive = lo_exclusive || hi_exclusive;
    for (const auto& b : {r.lower, r.upper})
      if (b) {
        const Exact e = exact(b->literal);
        if (!e.zero()) zeros_allowed = std::max(zeros_allowed, 1 - e.order());
        if (!e.zero()) exponent_limit = std::max(exponent_limit, std::labs(e.order()) + 20);
      }
  }
};

// Whether the text is in the family of number_automaton.h and its value within the range.
bool oracle(const OracleRange& r, const std::string& text) {
  static const Exact kFloor = exact("1e-307");
  auto p = parse(text);
  if (!p) return false;
  const Exact v = value_of(*p);
  // Family: integer part length.
  if (static_cast<int>(p->int_part.size()) > kBoundedNumberIntegerDigits) return false;
  // Family: significant digits of the mantissa (first to last non-zero digit).
  std::string sig = strip_leading_zeros(p->int_part + p->frac_part);
  while (!sig.empty() && sig.back() == '0') sig.pop_back();
  if (r.exclusive && static_cast<int>(sig.size()) > kBoundedNumberExclusiveDigits) return false;
  // Family: zeros between "0." and the first significant digit.
  if (!v.zero() && p->int_part == "0") {
    const long zeros = static_cast<long>(p->frac_part.find_first_not_of('0'));
    if (p->has_exp && zeros > kBoundedNumberExponentZeros) return false;
    if (r.exclusive && zeros > r.zeros_allowed) return false;
  }
  // Family: before an exponent, a short integer part; the exponent's magnitude under its limit.
  if (p->has_exp) {
    if (!v.zero() && p->int_part != "0" && static_cast<int>(p->int_part.size()) > kBoundedNumberExponentIntegerDigits)
      return false;
    const std::string e = strip_leading_zeros(p->exp_digits);
    if (e.size() > 6 || (!e.empty() && std::stol(e) > r.exponent_limit)) return false;
  }
  // Family: with an exclusive bound, non-zero magnitudes of at least 1e-307.
  if (r.exclusive && !v.zero() && compare_magnitude(v, kFloor) < 0) return false;
  const int cl = compare(v, r.lo), ch = compare(v, r.hi);
  if (cl < 0 || (cl == 0 && r.lo_exclusive)) return false;
  if (ch > 0 || (ch == 0 && r.hi_exclusive)) return false;
  return true;
}

// ---- automaton

NumberSpec spec_of(const Range& r) {
  NumberSpec s;
  if (r.lower) s.lower = NumberBound{std::strtod(r.lower->literal.c_str(), nullptr), r.lower->exclusive};
  if (r.upper) s.upper = NumberBound{std::strtod(r.upper->literal.c_str(), nullptr), r.upper->exclusive};
  return s;
}

// Next state on byte c, or -1.
int64_t step(const grammar::ByteAutomaton& a, int64_t state, unsigned char c) {
  if (state < 0) return -1;
  for (const auto& e : a.edges[state])
    if (e.lo <= c && c <= e.hi) return e.target;
  return -1;
}

bool automaton_accepts(const grammar::ByteAutomaton* a, const std::string& text) {
  if (!a) return false;
  int64_t s = a->start;
  for (char c : text) s = step(*a, s, static_cast<unsigned char>(c));
  return s >= 0 && a->accepting[s];
}

Bound inc(const std::string& v) { return {v, false}; }
Bound exc(const std::string& v) { return {v, true}; }

std::vector<Range> ranges() {
  return {
      {inc("0.5"), inc("1.5")},          {exc("0.5"), exc("1.5")},     {inc("0"), inc("1")},
      {exc("0"), exc("1")},              {inc("-1"), inc("1")},        {inc("-1.5"), inc("-0.5")},
      {exc("-1.5"), exc("-0.05")},       {inc("-1000000"), inc("1000000")}, {inc("0.00001"), inc("100000")},
      {exc("0.15"), exc("0.9")},         {inc("5"), inc("5")},         {inc("0"), inc("0")},
      {inc("0"), std::nullopt},          {std::nullopt, exc("-1")},    {std::nullopt, std::nullopt},
      {inc("1e-300"), inc("1e-290")},    {exc("1e-300"), exc("1e-290")}, {inc("9"), inc("11")},
      {inc("0.099"), inc("0.11")},       {exc("0.00001"), exc("0.0001")}, {inc("100"), inc("1000")},
      {inc("-100"), inc("-0.001")},      {exc("-0.5"), inc("0.5")},    {inc("1e+300"), std::nullopt},
      {std::nullopt, inc("-1e+300")},    {exc("0"), std::nullopt},     {inc("1.7976931348623157e+308"), std::nullopt},
      {inc("5e-324"), inc("1e-320")},    {exc("0"), inc("1e-310")},    {inc("0.1"), inc("0.30000000000000004")},
      {exc("-1e-5"), exc("1e-5")},       {inc("123.456"), inc("123.457")},
  };
}

// Every string up to length 6 over digits 0 1 5 9, '.', 'e', '-', '+' (262144 strings of length 6;
// 'E' is spelled by the random texts below).
TEST(BoundedNumber, EveryShortTextIsAcceptedIffTheExactOracleAcceptsIt) {
  static const std::string kAlphabet = "0159.e-+";
  for (const Range& r : ranges()) {
    SCOPED_TRACE(r.name());
    const auto a = number_automaton(spec_of(r));
    const OracleRange o(r);
    size_t accepted = 0, mismatches = 0;
    std::string text;
    // Depth-first over all texts, carrying the automaton state.
    std::vector<int64_t> states{a ? static_cast<int64_t>(a->start) : -1};
    auto visit = [&](auto&& self) -> void {
      const int64_t s = states.back();
      const bool got = s >= 0 && a->accepting[s];
      const bool want = oracle(o, text);
      accepted += want;
      if (got != want && ++mismatches <= 5) ADD_FAILURE() << "text '" << text << "': automaton " << got << ", oracle " << want;
      if (text.size() == 6) return;
      for (char c : kAlphabet) {
        text.push_back(c);
        states.push_back(a ? step(*a, s, static_cast<unsigned char>(c)) : -1);
        self(self);
        states.pop_back();
        text.pop_back();
      }
    };
    visit(visit);
    EXPECT_EQ(mismatches, 0u);
    // Not vacuous: ranges that hold short texts accept some (the tiny and huge ones hold few).
    if (r.name() == "[0.5, 1.5]") {
      EXPECT_GT(accepted, 400u);
    }
  }
}

// A random spelling of a value near a bound: its digits (perturbed), shifted between mantissa and
// exponent, with zeros, signs and exponent forms of every kind.
std::string random_text(std::mt19937_64& rng, const std::vector<Exact>& anchors) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  Exact v;
  if (!anchors.empty() && pick(4) != 0) {
    v = anchors[pick(static_cast<int>(anchors.size()))];
    if (v.zero()) v.m = "1", v.x = -pick(400);
    // Perturb: change, append or drop digits.
    switch (pick(5)) {
      case 0: v.m[pick(static_cast<int>(v.m.size()))] = static_cast<char>('0' + pick(10)); break;
      case 1: v.m += std::to_string(pick(10)), --v.x; break;
      case 2: if (v.m.size() > 1) v.m.pop_back(), ++v.x; break;
      case 3: for (int k = pick(20); k > 0; --k) v.m += static_cast<char>('0' + pick(10)), --v.x; break;
      default: break;
    }
    if (pick(8) == 0) v.negative = !v.negative;
    v.m = strip_leading_zeros(v.m);
    if (v.m.empty()) v.m = "1";
  } else {
    for (int k = 1 + pick(18); k > 0; --k) v.m += static_cast<char>('0' + pick(10));
    v.m = strip_leading_zeros(v.m);
    if (v.m.empty()) v.m = "0";
    v.x = pick(700) - 350;
    v.negative = pick(2);
  }
  // Spell m·10^x as I.F e E with a chosen mantissa position.
  const long order = static_cast<long>(v.m.size()) + v.x;
  const bool use_exp = pick(3) != 0 || order > 17 || order < -330;
  std::string text = v.negative ? "-" : "";
  long e = 0;
  std::string digits = v.m;
  long point;  // digits before the point in the mantissa (may be <= 0: zeros after "0.")
  if (use_exp) {
    point = static_cast<long>(pick(36)) - 18;
    e = order - point;
  } else {
    point = order;
  }
  if (point <= 0) {
    text += "0";
    std::string frac = std::string(static_cast<size_t>(-point), '0') + digits;
    for (int k = pick(3) == 0 ? pick(4) : 0; k > 0; --k) frac += '0';
    text += "." + frac;
  } else {
    std::string ip = digits.substr(0, std::min<size_t>(digits.size(), static_cast<size_t>(point)));
    ip.resize(static_cast<size_t>(point), '0');
    std::string frac = digits.size() > static_cast<size_t>(point) ? digits.substr(static_cast<size_t>(point)) : "";
    for (int k = pick(3) == 0 ? pick(4) : 0; k > 0; --k) frac += '0';
    text += ip;
    if (!frac.empty()) text += "." + frac;
  }
  if (use_exp) {
    text += pick(2) ? "e" : "E";
    if (e < 0) text += "-";
    else if (pick(2)) text += "+";
    for (int k = pick(4) == 0 ? 1 + pick(3) : 0; k > 0; --k) text += '0';
    text += std::to_string(std::labs(e));
  }
  return text;
}

TEST(BoundedNumber, RandomSpellingsNearTheBoundsAgreeWithTheExactOracle) {
  std::mt19937_64 rng(20261201);
  for (const Range& r : ranges()) {
    SCOPED_TRACE(r.name());
    const auto a = number_automaton(spec_of(r));
    const OracleRange o(r);
    // Empty within the family: above the implicit 1e308, or below the floor of exclusive bounds.
    EXPECT_EQ(a == nullptr, r.name() == "[1.7976931348623157e+308, +inf)" || r.name() == "(0, 1e-310]");
    std::vector<Exact> anchors;
    for (const auto& b : {r.lower, r.upper})
      if (b) anchors.push_back(exact(b->literal));
    anchors.push_back(exact("1e-307"));
    anchors.push_back(exact("1e308"));
    size_t accepted = 0, rejected = 0, mismatches = 0;
    for (int i = 0; i < 6000; ++i) {
      const std::string t = random_text(rng, anchors);
      const bool want = oracle(o, t), got = automaton_accepts(a.get(), t);
      (want ? accepted : rejected)++;
      if (got != want && ++mismatches <= 5) ADD_FAILURE() << "text '" << t << "': automaton " << got << ", oracle " << want;
    }
    EXPECT_EQ(mismatches, 0u);
    EXPECT_GT(rejected, 50u);
    if (a && r.name() != "[0, 0]") {
      EXPECT_GT(accepted, 50u);
    }
  }
}

TEST(BoundedNumber, TheIssueExamplesAreAccepted) {
  const auto a = number_automaton(spec_of({inc("0.5"), inc("1.5")}));
  for (const char* t : {"1e0", "10e-1", "1", "1.0", "0.1e1", "100E-2", "1.5e0", "5e-1", "0.0005e3", "1000e-3"})
    EXPECT_TRUE(automaton_accepts(a.get(), t)) << t;
  for (const char* t : {"1e1", "1.6e0", "0.4e0", "-1e0", "1e", "1e+", "01e0", "1.e0", ".1e1",
                        // outside the family: 5 integer digits or 4 zeros after "0." before an exponent
                        "10000e-4", "0.00005e4"})
    EXPECT_FALSE(automaton_accepts(a.get(), t)) << t;
}

// The binary64 argument of number_automaton.h: every accepted text parses (strtod, round to
// nearest) to a finite double within the schema's bounds.
TEST(BoundedNumber, AcceptedTextsParseToDoublesWithinTheBounds) {
  std::mt19937_64 rng(7);
  for (const Range& r : ranges()) {
    SCOPED_TRACE(r.name());
    const NumberSpec spec = spec_of(r);
    const auto a = number_automaton(spec);
    std::vector<Exact> anchors;
    for (const auto& b : {r.lower, r.upper})
      if (b) anchors.push_back(exact(b->literal));
    for (int i = 0; i < 6000; ++i) {
      const std::string t = random_text(rng, anchors);
      if (!automaton_accepts(a.get(), t)) continue;
      const double d = std::strtod(t.c_str(), nullptr);
      ASSERT_TRUE(std::isfinite(d)) << t;
      if (spec.lower) {
        EXPECT_TRUE(spec.lower->exclusive ? d > spec.lower->value : d >= spec.lower->value) << t;
      }
      if (spec.upper) {
        EXPECT_TRUE(spec.upper->exclusive ? d < spec.upper->value : d <= spec.upper->value) << t;
      }
    }
  }
}

}  // namespace
}  // namespace ninfer::text

namespace ninfer::text {
namespace {

// Exponent spellings multiply the automaton by the mantissa positions that may precede an
// exponent; the family keeps that small. Sizes (minimised states) are printed for docs/json-schema.md.
TEST(BoundedNumber, AutomataStaySmallForTypicalBounds) {
  struct Case {
    Range range;
    uint32_t max_states;
  };
  const std::vector<Case> cases = {
      {{inc("0"), inc("1")}, 120},
      {{exc("0"), exc("1")}, 300},
      {{inc("-1000000"), inc("1000000")}, 120},
      {{inc("0.5"), inc("1.5")}, 120},
      {{exc("0.5"), exc("1.5")}, 400},
      {{inc("0"), std::nullopt}, 80},
      {{exc("0"), std::nullopt}, 150},
      {{inc("-1.5"), inc("2.25")}, 150},
      {{inc("-1e+300"), inc("1e+300")}, 200},
      {{inc("1e-300"), inc("1e-290")}, 700},
      {{exc("1e-300"), exc("1e-290")}, 1000},
  };
  for (const auto& c : cases) {
    const auto a = number_automaton(spec_of(c.range));
    ASSERT_TRUE(a) << c.range.name();
    size_t edges = 0;
    for (const auto& e : a->edges) edges += e.size();
    std::printf("[ bounded number ] %-28s states %4u edges %5zu\n", c.range.name().c_str(), a->num_states(), edges);
    EXPECT_LE(a->num_states(), c.max_states) << c.range.name();
  }
}

}  // namespace
}  // namespace ninfer::text
