#include "grammar/rule_nfa.h"

#include "grammar/rule_outlining.h"

#include <algorithm>

#include "grammar/utf8_ranges.h"

namespace ninfer::grammar {
namespace {

// Iterative Tarjan over the rule call graph: a rule is recursive when its SCC has several rules
// or it calls itself.
std::vector<uint8_t> recursive_rules(const Grammar& g, const std::vector<std::vector<int32_t>>& callees) {
  const int32_t n = static_cast<int32_t>(g.rules.size());
  std::vector<int32_t> index(n, -1), low(n, 0), scc_size_of(n, 0), scc_id(n, -1);
  std::vector<uint8_t> on_stack(n, 0), recursive(n, 0);
  std::vector<int32_t> stack;
  int32_t counter = 0, scc_count = 0;
  struct Frame {
    int32_t v;
    size_t next;
  };
  for (int32_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    std::vector<Frame> frames{{root, 0}};
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.next < callees[f.v].size()) {
        int32_t w = callees[f.v][f.next++];
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          frames.push_back({w, 0});
        } else if (on_stack[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        }
        continue;
      }
      int32_t v = f.v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().v] = std::min(low[frames.back().v], low[v]);
      if (low[v] == index[v]) {
        std::vector<int32_t> members;
        int32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          scc_id[w] = scc_count;
          members.push_back(w);
        } while (w != v);
        ++scc_count;
        bool rec = members.size() > 1 ||
                   std::find(callees[v].begin(), callees[v].end(), v) != callees[v].end();
        for (int32_t m : members) recursive[m] = rec;
      }
    }
  }
  return recursive;
}

uint64_t sat_add(uint64_t a, uint64_t b) { return std::min<uint64_t>(a + b, 1ull << 40); }
uint64_t sat_mul(uint64_t a, uint64_t b) { return (a && b > (1ull << 40) / a) ? (1ull << 40) : std::min<uint64_t>(a * b, 1ull << 40); }

constexpr int kMaxFragmentDepth = 3000;
constexpr uint64_t kSharedInlineBudget = 200;  // extra NFA states allowed for copies of a shared rule
constexpr int kMaxInlineDepth = 500;

class NfaBuilder {
 public:
  NfaBuilder(const Grammar& g, const std::vector<uint8_t>& inlined, uint32_t max_states, OriginTree* origins)
      : g_(g), inlined_(inlined), max_states_(max_states), origins_(origins) {}

  RuleNfa build(int32_t rule) {
    RuleNfa nfa;
    nfa_ = &nfa;
    if (origins_) origin_ = origins_->enter(kNoOrigin, rule);
    auto [s, e] = fragment(g_.rules[rule].body, 0);
    nfa.start = s;
    nfa.accept = e;
    return nfa;
  }

 private:
  const Grammar& g_;
  const std::vector<uint8_t>& inlined_;
  uint32_t max_states_;
  RuleNfa* nfa_ = nullptr;
  OriginTree* origins_;
  uint32_t origin_ = kNoOrigin;  // labelled rule being expanded

  uint32_t new_state() {
    if (nfa_->states.size() >= max_states_)
      throw GrammarError(GrammarErrorKind::TooLarge,
                         "grammar rule expands past " + std::to_string(max_states_) + " automaton states")
          .with_limit("automaton.max_nfa_states", max_states_);
    nfa_->states.emplace_back().origin = origin_;
    return static_cast<uint32_t>(nfa_->states.size() - 1);
  }
  void eps(uint32_t a, uint32_t b) { nfa_->states[a].eps.push_back(b); }

