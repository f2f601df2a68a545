#include "oracle_recognizer.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace ninfer::grammar::oracle {

namespace {

// A set of input positions 0..127.
struct PosSet {
  uint64_t w[2] = {0, 0};

  void add(size_t p) { w[p >> 6] |= uint64_t{1} << (p & 63); }
  bool has(size_t p) const { return (w[p >> 6] >> (p & 63)) & 1u; }
  bool empty() const { return (w[0] | w[1]) == 0; }
  PosSet& operator|=(const PosSet& o) {
    w[0] |= o.w[0];
    w[1] |= o.w[1];
    return *this;
  }
  bool operator==(const PosSet& o) const { return w[0] == o.w[0] && w[1] == o.w[1]; }
  template <class F>
  void for_each(F&& f) const {
    for (size_t k = 0; k < 2; ++k) {
      uint64_t x = w[k];
      while (x) {
        f(k * 64 + static_cast<size_t>(std::countr_zero(x)));
        x &= x - 1;
      }
    }
  }
};

struct Value {
  PosSet ends;           // j such that s[i, j) is in the expression's language
  bool partial = false;  // s[i, n) is a prefix of a string of the expression's language
};

constexpr uint32_t kMinForLength[5] = {0, 0, 0x80, 0x800, 0x10000};

int lead_length(unsigned char b) {
  if (b < 0x80) return 1;
  if (b >= 0xC0 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) return 3;
  if (b >= 0xF0 && b <= 0xF7) return 4;
  return 0;
}

uint32_t lead_payload(unsigned char b, int len) {
  switch (len) {
    case 1: return b;
    case 2: return b & 0x1Fu;
    case 3: return b & 0x0Fu;
    default: return b & 0x07u;
  }
}

bool is_surrogate(uint32_t cp) { return cp >= 0xD800 && cp <= 0xDFFF; }

bool in_ranges(const std::vector<CodepointRange>& ranges, uint32_t v) {
  for (const auto& r : ranges)
    if (r.lo <= v && v <= r.hi) return true;
  return false;
}

// Some scalar value (not a surrogate) of [lo, hi] lies in `ranges`.
bool ranges_meet_scalars(const std::vector<CodepointRange>& ranges, uint32_t lo, uint32_t hi) {
  for (const auto& r : ranges) {
    const uint32_t a = std::max(r.lo, lo), b = std::min(r.hi, hi);
    if (a > b) continue;
    if (a < 0xD800 || b > 0xDFFF) return true;
  }
  return false;
}

// `t` is non-empty and shorter than the sequence its lead byte announces: can it still become
// the encoding of a member of `ranges`?
bool truncated_char_viable(const std::vector<CodepointRange>& ranges, std::string_view t) {
  const auto b0 = static_cast<unsigned char>(t[0]);
  const int len = lead_length(b0);
  if (len == 0 || static_cast<int>(t.size()) >= len) return false;
  uint32_t lo = lead_payload(b0, len), hi = lo;
  for (int k = 1; k < len; ++k) {
    unsigned char blo = 0x80, bhi = 0xBF;
    if (k < static_cast<int>(t.size())) {
      const auto c = static_cast<unsigned char>(t[k]);
      if ((c & 0xC0) != 0x80) return false;
      blo = bhi = c;
    }
    lo = (lo << 6) | (blo & 0x3Fu);
    hi = (hi << 6) | (bhi & 0x3Fu);
  }
  lo = std::max(lo, kMinForLength[len]);
  hi = std::min(hi, kMaxCodepoint);
  if (lo > hi) return false;
  return ranges_meet_scalars(ranges, lo, hi);
}

}  // namespace

int decode_utf8(std::string_view s, uint32_t& cp) {
  if (s.empty()) return 0;
  const auto b0 = static_cast<unsigned char>(s[0]);
  const int len = lead_length(b0);
  if (len == 0 || static_cast<int>(s.size()) < len) return 0;
  uint32_t v = lead_payload(b0, len);
  for (int k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[k]);
    if ((c & 0xC0) != 0x80) return 0;
    v = (v << 6) | (c & 0x3Fu);
  }
  if (v < kMinForLength[len] || v > kMaxCodepoint || is_surrogate(v)) return 0;
  cp = v;
  return len;
}

// One evaluation of the grammar over one input.
class Run {
 public:
  Run(const Oracle& o, std::string_view s)
      : o_(o), g_(o.g_), s_(s), n_(s.size()), memo_(g_.rules.size() * (s.size() + 1)) {}

  Value solve() {
    Value v;
    do {
      ++iter_;
      changed_ = false;
      v = rule(g_.root, 0);
    } while (changed_);
    return v;
  }

 private:
  struct Entry {
    PosSet ends;
    bool partial = false;
    uint32_t iter = 0;  // evaluation round that last visited the entry
  };

  const Oracle& o_;
  const Grammar& g_;
  std::string_view s_;
  size_t n_;
  std::vector<Entry> memo_;
  uint32_t iter_ = 0;
  bool changed_ = false;

