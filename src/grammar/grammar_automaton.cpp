// Subset construction of each rule's NFA into a DFA over byte classes, then the global analyses:
// productive rules (trimming), nullable rules, FIRST1/FOLLOW1 byte sets.
#include "grammar/grammar_automaton.h"

#include "grammar/rule_outlining.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "grammar/rule_nfa.h"

namespace ninfer::grammar {

size_t GrammarAutomaton::memory_bytes() const {
  size_t labels = 0;
  for (const auto& o : origins) {
    labels += o.what.capacity();
    for (const auto& p : o.pointers) labels += sizeof(std::string) + p.capacity();
  }
  return labels + state_rule.size() * 4 + accepting.size() + simple.size() + edge_begin.size() * 4 +
         edges.size() * sizeof(ByteEdge) + comb_base.size() * 4 + comb.size() * sizeof(CombSlot) + call_begin.size() * 4 +
         calls.size() * sizeof(CallEdge) + tok_begin.size() * 4 + toks.size() * sizeof(TokenEdge) +
         rule_start.size() * 4 + follow1.size() * 32 + rule_key_set.size() * 4 + key_member.size() * 4 +
         key_check.size() + key_sets.size() * sizeof(KeySetSpec) + state_origin.size() * 4 +
         origin_nodes.size() * sizeof(OriginNode) + origins.size() * sizeof(RuleOrigin);
}

namespace {


// Per-rule DFA before global numbering.
struct LocalDfa {
  std::vector<uint8_t> accepting;
  std::vector<uint32_t> edge_begin{0};  // CSR over edges, one entry per state added
  std::vector<ByteEdge> edges;          // (class, local target), ascending class per state
  std::vector<uint32_t> fallback;       // local state or kDeadState (see GrammarAutomaton::fallback)
  std::vector<std::vector<std::pair<int32_t, uint32_t>>> calls;   // (IR rule, local target)
  std::vector<std::vector<std::pair<int32_t, uint32_t>>> tokens;  // (IR token expr, local target)
  std::vector<uint32_t> origin;                                   // per state: OriginTree node
};

// Rewrites wide rows as differences from a looping state's row. Only states whose most frequent
// target is themselves serve as fallbacks, so fallbacks never chain.
void compress_rows(LocalDfa& dfa) {
  constexpr uint32_t kWide = 8;
  const uint32_t n = static_cast<uint32_t>(dfa.accepting.size());
  dfa.fallback.assign(n, kDeadState);
  auto width = [&](uint32_t s) { return dfa.edge_begin[s + 1] - dfa.edge_begin[s]; };
  std::vector<uint32_t> candidate(n, kDeadState);
  std::unordered_map<uint32_t, uint32_t> counts;
  bool any = false;
  for (uint32_t s = 0; s < n; ++s) {
    if (width(s) < kWide) continue;
    counts.clear();
    uint32_t best = kDeadState, best_count = 0;
    for (uint32_t i = dfa.edge_begin[s]; i < dfa.edge_begin[s + 1]; ++i)
      if (uint32_t c = ++counts[dfa.edges[i].target]; c > best_count) best_count = c, best = dfa.edges[i].target;
    candidate[s] = best;
  }
  for (uint32_t s = 0; s < n; ++s) {
    const uint32_t t = candidate[s];
    if (t == kDeadState || t == s || candidate[t] != t) continue;
    dfa.fallback[s] = t;
    any = true;
  }
  if (!any) return;
  std::vector<uint32_t> begin{0};
  std::vector<ByteEdge> out;
  out.reserve(dfa.edges.size() / 2);
  for (uint32_t s = 0; s < n; ++s) {
    const uint32_t t = dfa.fallback[s];
    if (t == kDeadState) {
      out.insert(out.end(), dfa.edges.begin() + dfa.edge_begin[s], dfa.edges.begin() + dfa.edge_begin[s + 1]);
    } else {
      // Merge the two ascending rows: keep what differs from t (explicit dead where t has an edge).
      uint32_t i = dfa.edge_begin[s], j = dfa.edge_begin[t];
      const uint32_t e = dfa.edge_begin[s + 1], fe = dfa.edge_begin[t + 1];
      const size_t before = out.size();
      while (i < e || j < fe) {
        if (j >= fe || (i < e && dfa.edges[i].cls < dfa.edges[j].cls)) {
          out.push_back(dfa.edges[i++]);
        } else if (i >= e || dfa.edges[j].cls < dfa.edges[i].cls) {
          out.push_back({dfa.edges[j++].cls, kDeadState});
        } else {
          if (dfa.edges[i].target != dfa.edges[j].target) out.push_back(dfa.edges[i]);
          ++i, ++j;
        }
      }
      // Not worth it: keep the plain row.
      if (out.size() - before >= width(s) / 2) {
        out.resize(before);
        out.insert(out.end(), dfa.edges.begin() + dfa.edge_begin[s], dfa.edges.begin() + dfa.edge_begin[s + 1]);
        dfa.fallback[s] = kDeadState;
      }
    }
    begin.push_back(static_cast<uint32_t>(out.size()));
  }
  dfa.edges = std::move(out);
  dfa.edge_begin = std::move(begin);
}

void epsilon_closure(const RuleNfa& nfa, std::vector<uint32_t>& set, std::vector<uint32_t>& mark, uint32_t stamp) {
  for (uint32_t s : set) mark[s] = stamp;
  for (size_t i = 0; i < set.size(); ++i) {
    for (uint32_t t : nfa.states[set[i]].eps) {
      if (mark[t] != stamp) {
        mark[t] = stamp;
        set.push_back(t);
      }
    }
  }
  std::sort(set.begin(), set.end());
}

LocalDfa determinize(const RuleNfa& nfa, const std::array<uint8_t, 256>& byte_class, uint32_t num_classes,
                     uint32_t max_states, const OriginTree& origins) {
  LocalDfa dfa;
  // Subsets live in one pool (no allocation per DFA state), found through an open-addressing
  // table of ids.
  std::vector<uint32_t> pool, sub_begin{0};
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> table(1024, kDeadState);
  std::vector<uint32_t> mark(nfa.states.size(), 0);
  uint32_t stamp = 0;
  const auto hash_of = [](const std::vector<uint32_t>& v) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t x : v) h = (h ^ x) * 1099511628211ull;
    return h;
  };
  // Closes `set` (a scratch buffer, reused) and returns its state id; copies it only when new.
  auto intern = [&](std::vector<uint32_t>& set) -> uint32_t {
    epsilon_closure(nfa, set, mark, ++stamp);
    const uint64_t h = hash_of(set);
    size_t mask = table.size() - 1, i = h & mask;
    for (; table[i] != kDeadState; i = (i + 1) & mask) {
      const uint32_t id = table[i];
      if (hashes[id] == h && sub_begin[id + 1] - sub_begin[id] == set.size() &&
          std::equal(set.begin(), set.end(), pool.begin() + sub_begin[id]))
        return id;
    }
    const uint32_t id = static_cast<uint32_t>(hashes.size());
    if (id >= max_states)
      throw GrammarError(GrammarErrorKind::TooLarge, "grammar automaton exceeds " + std::to_string(max_states) + " states");
    pool.insert(pool.end(), set.begin(), set.end());
    sub_begin.push_back(static_cast<uint32_t>(pool.size()));
    hashes.push_back(h);
    table[i] = id;
    if (hashes.size() * 2 > table.size()) {
      table.assign(table.size() * 2, kDeadState);
      mask = table.size() - 1;
      for (uint32_t k = 0; k < hashes.size(); ++k) {
        size_t j = hashes[k] & mask;
        while (table[j] != kDeadState) j = (j + 1) & mask;
        table[j] = k;
      }
    }
    return id;
  };
  std::vector<uint32_t> scratch{nfa.start};
  intern(scratch);
  std::vector<std::vector<uint32_t>> per_class(num_classes);
  std::vector<uint32_t> touched;  // classes with targets in this state
  std::vector<uint32_t> cur;
  std::vector<std::pair<int32_t, uint32_t>> call_pairs, token_pairs;
  for (size_t d = 0; d < hashes.size(); ++d) {
    cur.assign(pool.begin() + sub_begin[d], pool.begin() + sub_begin[d + 1]);  // the pool grows while targets are interned
    touched.clear();
    call_pairs.clear();
    token_pairs.clear();
    bool acc = false;
    // The state is inside the rules common to its NFA states that can still move (states that
    // only pass on by epsilon, as the end of a finished sub-rule, do not hold it open).
    uint32_t origin = kNoOrigin, any_origin = kNoOrigin;
    bool moving = false, first = true;
    for (uint32_t s : cur) {
      if (s == nfa.accept) acc = true;
      const NfaState& st = nfa.states[s];
      any_origin = first ? st.origin : origins.common(any_origin, st.origin);
      first = false;
      if (!st.bytes.empty() || !st.calls.empty() || !st.tokens.empty()) {
        origin = moving ? origins.common(origin, st.origin) : st.origin;
        moving = true;
      }
      for (const auto& e : st.bytes) {
        // Classes are contiguous in byte order, so a byte range maps to a run of classes, but
        // classes are numbered by first appearance: walk the bytes' classes directly.
        uint32_t last = UINT32_MAX;
        for (uint32_t b = e.lo; b <= e.hi; ++b) {
          uint32_t c = byte_class[b];
          if (c == last) continue;
          last = c;
          auto& v = per_class[c];
          if (v.empty()) touched.push_back(c);
          if (v.empty() || v.back() != e.target) v.push_back(e.target);
        }
      }
      for (const auto& [r, t] : st.calls) call_pairs.emplace_back(r, t);
      for (const auto& [x, t] : st.tokens) token_pairs.emplace_back(x, t);
    }
    std::sort(touched.begin(), touched.end());
    for (uint32_t c : touched) {
      auto& v = per_class[c];
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      dfa.edges.push_back({c, intern(v)});
      v.clear();
    }
    dfa.edge_begin.push_back(static_cast<uint32_t>(dfa.edges.size()));
    // Calls and token edges grouped by rule / token expression (ascending, as a std::map would give).
    const auto group = [&](std::vector<std::pair<int32_t, uint32_t>>& pairs) {
      std::vector<std::pair<int32_t, uint32_t>> out;
      std::sort(pairs.begin(), pairs.end());
      for (size_t i = 0; i < pairs.size();) {
        size_t j = i;
        scratch.clear();
        for (; j < pairs.size() && pairs[j].first == pairs[i].first; ++j) scratch.push_back(pairs[j].second);
        out.emplace_back(pairs[i].first, intern(scratch));
        i = j;
      }
      return out;
    };
    std::vector<std::pair<int32_t, uint32_t>> calls = group(call_pairs), tokens = group(token_pairs);
    dfa.accepting.push_back(acc);
    dfa.origin.push_back(moving ? origin : any_origin);
    dfa.calls.push_back(std::move(calls));
    dfa.tokens.push_back(std::move(tokens));
  }
  return dfa;
}