  std::pair<uint32_t, uint32_t> fragment(int32_t id, int depth) {
    // Native recursion follows the expression nesting: bounded well inside any thread's stack.
    if (depth > kMaxFragmentDepth)
      throw GrammarError(GrammarErrorKind::TooDeep, "grammar nests too deeply to compile")
          .with_limit("automaton.max_expression_depth", kMaxFragmentDepth);
    const Expr& e = g_.exprs[id];
    switch (e.kind) {
      case ExprKind::Empty: {
        uint32_t s = new_state();
        return {s, s};
      }
      case ExprKind::Literal: {
        uint32_t s = new_state(), cur = s;
        for (unsigned char c : e.literal) {
          uint32_t n = new_state();
          nfa_->states[cur].bytes.push_back({c, c, n});
          cur = n;
        }
        return {s, cur};
      }
      case ExprKind::ByteClass: {
        uint32_t s = new_state(), t = new_state();
        for (auto r : e.ranges)
          nfa_->states[s].bytes.push_back({static_cast<uint8_t>(r.lo), static_cast<uint8_t>(std::min<uint32_t>(r.hi, 255)), t});
        return {s, t};
      }
      case ExprKind::CharClass: {
        uint32_t s = new_state(), t = new_state();
        std::vector<std::vector<ByteRange>> seqs;
        for (auto r : e.ranges) utf8_sequences(r.lo, r.hi, seqs);
        // Share the continuation tail states by suffix length: after the lead byte, the remaining
        // ranges of different sequences differ, so each sequence gets its own short chain.
        for (const auto& seq : seqs) {
          uint32_t cur = s;
          for (size_t i = 0; i < seq.size(); ++i) {
            uint32_t n = i + 1 == seq.size() ? t : new_state();
            nfa_->states[cur].bytes.push_back({seq[i].lo, seq[i].hi, n});
            cur = n;
          }
        }
        return {s, t};
      }
      case ExprKind::RuleRef: {
        // Inlining deepens the expression; past kMaxInlineDepth a reference stays a call.
        if (inlined_[e.rule] && depth < kMaxInlineDepth) {
          const uint32_t outer = origin_;
          if (origins_) origin_ = origins_->enter(outer, e.rule, g_.place_of(id));
          auto f = fragment(g_.rules[e.rule].body, depth + 1);
          origin_ = outer;
          return f;
        }
        uint32_t s = new_state(), t = new_state();
        nfa_->states[s].calls.emplace_back(e.rule, t);
        return {s, t};
      }
      case ExprKind::TokenSet: {
        uint32_t s = new_state(), t = new_state();
        nfa_->states[s].tokens.emplace_back(id, t);
        return {s, t};
      }
      case ExprKind::Automaton: {
        const ByteAutomaton& au = *e.automaton;
        const uint32_t base = static_cast<uint32_t>(nfa_->states.size());
        for (uint32_t i = 0; i < au.num_states(); ++i) new_state();
        uint32_t t = new_state();
        for (uint32_t i = 0; i < au.num_states(); ++i) {
          for (const auto& ed : au.edges[i]) nfa_->states[base + i].bytes.push_back({ed.lo, ed.hi, base + ed.target});
          if (au.accepting[i]) eps(base + i, t);
        }
        return {base + au.start, t};
      }
      case ExprKind::Sequence: {
        uint32_t s = new_state(), cur = s;
        for (int32_t c : e.children) {
          auto [cs, ce] = fragment(c, depth + 1);
          eps(cur, cs);
          cur = ce;
        }
        return {s, cur};
      }
      case ExprKind::Choice: {
        uint32_t s = new_state(), t = new_state();
        for (int32_t c : e.children) {
          auto [cs, ce] = fragment(c, depth + 1);
          eps(s, cs);
          eps(ce, t);
        }
        return {s, t};
      }
      case ExprKind::Repeat: {
        uint32_t s = new_state(), cur = s;
        for (uint32_t i = 0; i < e.min; ++i) {
          auto [cs, ce] = fragment(e.children[0], depth + 1);
          eps(cur, cs);
          cur = ce;
        }
        uint32_t t = new_state();
        if (e.max == kUnbounded) {
          uint32_t loop = new_state();
          eps(cur, loop);
          auto [cs, ce] = fragment(e.children[0], depth + 1);
          eps(loop, cs);
          eps(ce, loop);
          eps(loop, t);
        } else {
          for (uint32_t i = e.min; i < e.max; ++i) {
            eps(cur, t);
            auto [cs, ce] = fragment(e.children[0], depth + 1);
            eps(cur, cs);
            cur = ce;
          }
          eps(cur, t);
        }
        return {s, t};
      }
      case ExprKind::Members: {
        // before[i] / after[i]: at member i with no member / some member emitted so far.
        const size_t n = e.children.size() - 2;
        std::vector<uint32_t> before(n + 1), after(n + 1);
        for (size_t i = 0; i <= n; ++i) before[i] = new_state(), after[i] = new_state();
        for (size_t i = 0; i < n; ++i) {
          const uint8_t flags = e.member_flags[i];
          auto [ms, me] = fragment(e.children[i + 2], depth + 1);
          auto [ss, se] = fragment(e.children[0], depth + 1);
          eps(before[i], ms);
          eps(after[i], ss);
          eps(se, ms);
          eps(me, (flags & kMemberRepeats) ? after[i] : after[i + 1]);
          if (!(flags & kMemberRequired)) eps(before[i], before[i + 1]), eps(after[i], after[i + 1]);
        }
        uint32_t t = new_state();
        auto [es, ee] = fragment(e.children[1], depth + 1);
        eps(before[n], t);
        eps(after[n], es);
        eps(ee, t);
        return {before[0], t};
      }
    }
    throw GrammarError(GrammarErrorKind::Syntax, "unknown expression kind");
  }
};

}  // namespace

