#include "grammar/rule_outlining.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ninfer::grammar {

namespace {

constexpr uint32_t kSharedAutomatonMinStates = 32;  // smaller automata are cheaper inlined

uint64_t automaton_hash(const ByteAutomaton& a) {
  uint64_t h = 1469598103934665603ull ^ a.start;
  const auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (uint32_t s = 0; s < a.num_states(); ++s) {
    mix(a.accepting[s]);
    for (const auto& e : a.edges[s]) mix((uint64_t(e.lo) << 40) | (uint64_t(e.hi) << 32) | e.target);
    mix(0xFFFFFFFFFFull);
  }
  return h;
}

bool same_automaton(const ByteAutomaton& a, const ByteAutomaton& b) {
  if (&a == &b) return true;
  if (a.start != b.start || a.accepting != b.accepting || a.edges.size() != b.edges.size()) return false;
  for (size_t s = 0; s < a.edges.size(); ++s) {
    if (a.edges[s].size() != b.edges[s].size()) return false;
    for (size_t i = 0; i < a.edges[s].size(); ++i) {
      const auto &x = a.edges[s][i], &y = b.edges[s][i];
      if (x.lo != y.lo || x.hi != y.hi || x.target != y.target) return false;
    }
  }
  return true;
}

// Equal large automata (by content) become references to one rule per group.
void outline_equal_automata(Grammar& out) {
  std::unordered_map<uint64_t, std::vector<std::vector<int32_t>>> groups;  // hash -> groups of equal exprs
  const size_t n = out.exprs.size();
  for (size_t i = 0; i < n; ++i) {
    const Expr& e = out.exprs[i];
    if (e.kind != ExprKind::Automaton || e.keep_inline || e.automaton->num_states() < kSharedAutomatonMinStates) continue;
    auto& bucket = groups[automaton_hash(*e.automaton)];
    bool placed = false;
    for (auto& grp : bucket)
      if (same_automaton(*out.exprs[grp.front()].automaton, *e.automaton)) {
        grp.push_back(static_cast<int32_t>(i));
        placed = true;
        break;
      }
    if (!placed) bucket.push_back({static_cast<int32_t>(i)});
  }
  for (auto& [hash, bucket] : groups)
    for (auto& grp : bucket) {
      if (grp.size() < 2) continue;
      // The rule's body is a fresh copy of the automaton expression; every use becomes a reference.
      Expr body = out.exprs[grp.front()];
      Rule r;
      r.name = "<automaton#" + std::to_string(grp.front()) + ">";
      r.location = body.location;
      r.body = out.add(std::move(body));
      out.rules.push_back(std::move(r));
      const int32_t rule = static_cast<int32_t>(out.rules.size() - 1);
      for (int32_t id : grp) {
        Expr ref;
        ref.kind = ExprKind::RuleRef;
        ref.rule = rule;
        ref.location = out.exprs[id].location;
        out.exprs[id] = std::move(ref);
      }
    }
}

}  // namespace

Grammar outline_shared_fragments(const Grammar& g) {
  Grammar out = g;
  outline_equal_automata(out);
  const size_t n = out.exprs.size();  // new RuleRef expressions appended below are not revisited
  for (size_t i = 0; i < n; ++i) {
    if (out.exprs[i].kind != ExprKind::Repeat || repeat_copies(out.exprs[i]) < 2) continue;
    const int32_t body = out.exprs[i].children[0];
    const ExprKind k = out.exprs[body].kind;
    // Bodies that are one NFA edge gain nothing from a rule of their own.
    if (k == ExprKind::RuleRef || k == ExprKind::CharClass || k == ExprKind::ByteClass || k == ExprKind::TokenSet ||
        k == ExprKind::Empty || (k == ExprKind::Literal && out.exprs[body].literal.size() <= 2))
      continue;
    Rule r;
    r.name = "<repeat#" + std::to_string(i) + ">";
    r.body = body;
    r.location = out.exprs[i].location;
    out.rules.push_back(std::move(r));
    Expr ref;
    ref.kind = ExprKind::RuleRef;
    ref.rule = static_cast<int32_t>(out.rules.size() - 1);
    ref.location = out.exprs[i].location;
    out.exprs[i].children[0] = out.add(std::move(ref));
  }
  return out;
}

}  // namespace ninfer::grammar