// A rule whose body is one embedded automaton that is already deterministic (the regex, format
// and length automata of src/text are minimal DFAs) needs no subset construction: its states map
// one to one onto DFA states. Returns false when the automaton is not deterministic.
bool direct_dfa(const ByteAutomaton& aut, const std::array<uint8_t, 256>& byte_class, uint32_t max_states,
                uint32_t origin, LocalDfa& dfa) {
  const uint32_t n = aut.num_states();
  std::vector<uint32_t> local(n, kDeadState);
  std::vector<uint32_t> order{aut.start};
  local[aut.start] = 0;
  std::vector<uint32_t> owner(256);
  for (size_t i = 0; i < order.size(); ++i) {
    if (order.size() > max_states)
      throw GrammarError(GrammarErrorKind::TooLarge, "grammar automaton exceeds " + std::to_string(max_states) + " states");
    const uint32_t q = order[i];
    std::fill(owner.begin(), owner.end(), kDeadState);
    for (const auto& e : aut.edges[q])
      for (uint32_t b = e.lo; b <= e.hi; ++b) {
        if (owner[b] != kDeadState && owner[b] != e.target) return false;  // nondeterministic
        owner[b] = e.target;
      }
    // Classes refine every edge boundary: one target per class. Classes are numbered in byte
    // order, so walking the bytes lists each class once, ascending.
    uint32_t last = kDeadState;
    for (uint32_t b = 0; b < 256; ++b) {
      if (owner[b] == kDeadState || byte_class[b] == last) continue;
      last = byte_class[b];
      if (local[owner[b]] == kDeadState) {
        local[owner[b]] = static_cast<uint32_t>(order.size());
        order.push_back(owner[b]);
      }
      dfa.edges.push_back({byte_class[b], local[owner[b]]});
    }
    dfa.edge_begin.push_back(static_cast<uint32_t>(dfa.edges.size()));
    dfa.accepting.push_back(aut.accepting[q]);
    dfa.origin.push_back(origin);
    dfa.calls.emplace_back();
    dfa.tokens.emplace_back();
  }
  return true;
}

