#include "text/regex_to_nfa.h"

#include <algorithm>
#include <string>
#include <utility>

#include "grammar/grammar_ir.h"

namespace ninfer::text {
namespace {

constexpr uint32_t kNone = CharNfa::kNone;
constexpr uint64_t kSaturated = uint64_t(1) << 40;

uint64_t sat_add(uint64_t a, uint64_t b) { return std::min(a + b, kSaturated); }
uint64_t sat_mul(uint64_t a, uint64_t b) { return a != 0 && b > kSaturated / a ? kSaturated : std::min(a * b, kSaturated); }

// Copies of the operand a repetition needs: min mandatory ones plus one loop copy or max-min optional ones.
uint64_t repeat_copies(const RegexNode& n) {
  return n.max == grammar::kUnbounded ? uint64_t(n.min) + 1 : uint64_t(n.max);
}

// A fragment owns the contiguous states [first, end of the array when it was finished), and only
// its `end` state lacks outgoing moves; that makes a copy a block copy with shifted indices.
struct Frag {
  uint32_t start = kNone, end = kNone, first = 0;
};

class Builder {
 public:
  Builder(const RegexAst& ast, CharNfa& nfa) : ast_(ast), nfa_(nfa), set_of_(ast.nodes.size(), kNone), frag_(ast.nodes.size()) {}

  // Builds the subtree of `root` bottom up with an explicit stack (no native recursion).
  Frag build(int32_t root) {
    std::vector<std::pair<int32_t, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [id, ready] = stack.back();
      stack.pop_back();
      const RegexNode& n = ast_.nodes[id];
      if (!ready) {
        stack.push_back({id, true});
        // Children are pushed in reverse so they are built left to right, keeping blocks adjacent.
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back({*it, false});
        continue;
      }
      frag_[id] = make(id);
    }
    return frag_[root];
  }

  // A new state that reaches each of `targets` through a chain of binary splits.
  uint32_t fan_out(const std::vector<uint32_t>& targets) {
    const uint32_t head = nfa_.add_state();
    uint32_t cur = head;
    for (size_t i = 0; i < targets.size(); ++i) {
      if (i + 2 < targets.size()) {
        nfa_.add_eps(cur, targets[i]);
        const uint32_t next = nfa_.add_state();
        nfa_.add_eps(cur, next);
        cur = next;
      } else {
        nfa_.add_eps(cur, targets[i]);
      }
    }
    return head;
  }

 private:
  const RegexAst& ast_;
  CharNfa& nfa_;
  std::vector<uint32_t> set_of_;  // Chars node -> set index (copies share it)
  std::vector<Frag> frag_;

  uint32_t size() const { return static_cast<uint32_t>(nfa_.states.size()); }

  Frag clone(const Frag& f) {
    const uint32_t block_end = f.end + 1;  // the end state is created last in every fragment
    const uint32_t shift = size() - f.first;
    for (uint32_t s = f.first; s < block_end; ++s) {
      CharNfa::State st = nfa_.states[s];
      if (st.next != kNone) st.next += shift;
      for (uint32_t& e : st.eps)
        if (e != kNone) e += shift;
      nfa_.states.push_back(st);
    }
    return {f.start + shift, f.end + shift, f.first + shift};
  }

