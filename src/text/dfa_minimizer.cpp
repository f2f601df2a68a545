#include <algorithm>
#include <cstdint>
#include <vector>

#include "text/range_dfa.h"

namespace ninfer::text {
namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// States reachable from the start that can also reach an accepting state. Dropping the others
// first matters: afterwards a missing edge is the only way to reject, so two states differ
// exactly when their languages differ.
std::vector<uint8_t> useful_states(const RangeDfa& d) {
  const uint32_t n = d.num_states();
  std::vector<uint8_t> fwd(n, 0), bwd(n, 0);
  std::vector<uint32_t> stack{d.start};
  fwd[d.start] = 1;
  while (!stack.empty()) {
    uint32_t s = stack.back();
    stack.pop_back();
    for (const auto& e : d.edges[s])
      if (!fwd[e.target]) fwd[e.target] = 1, stack.push_back(e.target);
  }
  std::vector<uint32_t> rbegin(n + 1, 0), rsrc;
  for (uint32_t s = 0; s < n; ++s)
    for (const auto& e : d.edges[s]) ++rbegin[e.target + 1];
  for (uint32_t s = 0; s < n; ++s) rbegin[s + 1] += rbegin[s];
  rsrc.resize(rbegin[n]);
  std::vector<uint32_t> fill(rbegin.begin(), rbegin.end() - 1);
  for (uint32_t s = 0; s < n; ++s)
    for (const auto& e : d.edges[s]) rsrc[fill[e.target]++] = s;
  for (uint32_t s = 0; s < n; ++s)
    if (d.accepting[s] && fwd[s]) bwd[s] = 1, stack.push_back(s);
  while (!stack.empty()) {
    uint32_t s = stack.back();
    stack.pop_back();
    for (uint32_t i = rbegin[s]; i < rbegin[s + 1]; ++i)
      if (!bwd[rsrc[i]] && fwd[rsrc[i]]) bwd[rsrc[i]] = 1, stack.push_back(rsrc[i]);
  }
  for (uint32_t s = 0; s < n; ++s) fwd[s] = fwd[s] && bwd[s];
  return fwd;
}

struct Pred {
  uint32_t src, lo, hi;
};

// Refinable partition: the states of block b are elems[begin[b] .. end[b]).
struct Partition {
  std::vector<uint32_t> elems, pos, block, begin, end;

  uint32_t size(uint32_t b) const { return end[b] - begin[b]; }
  // Moves `states` (all currently in block x) into a fresh block and returns its id.
  uint32_t split_off(uint32_t x, const std::vector<uint32_t>& states) {
    uint32_t stop = end[x];
    for (uint32_t q : states) {
      uint32_t i = pos[q], j = stop - 1;
      std::swap(elems[i], elems[j]);
      pos[elems[i]] = i;
      pos[elems[j]] = j;
      --stop;
    }
    uint32_t nb = static_cast<uint32_t>(begin.size());
    begin.push_back(stop);
    end.push_back(end[x]);
    end[x] = stop;
    for (uint32_t q : states) block[q] = nb;
    return nb;
  }
};

// One predecessor of the splitter with the exact character set leading from it into the splitter.
struct Signature {
  uint32_t block, state;
  uint64_t hash;
  uint32_t sig_begin, sig_len;  // into the range pool
};

}  // namespace