// Packs the edge lists into the comb table, first fit: each row goes to the lowest base where
// its classes land on free slots. Rows of one or two edges (literal keys, most of a large
// grammar) fill the holes of the wide ones (string contents).
void pack_comb(GrammarAutomaton& a) {
  const uint32_t n = a.num_states(), nc = a.num_classes;
  a.comb_base.assign(n, 0);
  a.comb.clear();
  a.comb.reserve(size_t(a.edges.size()) * 2 + nc);
  // Wide rows first: they are the hardest to place.
  std::vector<uint32_t> order(n);
  for (uint32_t s = 0; s < n; ++s) order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    return a.edge_begin[x + 1] - a.edge_begin[x] > a.edge_begin[y + 1] - a.edge_begin[y];
  });
  uint32_t first_free = 0;  // every slot below is taken
  for (uint32_t s : order) {
    const uint32_t b0 = a.edge_begin[s], b1 = a.edge_begin[s + 1];
    if (b0 == b1) continue;  // no edges: base 0, no slot ever names it
    while (first_free < a.comb.size() && a.comb[first_free].owner != kDeadState) ++first_free;
    const uint32_t lo = a.edges[b0].cls;
    // The row's first class goes into a free slot: try the lowest free slots (a bounded scan, so
    // packing stays linear), else the end of the table.
    auto fits = [&](uint32_t base) {
      for (uint32_t i = b0; i < b1; ++i)
        if (size_t(base) + a.edges[i].cls < a.comb.size() && a.comb[base + a.edges[i].cls].owner != kDeadState) return false;
      return true;
    };
    uint32_t base = kDeadState;
    for (uint32_t f = std::max(first_free, lo), scanned = 0; f < a.comb.size() && scanned < 256; ++f, ++scanned)
      if (a.comb[f].owner == kDeadState && fits(f - lo)) {
        base = f - lo;
        break;
      }
    if (base == kDeadState) {
      base = static_cast<uint32_t>(a.comb.size());
      for (uint32_t back = 0; back < nc && base > lo && a.comb[base - 1].owner == kDeadState && fits(base - 1 - lo); ++back)
        --base;  // share a free end
      base = std::max(base, lo) - lo;
    }
    if (size_t(base) + nc > a.comb.size()) a.comb.resize(size_t(base) + nc, CombSlot{});
    a.comb_base[s] = base;
    for (uint32_t i = b0; i < b1; ++i) a.comb[base + a.edges[i].cls] = {s, a.edges[i].target};
  }
  // Every placed row has nc slots from its base; rows without edges sit at base 0.
  if (a.comb.size() < nc) a.comb.resize(nc, CombSlot{});
}