  Value rule(int32_t r, size_t i) {
    Entry& m = memo_[static_cast<size_t>(r) * (n_ + 1) + i];
    if (m.iter == iter_) return {m.ends, m.partial};  // in progress or done this round
    m.iter = iter_;
    const Value v = expr(g_.rules[r].body, i);
    Entry& e = memo_[static_cast<size_t>(r) * (n_ + 1) + i];
    PosSet ends = e.ends;
    ends |= v.ends;
    const bool partial = e.partial || v.partial;
    if (!(ends == e.ends) || partial != e.partial) {
      e.ends = ends;
      e.partial = partial;
      changed_ = true;
    }
    return {e.ends, e.partial};
  }

  Value expr(int32_t id, size_t i) {
    const Expr& e = g_.exprs[id];
    const size_t rem = n_ - i;
    Value out;
    switch (e.kind) {
      case ExprKind::Empty:
        out.ends.add(i);
        out.partial = rem == 0;
        return out;
      case ExprKind::Literal: {
        const std::string& lit = e.literal;
        if (lit.empty()) {
          out.ends.add(i);
          out.partial = rem == 0;
          return out;
        }
        if (rem >= lit.size()) {
          if (s_.compare(i, lit.size(), lit) == 0) {
            out.ends.add(i + lit.size());
            out.partial = rem == lit.size();
          }
        } else {
          out.partial = s_.compare(i, rem, lit, 0, rem) == 0;
        }
        return out;
      }
      case ExprKind::CharClass: {
        if (rem == 0) {
          out.partial = o_.expr_productive(id);
          return out;
        }
        uint32_t cp = 0;
        const int len = decode_utf8(s_.substr(i), cp);
        if (len > 0) {
          if (in_ranges(e.ranges, cp)) {
            out.ends.add(i + static_cast<size_t>(len));
            out.partial = rem == static_cast<size_t>(len);
          }
        } else {
          out.partial = truncated_char_viable(e.ranges, s_.substr(i));
        }
        return out;
      }
      case ExprKind::ByteClass: {
        if (rem == 0) {
          out.partial = !e.ranges.empty();
          return out;
        }
        if (in_ranges(e.ranges, static_cast<unsigned char>(s_[i]))) {
          out.ends.add(i + 1);
          out.partial = rem == 1;
        }
        return out;
      }
      case ExprKind::RuleRef:
        return rule(e.rule, i);
      case ExprKind::Sequence: {
        const auto& rest = o_.rest_productive_[id];
        PosSet cur;
        cur.add(i);
        for (size_t k = 0; k < e.children.size() && !cur.empty(); ++k) {
          PosSet next;
          cur.for_each([&](size_t p) {
            const Value v = expr(e.children[k], p);
            next |= v.ends;
            if (v.partial && rest[k]) out.partial = true;
          });
          cur = next;
        }
        out.ends = cur;
        return out;
      }
      case ExprKind::Choice:
        for (int32_t c : e.children) {
          const Value v = expr(c, i);
          out.ends |= v.ends;
          out.partial = out.partial || v.partial;
        }
        return out;
      case ExprKind::Repeat: {
        // P_k = ends of exactly k copies. For a nullable child P_k grows monotonically; otherwise
        // its least element strictly increases: either way the loop ends within n + 2 rounds.
        PosSet p;
        p.add(i);
        for (uint64_t k = 0;; ++k) {
          if (k >= e.min) out.ends |= p;
          if (k == e.max || p.empty()) break;
          PosSet next;
          p.for_each([&](size_t q) {
            const Value v = expr(e.children[0], q);
            next |= v.ends;
            out.partial = out.partial || v.partial;
          });
          if (next == p) {
            out.ends |= p;  // P_k is constant from here on and some k' in [min, max] lies ahead
            break;
          }
          p = next;
        }
        if (out.ends.has(n_)) out.partial = true;
        return out;
      }
      case ExprKind::Automaton: {
        // Plain NFA simulation over the bytes from i; states that cannot reach an accepting
        // state do not make a viable prefix.
        const auto& live = o_.automaton_live_[id];
        if (!e.automaton || e.automaton->start >= e.automaton->num_states()) return out;
        const ByteAutomaton& au = *e.automaton;
        std::vector<uint8_t> cur(au.num_states(), 0), next(au.num_states(), 0);
        cur[au.start] = 1;
        for (size_t j = i;; ++j) {
          bool any = false, accepting = false, alive = false;
          for (uint32_t st = 0; st < au.num_states(); ++st) {
            if (!cur[st]) continue;
            any = true;
            accepting = accepting || au.accepting[st];
            alive = alive || live[st];
          }
          if (!any) break;
          if (accepting) out.ends.add(j);
          if (j == n_) {
            out.partial = alive;
            break;
          }
          std::fill(next.begin(), next.end(), 0);
          const auto byte = static_cast<unsigned char>(s_[j]);
          for (uint32_t st = 0; st < au.num_states(); ++st) {
            if (!cur[st]) continue;
            for (const auto& ed : au.edges[st])
              if (ed.lo <= byte && byte <= ed.hi && ed.target < au.num_states()) next[ed.target] = 1;
          }
          cur.swap(next);
        }
        return out;
      }
      case ExprKind::TokenSet:
        throw std::invalid_argument("oracle: token-set expressions are not supported");
      case ExprKind::Members:  // produced by the JSON Schema compiler only, never by GBNF
        throw std::invalid_argument("oracle: members expressions are not supported");
    }
    return out;
  }
};

