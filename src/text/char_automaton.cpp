#include "text/char_automaton.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "text/char_nfa.h"
#include "text/regex_to_nfa.h"

namespace ninfer::text {
namespace {

RangeDfa empty_dfa() {
  RangeDfa d;
  d.add_state(false);
  return d;
}

void add_any_edges(RangeDfa& d, uint32_t from, uint32_t to) {
  for (const auto& r : any_scalar_set()) d.edges[from].push_back({r.lo, r.hi, to});
}

}  // namespace

CharAutomaton::CharAutomaton() : dfa_(empty_dfa()) {}

CharAutomaton CharAutomaton::from_regex(std::string_view pattern, RegexMode mode, const AutomatonBudget& budget) {
  const RegexAst ast = parse_regex(pattern, budget.max_length);
  const CharNfa nfa = regex_to_nfa(ast, mode, budget);
  return CharAutomaton(minimize(determinize(nfa, budget)));
}

CharAutomaton CharAutomaton::any_string() {
  RangeDfa d;
  d.add_state(true);
  add_any_edges(d, 0, 0);
  return CharAutomaton(minimize(d));
}

CharAutomaton CharAutomaton::length_between(uint32_t min, uint32_t max, const AutomatonBudget& budget) {
  const bool unbounded = max == grammar::kUnbounded;
  if (!unbounded && min > max) return CharAutomaton();
  if (min > budget.max_length || (!unbounded && max > budget.max_length))
    throw AutomatonBudgetExceeded("length bound above " + std::to_string(budget.max_length) + " characters", "text.max_length", budget.max_length);
  // A counter chain: state i = i characters read.
  const uint32_t last = unbounded ? min : max;
  RangeDfa d;
  for (uint32_t i = 0; i <= last; ++i) d.add_state(i >= min);
  for (uint32_t i = 0; i < last; ++i) add_any_edges(d, i, i + 1);
  if (unbounded) add_any_edges(d, last, last);
  return CharAutomaton(minimize(d));
}

CharAutomaton CharAutomaton::literal(std::u32string_view s) {
  RangeDfa d;
  d.add_state(s.empty());
  for (size_t i = 0; i < s.size(); ++i) {
    const uint32_t c = s[i];
    if (c > grammar::kMaxCodepoint || (c >= 0xD800 && c <= 0xDFFF)) return CharAutomaton();
    const uint32_t next = d.add_state(i + 1 == s.size());
    d.edges[next - 1].push_back({c, c, next});
  }
  return CharAutomaton(minimize(d));
}

CharAutomaton CharAutomaton::intersect(const CharAutomaton& other, const AutomatonBudget& budget) const {
  const RangeDfa& a = dfa_;
  const RangeDfa& b = other.dfa_;
  RangeDfa out;
  std::unordered_map<uint64_t, uint32_t> ids;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  auto state_for = [&](uint32_t x, uint32_t y) {
    const uint64_t key = (uint64_t(x) << 32) | y;
    auto [it, fresh] = ids.try_emplace(key, out.num_states());
    if (fresh) {
      out.add_state(a.accepting[x] && b.accepting[y]);
      pairs.emplace_back(x, y);
      if (out.num_states() > budget.max_states)
        throw AutomatonBudgetExceeded("intersection has more than " + std::to_string(budget.max_states) + " states", "text.max_states", budget.max_states);
    }
    return it->second;
  };
  out.start = state_for(a.start, b.start);
  for (uint32_t s = 0; s < out.num_states(); ++s) {
    const auto [x, y] = pairs[s];
    // Both edge lists are sorted and disjoint: a merge walk yields the overlaps in order.
    const auto& ea = a.edges[x];
    const auto& eb = b.edges[y];
    size_t i = 0, j = 0;
    while (i < ea.size() && j < eb.size()) {
      const uint32_t lo = std::max(ea[i].lo, eb[j].lo), hi = std::min(ea[i].hi, eb[j].hi);
      if (lo <= hi) {
        const uint32_t t = state_for(ea[i].target, eb[j].target);
        out.edges[s].push_back({lo, hi, t});
      }
      if (ea[i].hi < eb[j].hi) ++i;
      else ++j;
    }
  }
  return CharAutomaton(minimize(out));
}

CharAutomaton CharAutomaton::complement() const {
  // Complete the DFA with a rejecting sink over the whole scalar alphabet, then flip acceptance.
  RangeDfa d = dfa_;
  const uint32_t sink = d.add_state(false);
  add_any_edges(d, sink, sink);
  for (uint32_t s = 0; s < sink; ++s) {
    std::vector<RangeEdge> filled;
    const auto& edges = d.edges[s];  // sorted, disjoint
    for (const auto& r : any_scalar_set()) {
      uint32_t next = r.lo;
      for (const auto& e : edges) {
        if (e.hi < r.lo || e.lo > r.hi) continue;
        if (e.lo > next) filled.push_back({next, e.lo - 1, sink});
        next = e.hi + 1;
      }
      if (next <= r.hi) filled.push_back({next, r.hi, sink});
    }
    filled.insert(filled.end(), edges.begin(), edges.end());
    std::sort(filled.begin(), filled.end(), [](const RangeEdge& a, const RangeEdge& b) { return a.lo < b.lo; });
    d.edges[s] = std::move(filled);
  }
  for (auto& a : d.accepting) a = !a;
  return CharAutomaton(minimize(d));
}

CharAutomaton CharAutomaton::unite(const CharAutomaton& other, const AutomatonBudget& budget) const {
  return complement().intersect(other.complement(), budget).complement();
}

bool CharAutomaton::accepts(std::u32string_view s) const {
  uint32_t st = dfa_.start;
  for (char32_t ch : s) {
    const uint32_t c = static_cast<uint32_t>(ch);
    const auto& es = dfa_.edges[st];
    auto it = std::upper_bound(es.begin(), es.end(), c, [](uint32_t v, const RangeEdge& e) { return v < e.lo; });
    if (it == es.begin() || (--it)->hi < c) return false;
    st = it->target;
  }
  return dfa_.accepting[st] != 0;
}

std::u32string utf8_to_u32(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[len] || cp > grammar::kMaxCodepoint || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
    if (!ok) {
      out.push_back(static_cast<char32_t>(0xFFFFFFFFu));
      ++i;
      continue;
    }
    out.push_back(static_cast<char32_t>(cp));
    i += len;
  }
  return out;
}

}  // namespace ninfer::text