// Any-order objects: specs per object rule, the key rules' members, and the per-state checks.
void attach_key_sets(const Grammar& g, const std::vector<int32_t>& ir_to_auto, GrammarAutomaton& a) {
  const uint32_t n = a.num_states();
  const size_t rules = a.rule_start.size();
  a.rule_key_set.assign(rules, -1);
  a.key_member.assign(rules, kNotAKey);
  a.key_check.assign(n, kNoKeyCheck);
  for (const auto& k : g.key_sets) {
    if (ir_to_auto[k.rule] < 0) continue;  // unreachable object
    KeySetSpec spec;
    spec.rule = static_cast<uint32_t>(ir_to_auto[k.rule]);
    spec.declared = static_cast<uint32_t>(k.keys.size());
    spec.required.assign((k.keys.size() + 63) / 64, 0);
    for (size_t i = 0; i < k.keys.size(); ++i) {
      if (ir_to_auto[k.keys[i]] >= 0) a.key_member[ir_to_auto[k.keys[i]]] = static_cast<int32_t>(i);
      if (k.required[i]) spec.required[i / 64] |= uint64_t(1) << (i % 64), ++spec.required_count;
    }
    for (int32_t r : k.additional)
      if (ir_to_auto[r] >= 0) a.key_member[ir_to_auto[r]] = kAdditionalKey, spec.additional = true;
    spec.min_members = k.min_members;
    spec.max_members = k.max_members;
    spec.counts = k.min_members > 0 || k.max_members != ~uint64_t(0);
    spec.close_static = spec.required_count == 0 && k.min_members == 0;
    spec.more_static = spec.additional && k.max_members == ~uint64_t(0);
    a.rule_key_set[spec.rule] = static_cast<int32_t>(a.key_sets.size());
    a.key_sets.push_back(std::move(spec));
  }
  if (a.key_sets.empty()) return;
  // States of an object that can reach its end without calling a key (fixpoint, backwards).
  std::vector<uint8_t> can_close(n, 0);
  for (uint32_t s = 0; s < n; ++s) can_close[s] = a.accepting[s];
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = n; s-- > 0;) {
      if (can_close[s] || a.rule_key_set[a.state_rule[s]] < 0) continue;
      bool c = false;
      a.for_each_edge(s, [&](uint32_t, uint32_t t) { c = c || can_close[t]; });
      for (uint32_t i = a.call_begin[s]; i < a.call_begin[s + 1] && !c; ++i)
        c = a.key_member[a.calls[i].rule] == kNotAKey && can_close[a.calls[i].target];
      for (uint32_t i = a.tok_begin[s]; i < a.tok_begin[s + 1] && !c; ++i) c = can_close[a.toks[i].target];
      if (c) can_close[s] = 1, changed = true;
    }
  }
  for (uint32_t s = 0; s < n; ++s) {
    const int32_t ks = a.rule_key_set[a.state_rule[s]];
    if (ks < 0) continue;
    const KeySetSpec& spec = a.key_sets[ks];
    if (a.accepting[s] && !spec.close_static) a.key_check[s] = kCloseCheck;
    else if (!can_close[s] && !spec.more_static) a.key_check[s] = kMoreCheck;
  }
}

}  // namespace