  Frag make(int32_t id) {
    const RegexNode& n = ast_.nodes[id];
    const uint32_t first = n.children.empty() ? size() : frag_[n.children[0]].first;
    switch (n.kind) {
      case RegexNodeKind::Empty: {
        const uint32_t s = nfa_.add_state();
        return {s, s, s};
      }
      case RegexNodeKind::Chars: {
        if (set_of_[id] == kNone) set_of_[id] = nfa_.add_set(n.chars);
        const uint32_t s = nfa_.add_state(), t = nfa_.add_state();
        nfa_.states[s].set = set_of_[id];
        nfa_.states[s].next = t;
        return {s, t, s};
      }
      case RegexNodeKind::Concat: {
        // Children were built one after another, so the last child's end is the block's last state.
        for (size_t i = 0; i + 1 < n.children.size(); ++i)
          nfa_.add_eps(frag_[n.children[i]].end, frag_[n.children[i + 1]].start);
        return {frag_[n.children[0]].start, frag_[n.children.back()].end, first};
      }
      case RegexNodeKind::Alt: {
        std::vector<uint32_t> starts;
        for (int32_t c : n.children) starts.push_back(frag_[c].start);
        const uint32_t s = fan_out(starts);
        const uint32_t t = nfa_.add_state();
        for (int32_t c : n.children) nfa_.add_eps(frag_[c].end, t);
        return {s, t, first};
      }
      case RegexNodeKind::Repeat: {
        const Frag body = frag_[n.children[0]];
        const uint64_t copies = repeat_copies(n);
        std::vector<Frag> parts;
        if (copies > 0) parts.push_back(body);
        for (uint64_t i = 1; i < copies; ++i) parts.push_back(clone(body));
        const uint32_t s = nfa_.add_state();
        uint32_t cur = s;
        size_t k = 0;
        for (; k < n.min; ++k) {
          nfa_.add_eps(cur, parts[k].start);
          cur = parts[k].end;
        }
        if (n.max == grammar::kUnbounded) {
          const uint32_t loop = nfa_.add_state();
          nfa_.add_eps(cur, loop);
          nfa_.add_eps(loop, parts[k].start);
          nfa_.add_eps(parts[k].end, loop);
          cur = loop;
        } else {
          std::vector<uint32_t> exits;
          for (; k < n.max; ++k) {
            exits.push_back(cur);
            nfa_.add_eps(cur, parts[k].start);
            cur = parts[k].end;
          }
          exits.push_back(cur);
          const uint32_t t = nfa_.add_state();
          for (uint32_t x : exits) nfa_.add_eps(x, t);
          return {s, t, first};
        }
        const uint32_t t = nfa_.add_state();
        nfa_.add_eps(cur, t);
        return {s, t, first};
      }
    }
    return {};
  }
};

// Upper bound of the states Builder creates for each node (index order is a post-order).
uint64_t estimate_states(const RegexAst& ast) {
  std::vector<uint64_t> size(ast.nodes.size(), 0);
  for (size_t i = 0; i < ast.nodes.size(); ++i) {
    const RegexNode& n = ast.nodes[i];
    uint64_t s = 0;
    switch (n.kind) {
      case RegexNodeKind::Empty: s = 1; break;
      case RegexNodeKind::Chars: s = 2; break;
      case RegexNodeKind::Concat:
      case RegexNodeKind::Alt:
        s = 2 * n.children.size();
        for (int32_t c : n.children) s = sat_add(s, size[c]);
        break;
      case RegexNodeKind::Repeat: s = sat_add(4, sat_mul(std::max<uint64_t>(repeat_copies(n), 1), size[n.children[0]])); break;
    }
    size[i] = s;
  }
  uint64_t total = 8 + 4 * ast.branches.size();
  for (const auto& b : ast.branches) total = sat_add(total, size[b.node]);
  return total;
}

}  // namespace

CharNfa regex_to_nfa(const RegexAst& ast, RegexMode mode, const AutomatonBudget& budget) {
  const uint64_t limit = std::max<uint64_t>(uint64_t(budget.max_states) * 16, 4096);
  if (estimate_states(ast) > limit)
    throw AutomatonBudgetExceeded("the regex expands to more than " + std::to_string(limit) + " NFA states", "text.max_states", budget.max_states);
  CharNfa nfa;
  Builder b(ast, nfa);
  std::vector<Frag> frags;
  for (const auto& br : ast.branches) frags.push_back(b.build(br.node));

  const bool search = mode == RegexMode::Search;
  nfa.accept = nfa.add_state();
  if (search) {
    nfa.universal = nfa.add_state();
    nfa.states[nfa.universal].set = nfa.add_set(any_scalar_set());
    nfa.states[nfa.universal].next = nfa.universal;
  }
  std::vector<uint32_t> from_start, from_anywhere;
  for (size_t i = 0; i < frags.size(); ++i) {
    const RegexBranch& br = ast.branches[i];
    (search && !br.anchored_start ? from_anywhere : from_start).push_back(frags[i].start);
    nfa.add_eps(frags[i].end, search && !br.anchored_end ? nfa.universal : nfa.accept);
  }
  if (!from_anywhere.empty()) {
    // Implicit leading [\s\S]*: a loop that may skip any prefix before the unanchored branches.
    const uint32_t loop = nfa.add_state(), skip = nfa.add_state();
    nfa.states[skip].set = nfa.add_set(any_scalar_set());
    nfa.states[skip].next = loop;
    nfa.add_eps(loop, skip);
    nfa.add_eps(loop, b.fan_out(from_anywhere));
    from_start.push_back(loop);
  }
  nfa.start = b.fan_out(from_start);
  return nfa;
}

}  // namespace ninfer::text