Oracle::Oracle(const Grammar& g) : g_(g) {
  const size_t nr = g.rules.size(), ne = g.exprs.size();
  rule_productive_.assign(nr, 0);
  // Productivity of one expression given the current rule estimates (expression trees are small
  // in the tests; recursion over the tree is fine here).
  auto prod = [&](auto&& self, int32_t id) -> bool {
    const Expr& e = g.exprs[id];
    switch (e.kind) {
      case ExprKind::Empty:
      case ExprKind::Literal:
      case ExprKind::TokenSet:
        return true;
      case ExprKind::CharClass:
        return ranges_meet_scalars(e.ranges, 0, kMaxCodepoint);
      case ExprKind::ByteClass:
        for (const auto& r : e.ranges)
          if (r.lo <= r.hi && r.lo <= 255) return true;
        return false;
      case ExprKind::RuleRef:
        return rule_productive_[e.rule] != 0;
      case ExprKind::Sequence:
        for (int32_t c : e.children)
          if (!self(self, c)) return false;
        return true;
      case ExprKind::Choice:
        for (int32_t c : e.children)
          if (self(self, c)) return true;
        return false;
      case ExprKind::Repeat:
        return e.min == 0 || self(self, e.children[0]);
      case ExprKind::Automaton:
        return e.automaton && e.automaton->start < e.automaton->num_states() &&
               automaton_live_[id][e.automaton->start] != 0;
      case ExprKind::Members:
        return false;  // not supported by the oracle (see expr())
    }
    return false;
  };
  // Automaton states that can reach an accepting state (backward fixpoint).
  automaton_live_.assign(ne, {});
  for (size_t id = 0; id < ne; ++id) {
    const Expr& e = g.exprs[id];
    if (e.kind != ExprKind::Automaton || !e.automaton) continue;
    const ByteAutomaton& au = *e.automaton;
    auto& live = automaton_live_[id];
    live.assign(au.num_states(), 0);
    for (uint32_t st = 0; st < au.num_states(); ++st) live[st] = au.accepting[st] != 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t st = 0; st < au.num_states(); ++st) {
        if (live[st]) continue;
        for (const auto& ed : au.edges[st]) {
          if (ed.lo <= ed.hi && ed.target < au.num_states() && live[ed.target]) {
            live[st] = 1;
            changed = true;
            break;
          }
        }
      }
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < nr; ++r) {
      if (!rule_productive_[r] && g.rules[r].body >= 0 && prod(prod, g.rules[r].body)) {
        rule_productive_[r] = 1;
        changed = true;
      }
    }
  }
  expr_productive_.assign(ne, 0);
  rest_productive_.assign(ne, {});
  for (size_t id = 0; id < ne; ++id) {
    expr_productive_[id] = prod(prod, static_cast<int32_t>(id));
    const Expr& e = g.exprs[id];
    if (e.kind == ExprKind::Sequence) {
      auto& rest = rest_productive_[id];
      rest.assign(e.children.size(), 1);
      for (size_t k = e.children.size(); k-- > 1;) rest[k - 1] = rest[k] && prod(prod, e.children[k]);
    }
  }
}

bool Oracle::root_productive() const { return g_.root >= 0 && rule_productive_[g_.root] != 0; }

Oracle::Verdict Oracle::check(std::string_view s) const {
  if (s.size() > kMaxInput) throw std::invalid_argument("oracle: input too long");
  if (g_.root < 0) throw std::invalid_argument("oracle: grammar without root");
  Run run(*this, s);
  const Value v = run.solve();
  Verdict out;
  out.complete = v.ends.has(s.size());
  out.viable = v.partial;
  return out;
}

bool Oracle::supported(const Grammar& g) {
  if (g.root < 0) return false;
  std::vector<uint8_t> seen_rule(g.rules.size(), 0);
  std::vector<int32_t> exprs;
  std::vector<int32_t> rules{g.root};
  seen_rule[g.root] = 1;
  while (!rules.empty()) {
    const int32_t r = rules.back();
    rules.pop_back();
    exprs.push_back(g.rules[r].body);
    while (!exprs.empty()) {
      const Expr& e = g.exprs[exprs.back()];
      exprs.pop_back();
      if (e.kind == ExprKind::TokenSet) return false;
      if (e.kind == ExprKind::RuleRef && !seen_rule[e.rule]) {
        seen_rule[e.rule] = 1;
        rules.push_back(e.rule);
      }
      exprs.insert(exprs.end(), e.children.begin(), e.children.end());
    }
  }
  return true;
}

}  // namespace ninfer::grammar::oracle