GrammarAutomaton build_automaton(const Grammar& source, const AutomatonLimits& limits) {
  GrammarAutomaton a;
  const Grammar outlined = outline_shared_fragments(source);
  const Grammar& g = outlined;
  std::vector<uint8_t> inlined = choose_inlined_rules(g, limits.inline_max_states);
  inlined[g.root] = 0;
  // Any-order objects and their keys keep their own rules: the parser tracks keys per call.
  for (const auto& k : g.key_sets) {
    inlined[k.rule] = 0;
    for (int32_t r : k.keys) inlined[r] = 0;
    for (int32_t r : k.additional) inlined[r] = 0;
  }

  // Rules that need their own DFA: the root and every rule called through a non-inlined reference.
  std::vector<int32_t> ir_to_auto(g.rules.size(), -1);
  std::vector<int32_t> order{g.root};
  std::vector<RuleNfa> nfas;
  OriginTree origins(g);
  ir_to_auto[g.root] = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    nfas.push_back(build_rule_nfa(g, order[i], inlined, limits.max_nfa_states, &origins));
    for (const auto& st : nfas.back().states)
      for (const auto& [r, t] : st.calls)
        if (ir_to_auto[r] < 0) {
          ir_to_auto[r] = static_cast<int32_t>(order.size());
          order.push_back(r);
        }
  }

  // Byte classes: bytes that no edge boundary separates behave identically everywhere.
  std::array<uint8_t, 257> boundary{};
  boundary[0] = 1;
  for (const auto& nfa : nfas)
    for (const auto& st : nfa.states)
      for (const auto& e : st.bytes) {
        boundary[e.lo] = 1;
        boundary[e.hi + 1] = 1;
      }
  uint32_t cls = 0;
  for (int b = 0; b < 256; ++b) {
    if (b > 0 && boundary[b]) ++cls;
    a.byte_class[b] = static_cast<uint8_t>(cls);
  }
  a.num_classes = cls + 1;

  // Token sets referenced by the grammar.
  std::unordered_map<int32_t, uint32_t> token_set_ids;
  auto token_set_of = [&](int32_t expr) {
    auto it = token_set_ids.find(expr);
    if (it != token_set_ids.end()) return it->second;
    const Expr& e = g.exprs[expr];
    uint32_t id = static_cast<uint32_t>(a.token_sets.size());
    a.token_sets.push_back({e.token_ids, e.exclude, e.location});
    token_set_ids.emplace(expr, id);
    return id;
  };

  // Determinise each rule and number the states globally. The augmented start rule comes last.
  const uint32_t num_rules = static_cast<uint32_t>(order.size());
  std::vector<LocalDfa> dfas;
  std::vector<uint32_t> base(num_rules + 1, 0);
  uint32_t total = 0;
  // Rules are determinised within the room left by the ones before; past it, whichever rule
  // overflows, the error names the total.
  const auto too_many_states = [&] {
    return GrammarError(GrammarErrorKind::TooLarge,
                        "grammar automaton exceeds " + std::to_string(limits.max_dfa_states) + " states")
        .with_limit("automaton.max_dfa_states", limits.max_dfa_states);
  };
  for (uint32_t r = 0; r < num_rules; ++r) {
    const uint32_t room = limits.max_dfa_states - std::min(total, limits.max_dfa_states);
    const Expr& body = g.exprs[g.rules[order[r]].body];
    LocalDfa direct;
    try {
      if (body.kind == ExprKind::Automaton && direct_dfa(*body.automaton, a.byte_class, room, origins.enter(kNoOrigin, order[r]), direct))
        dfas.push_back(std::move(direct));
      else
        dfas.push_back(determinize(nfas[r], a.byte_class, a.num_classes, room, origins));
    } catch (GrammarError& e) {
      if (e.kind() == GrammarErrorKind::TooLarge && e.limit().empty()) throw too_many_states();
      throw;
    }
    compress_rows(dfas.back());
    base[r] = total;
    total += static_cast<uint32_t>(dfas.back().accepting.size());
    if (total > limits.max_dfa_states) throw too_many_states();
  }
  nfas.clear();
  a.aug_rule = num_rules;
  a.aug_start = total;
  a.aug_accept = total + 1;
  const uint32_t n = total + 2;
  a.state_rule.resize(n);
  a.accepting.assign(n, 0);
  a.edge_begin.assign(n + 1, 0);
  a.fallback.assign(n, kDeadState);
  a.state_origin.assign(n, kNoOrigin);
  a.call_begin.assign(n + 1, 0);
  a.tok_begin.assign(n + 1, 0);
  for (uint32_t r = 0; r < num_rules; ++r) {
    a.rule_start.push_back(base[r]);
    a.rule_names.push_back(g.rules[order[r]].name);
  }
  a.rule_start.push_back(a.aug_start);
  a.rule_names.push_back("<start>");
  a.origins = std::move(origins.origins);
  a.origin_nodes = std::move(origins.nodes);
  for (uint32_t r = 0; r < num_rules; ++r) {
    const LocalDfa& d = dfas[r];
    for (uint32_t s = 0; s < d.accepting.size(); ++s) {
      uint32_t gs = base[r] + s;
      a.state_rule[gs] = r;
      a.accepting[gs] = d.accepting[s];
      a.state_origin[gs] = d.origin[s];
      a.edge_begin[gs] = static_cast<uint32_t>(a.edges.size());
      for (uint32_t i = d.edge_begin[s]; i < d.edge_begin[s + 1]; ++i)
        a.edges.push_back({d.edges[i].cls, d.edges[i].target == kDeadState ? kDeadState : base[r] + d.edges[i].target});
      a.fallback[gs] = d.fallback[s] == kDeadState ? kDeadState : base[r] + d.fallback[s];
      a.call_begin[gs] = static_cast<uint32_t>(a.calls.size());
      for (const auto& [ir, t] : d.calls[s]) a.calls.push_back({static_cast<uint32_t>(ir_to_auto[ir]), base[r] + t});
      a.tok_begin[gs] = static_cast<uint32_t>(a.toks.size());
      for (const auto& [x, t] : d.tokens[s]) a.toks.push_back({token_set_of(x), base[r] + t});
    }
  }
  a.state_rule[a.aug_start] = a.state_rule[a.aug_accept] = a.aug_rule;
  a.accepting[a.aug_accept] = 1;
  a.call_begin[a.aug_start] = static_cast<uint32_t>(a.calls.size());
  a.tok_begin[a.aug_start] = static_cast<uint32_t>(a.toks.size());
  a.calls.push_back({0, a.aug_accept});
  a.call_begin[a.aug_accept] = static_cast<uint32_t>(a.calls.size());
  a.tok_begin[a.aug_accept] = static_cast<uint32_t>(a.toks.size());
  a.call_begin[n] = static_cast<uint32_t>(a.calls.size());
  a.tok_begin[n] = static_cast<uint32_t>(a.toks.size());
  a.edge_begin[a.aug_start] = a.edge_begin[a.aug_accept] = a.edge_begin[n] = static_cast<uint32_t>(a.edges.size());
  dfas.clear();
  const uint32_t all_rules = num_rules + 1;

  // Productive rules and live states (can still reach acceptance): a backward worklist from the
  // accepting states. A call edge s -(r)-> t makes s live once t is live and r is productive; a
  // rule becomes productive when its start state is live.
  std::vector<uint8_t> live(n, 0), productive(all_rules, 0);
  {
    std::vector<uint32_t> pred_begin(n + 1, 0), preds;
    for (uint32_t s = 0; s < n; ++s) {
      a.for_each_edge(s, [&](uint32_t, uint32_t t) { ++pred_begin[t + 1]; });
      for (uint32_t i = a.tok_begin[s]; i < a.tok_begin[s + 1]; ++i) ++pred_begin[a.toks[i].target + 1];
    }
    for (uint32_t s = 0; s < n; ++s) pred_begin[s + 1] += pred_begin[s];
    preds.resize(pred_begin[n]);
    {
      std::vector<uint32_t> fill(pred_begin.begin(), pred_begin.end() - 1);
      for (uint32_t s = 0; s < n; ++s) {
        a.for_each_edge(s, [&](uint32_t, uint32_t t) { preds[fill[t]++] = s; });
        for (uint32_t i = a.tok_begin[s]; i < a.tok_begin[s + 1]; ++i) preds[fill[a.toks[i].target]++] = s;
      }
    }
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> calls_into(n);      // target -> (caller state, rule)
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> calls_of(all_rules);  // rule -> (caller state, target)
    for (uint32_t s = 0; s < n; ++s)
      for (uint32_t i = a.call_begin[s]; i < a.call_begin[s + 1]; ++i) {
        calls_into[a.calls[i].target].push_back({s, a.calls[i].rule});
        calls_of[a.calls[i].rule].push_back({s, a.calls[i].target});
      }
    std::vector<std::vector<uint32_t>> rules_starting_at(n);
    for (uint32_t r = 0; r < all_rules; ++r) rules_starting_at[a.rule_start[r]].push_back(r);
    std::vector<uint32_t> work;
    const auto make_live = [&](uint32_t s) {
      if (!live[s]) live[s] = 1, work.push_back(s);
    };
    for (uint32_t s = 0; s < n; ++s)
      if (a.accepting[s]) make_live(s);
    while (!work.empty()) {
      const uint32_t t = work.back();
      work.pop_back();
      for (uint32_t i = pred_begin[t]; i < pred_begin[t + 1]; ++i) make_live(preds[i]);
      for (const auto& [caller, rule] : calls_into[t])
        if (productive[rule]) make_live(caller);
      for (uint32_t r : rules_starting_at[t]) {
        if (productive[r]) continue;
        productive[r] = 1;
        for (const auto& [caller, target] : calls_of[r])
          if (live[target]) make_live(caller);
      }
    }
  }
  if (!productive[a.aug_rule]) {
    throw GrammarError(GrammarErrorKind::EmptyLanguage, "rule '" + g.rules[g.root].name + "' derives no string",
                       g.rules[g.root].location);
  }
  // Trim: drop edges into dead states and calls of unproductive rules, so every reachable item can still finish.
  {
    std::vector<CallEdge> calls;
    std::vector<TokenEdge> toks;
    std::vector<uint32_t> cb(n + 1), tb(n + 1);
    uint32_t kept = 0;  // byte edges are filtered in place
    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t from = a.edge_begin[s], to = a.edge_begin[s + 1];
      a.edge_begin[s] = kept;
      for (uint32_t i = from; i < to; ++i) {
        ByteEdge e = a.edges[i];
        if (e.target != kDeadState && !live[e.target]) e.target = kDeadState;
        // An explicit dead edge only matters where a fallback row would fill the class.
        if (e.target != kDeadState || a.fallback[s] != kDeadState) a.edges[kept++] = e;
      }
      cb[s] = static_cast<uint32_t>(calls.size());
      for (uint32_t i = a.call_begin[s]; i < a.call_begin[s + 1]; ++i)
        if (productive[a.calls[i].rule] && live[a.calls[i].target]) calls.push_back(a.calls[i]);
      tb[s] = static_cast<uint32_t>(toks.size());
      for (uint32_t i = a.tok_begin[s]; i < a.tok_begin[s + 1]; ++i)
        if (live[a.toks[i].target]) toks.push_back(a.toks[i]);
    }
    cb[n] = static_cast<uint32_t>(calls.size());
    tb[n] = static_cast<uint32_t>(toks.size());
    a.edge_begin[n] = kept;
    a.edges.resize(kept);
    a.calls = std::move(calls);
    a.toks = std::move(toks);
    a.call_begin = std::move(cb);
    a.tok_begin = std::move(tb);
  }

  // Nullable rules: the start state reaches acceptance through nullable calls alone.
  std::vector<uint8_t> eps_end(n, 0);
  a.rule_nullable.assign(all_rules, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = n; s-- > 0;) {
      if (eps_end[s]) continue;
      bool e = a.accepting[s];
      for (uint32_t i = a.call_begin[s]; i < a.call_begin[s + 1] && !e; ++i)
        e = a.rule_nullable[a.calls[i].rule] && eps_end[a.calls[i].target];
      if (e) {
        eps_end[s] = 1;
        changed = true;
      }
    }
    for (uint32_t r = 0; r < all_rules; ++r)
      if (!a.rule_nullable[r] && eps_end[a.rule_start[r]]) {
        a.rule_nullable[r] = 1;
        changed = true;
      }
  }

  // FIRST1 per state, then FOLLOW1 per rule (token edges count as "any byte").
  std::vector<std::bitset<256>> first(n);
  std::bitset<256> all;
  all.set();
  std::vector<std::bitset<256>> class_bytes(a.num_classes);
  for (int b = 0; b < 256; ++b) class_bytes[a.byte_class[b]].set(b);
  for (uint32_t s = 0; s < n; ++s) {
    a.for_each_edge(s, [&](uint32_t c, uint32_t) { first[s] |= class_bytes[c]; });
    if (a.tok_begin[s] != a.tok_begin[s + 1]) first[s] = all;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < n; ++s) {
      auto f = first[s];
      for (uint32_t i = a.call_begin[s]; i < a.call_begin[s + 1]; ++i) {
        f |= first[a.rule_start[a.calls[i].rule]];
        if (a.rule_nullable[a.calls[i].rule]) f |= first[a.calls[i].target];
      }
      if (f != first[s]) {
        first[s] = f;
        changed = true;
      }
    }
  }
  a.follow1.assign(all_rules, {});
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t s = 0; s < n; ++s) {
      for (uint32_t i = a.call_begin[s]; i < a.call_begin[s + 1]; ++i) {
        const CallEdge& e = a.calls[i];
        auto f = a.follow1[e.rule] | first[e.target];
        if (eps_end[e.target]) f |= a.follow1[a.state_rule[s]];
        if (f != a.follow1[e.rule]) {
          a.follow1[e.rule] = f;
          changed = true;
        }
      }
    }
  }

  attach_key_sets(g, ir_to_auto, a);
  a.simple.assign(n, 0);
  for (uint32_t s = 0; s < n; ++s)
    a.simple[s] = !a.accepting[s] && a.call_begin[s] == a.call_begin[s + 1] && a.tok_begin[s] == a.tok_begin[s + 1] &&
                  a.key_check[s] == kNoKeyCheck;
  pack_comb(a);
  return a;
}

}  // namespace ninfer::grammar