std::vector<uint8_t> choose_inlined_rules(const Grammar& g, uint32_t inline_max_states) {
  const size_t n = g.rules.size();
  // Direct callees of each rule, collected iteratively from its body expression.
  std::vector<std::vector<int32_t>> callees(n);
  std::vector<int32_t> stack;
  for (size_t r = 0; r < n; ++r) {
    stack.assign(1, g.rules[r].body);
    while (!stack.empty()) {
      int32_t id = stack.back();
      stack.pop_back();
      const Expr& e = g.exprs[id];
      if (e.kind == ExprKind::RuleRef) callees[r].push_back(e.rule);
      for (int32_t c : e.children) stack.push_back(c);
    }
    std::sort(callees[r].begin(), callees[r].end());
    callees[r].erase(std::unique(callees[r].begin(), callees[r].end()), callees[r].end());
  }
  std::vector<uint8_t> recursive = recursive_rules(g, callees);
  // Reference counts weighted by the copies the NFA builder makes: a reference inside `x{40,80}`
  // counts 80 times, so a large repeated body stays one shared rule.
  std::vector<uint64_t> refs(n, 0);
  for (size_t r = 0; r < n; ++r) {
    std::vector<std::pair<int32_t, uint64_t>> st{{g.rules[r].body, 1}};
    while (!st.empty()) {
      auto [id, mult] = st.back();
      st.pop_back();
      const Expr& e = g.exprs[id];
      if (e.kind == ExprKind::RuleRef && e.rule >= 0) refs[e.rule] = sat_add(refs[e.rule], mult);
      const uint64_t m = e.kind == ExprKind::Repeat ? sat_mul(mult, std::max<uint64_t>(repeat_copies(e), 1)) : mult;
      for (int32_t c : e.children) st.push_back({c, m});
    }
  }

  // Estimated NFA size of each rule with its inlinable callees expanded; computed in an order
  // where callees come first (non-recursive rules form a DAG).
  std::vector<uint64_t> expr_size(g.exprs.size(), 0);
  std::vector<uint64_t> rule_size(n, 0);
  std::vector<uint8_t> inlined(n, 0), done(n, 0);
  // Post-order over the callee DAG restricted to non-recursive rules.
  std::vector<std::pair<int32_t, size_t>> frames;
  auto size_of_body = [&](int32_t rule) {
    // Post-order over the expression tree.
    std::vector<std::pair<int32_t, bool>> st{{g.rules[rule].body, false}};
    while (!st.empty()) {
      auto [id, visited] = st.back();
      st.pop_back();
      const Expr& e = g.exprs[id];
      if (!visited) {
        st.push_back({id, true});
        for (int32_t c : e.children) st.push_back({c, false});
        continue;
      }
      uint64_t s = 0;
      switch (e.kind) {
        case ExprKind::Empty: s = 1; break;
        case ExprKind::Literal: s = e.literal.size() + 1; break;
        case ExprKind::CharClass: s = 2 + 3 * e.ranges.size(); break;
        case ExprKind::ByteClass: s = 2; break;
        case ExprKind::RuleRef: s = inlined[e.rule] ? rule_size[e.rule] : 2; break;
        case ExprKind::TokenSet: s = 2; break;
        case ExprKind::Automaton: s = e.automaton->num_states() + 1; break;
        case ExprKind::Sequence:
        case ExprKind::Choice:
          s = 2;
          for (int32_t c : e.children) s = sat_add(s, expr_size[c]);
          break;
        case ExprKind::Repeat: {
          uint64_t copies = e.max == kUnbounded ? uint64_t(e.min) + 1 : uint64_t(e.max);
          s = sat_add(3, sat_mul(std::max<uint64_t>(copies, 1), expr_size[e.children[0]]));
          break;
        }
        case ExprKind::Members:
          // Two states per position, each member once, a separator copy per member.
          s = sat_add(3 + 2 * e.children.size(), expr_size[e.children[1]]);
          for (size_t i = 2; i < e.children.size(); ++i)
            s = sat_add(s, sat_add(expr_size[e.children[i]], expr_size[e.children[0]]));
          break;
      }
      expr_size[id] = s;
    }
    return expr_size[g.rules[rule].body];
  };
  for (size_t r0 = 0; r0 < n; ++r0) {
    if (done[r0]) continue;
    frames.assign(1, {static_cast<int32_t>(r0), 0});
    while (!frames.empty()) {
      auto& [r, next] = frames.back();
      if (next < callees[r].size()) {
        int32_t c = callees[r][next++];
        if (!done[c] && !recursive[c]) frames.push_back({c, 0});
        continue;
      }
      int32_t rr = r;
      frames.pop_back();
      if (done[rr]) continue;
      done[rr] = 1;
      rule_size[rr] = size_of_body(rr);
      // Inlining copies the rule into every reference: a rule referenced many times is inlined
      // only while the copies stay small (chains of optional members would otherwise double
      // at every level until the size limit).
      const uint64_t copies = std::max<uint64_t>(refs[rr], 1);
      inlined[rr] = !recursive[rr] && rule_size[rr] <= inline_max_states &&
                    (copies == 1 || rule_size[rr] * (copies - 1) <= kSharedInlineBudget);
    }
  }
  return inlined;
}

RuleNfa build_rule_nfa(const Grammar& g, int32_t rule, const std::vector<uint8_t>& inlined, uint32_t max_states,
                       OriginTree* origins) {
  NfaBuilder b(g, inlined, max_states, origins);
  return b.build(rule);
}

}  // namespace ninfer::grammar