RangeDfa minimize(const RangeDfa& in) {
  const std::vector<uint8_t> useful = useful_states(in);
  if (!useful[in.start]) {
    RangeDfa empty;
    empty.add_state(false);
    return empty;
  }
  // Dense numbering of the useful states.
  std::vector<uint32_t> dense(in.num_states(), kNone), orig;
  for (uint32_t s = 0; s < in.num_states(); ++s)
    if (useful[s]) dense[s] = static_cast<uint32_t>(orig.size()), orig.push_back(s);
  const uint32_t n = static_cast<uint32_t>(orig.size());
  std::vector<std::vector<RangeEdge>> edges(n);
  for (uint32_t s = 0; s < n; ++s)
    for (const auto& e : in.edges[orig[s]])
      if (dense[e.target] != kNone) edges[s].push_back({e.lo, e.hi, dense[e.target]});

  // Predecessor lists (CSR by target).
  std::vector<uint32_t> pbegin(n + 1, 0);
  for (uint32_t s = 0; s < n; ++s)
    for (const auto& e : edges[s]) ++pbegin[e.target + 1];
  for (uint32_t s = 0; s < n; ++s) pbegin[s + 1] += pbegin[s];
  std::vector<Pred> preds(pbegin[n]);
  {
    std::vector<uint32_t> fill(pbegin.begin(), pbegin.end() - 1);
    for (uint32_t s = 0; s < n; ++s)
      for (const auto& e : edges[s]) preds[fill[e.target]++] = {s, e.lo, e.hi};
  }

  Partition p;
  p.elems.resize(n);
  p.pos.resize(n);
  p.block.resize(n);
  {
    uint32_t k = 0;
    for (int pass = 1; pass >= 0; --pass) {
      const uint32_t first = k;
      for (uint32_t s = 0; s < n; ++s)
        if ((in.accepting[orig[s]] != 0) == (pass == 1)) p.elems[k] = s, p.pos[s] = k, ++k;
      if (k > first) {
        const uint32_t b = static_cast<uint32_t>(p.begin.size());
        p.begin.push_back(first);
        p.end.push_back(k);
        for (uint32_t i = first; i < k; ++i) p.block[p.elems[i]] = b;
      }
    }
  }
  // Both initial blocks are splitters: the automaton is partial, so "has any edge into the
  // other block" is not implied by the split on one of them.
  std::vector<uint32_t> worklist;
  std::vector<uint8_t> in_worklist;
  for (uint32_t b = 0; b < p.begin.size(); ++b) worklist.push_back(b), in_worklist.push_back(1);

  std::vector<uint32_t> members;
  std::vector<Pred> incoming;
  std::vector<Signature> sigs;
  std::vector<uint32_t> pool;  // lo, hi pairs
  std::vector<uint32_t> moved;
  auto same_sig = [&](const Signature& a, const Signature& b) {
    return a.hash == b.hash && a.sig_len == b.sig_len &&
           std::equal(pool.begin() + a.sig_begin, pool.begin() + a.sig_begin + a.sig_len, pool.begin() + b.sig_begin);
  };
  while (!worklist.empty()) {
    const uint32_t splitter = worklist.back();
    worklist.pop_back();
    in_worklist[splitter] = 0;
    members.assign(p.elems.begin() + p.begin[splitter], p.elems.begin() + p.end[splitter]);
    incoming.clear();
    for (uint32_t t : members) incoming.insert(incoming.end(), preds.begin() + pbegin[t], preds.begin() + pbegin[t + 1]);
    if (incoming.empty()) continue;
    std::sort(incoming.begin(), incoming.end(),
              [](const Pred& a, const Pred& b) { return a.src != b.src ? a.src < b.src : a.lo < b.lo; });
    sigs.clear();
    pool.clear();
    for (size_t i = 0; i < incoming.size();) {
      const uint32_t src = incoming[i].src;
      Signature sg{p.block[src], src, 1469598103934665603ull, static_cast<uint32_t>(pool.size()), 0};
      for (; i < incoming.size() && incoming[i].src == src; ++i) {
        // The DFA is deterministic, so these ranges are disjoint; adjacent ones merge so that
        // equal character sets get equal signatures.
        if (sg.sig_len && pool.back() + 1 == incoming[i].lo) {
          pool.back() = incoming[i].hi;
        } else {
          pool.push_back(incoming[i].lo);
          pool.push_back(incoming[i].hi);
          sg.sig_len += 2;
        }
      }
      for (uint32_t k = 0; k < sg.sig_len; ++k) sg.hash = (sg.hash ^ pool[sg.sig_begin + k]) * 1099511628211ull;
      sigs.push_back(sg);
    }
    std::sort(sigs.begin(), sigs.end(), [&](const Signature& a, const Signature& b) {
      if (a.block != b.block) return a.block < b.block;
      if (a.hash != b.hash) return a.hash < b.hash;
      if (a.sig_len != b.sig_len) return a.sig_len < b.sig_len;
      return std::lexicographical_compare(pool.begin() + a.sig_begin, pool.begin() + a.sig_begin + a.sig_len,
                                          pool.begin() + b.sig_begin, pool.begin() + b.sig_begin + b.sig_len);
    });
    for (size_t i = 0; i < sigs.size();) {
      const uint32_t x = sigs[i].block;
      size_t j = i;
      while (j < sigs.size() && sigs[j].block == x) ++j;
      // Groups [i, j) by signature; states of x without an edge into the splitter form one more
      // (implicit) group that stays in x.
      std::vector<std::pair<size_t, size_t>> groups;
      for (size_t k = i; k < j;) {
        size_t l = k + 1;
        while (l < j && same_sig(sigs[k], sigs[l])) ++l;
        groups.emplace_back(k, l);
        k = l;
      }
      const uint32_t untouched = p.size(x) - static_cast<uint32_t>(j - i);
      if (groups.size() + (untouched > 0 ? 1 : 0) > 1) {
        // Which touched group stays in x (only when no untouched state keeps the id).
        size_t stay = groups.size();
        if (untouched == 0) {
          stay = 0;
          for (size_t g = 1; g < groups.size(); ++g)
            if (groups[g].second - groups[g].first > groups[stay].second - groups[stay].first) stay = g;
        }
        // Hopcroft: when x is not pending, every part but the largest must become a splitter.
        size_t largest = groups.size();  // groups.size() = the part that keeps the id x
        uint32_t largest_size = untouched > 0 ? untouched : static_cast<uint32_t>(groups[stay].second - groups[stay].first);
        for (size_t g = 0; g < groups.size(); ++g) {
          if (g == stay) continue;
          uint32_t sz = static_cast<uint32_t>(groups[g].second - groups[g].first);
          if (sz > largest_size) largest_size = sz, largest = g;
        }
        const bool x_pending = in_worklist[x] != 0;
        for (size_t g = 0; g < groups.size(); ++g) {
          if (g == stay) continue;
          moved.clear();
          for (size_t k = groups[g].first; k < groups[g].second; ++k) moved.push_back(sigs[k].state);
          const uint32_t nb = p.split_off(x, moved);
          in_worklist.push_back(0);
          if (x_pending || g != largest) worklist.push_back(nb), in_worklist[nb] = 1;
        }
        if (!x_pending && largest != groups.size()) worklist.push_back(x), in_worklist[x] = 1;
      }
      i = j;
    }
  }

  // Quotient automaton, then canonical breadth-first numbering.
  const uint32_t nb = static_cast<uint32_t>(p.begin.size());
  std::vector<uint32_t> order{p.block[dense[in.start]]}, id(nb, kNone);
  id[order[0]] = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t rep = p.elems[p.begin[order[k]]];
    for (const auto& e : edges[rep]) {
      const uint32_t tb = p.block[e.target];
      if (id[tb] == kNone) id[tb] = static_cast<uint32_t>(order.size()), order.push_back(tb);
    }
  }
  RangeDfa out;
  out.start = 0;
  for (uint32_t b : order) {
    const uint32_t rep = p.elems[p.begin[b]];
    const uint32_t s = out.add_state(in.accepting[orig[rep]] != 0);
    auto& oe = out.edges[s];
    for (const auto& e : edges[rep]) {
      const uint32_t t = id[p.block[e.target]];
      if (!oe.empty() && oe.back().target == t && oe.back().hi + 1 == e.lo) {
        oe.back().hi = e.hi;
      } else {
        oe.push_back({e.lo, e.hi, t});
      }
    }
  }
  return out;
}

}  // namespace ninfer::text
