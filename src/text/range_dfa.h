// The plain data of a deterministic automaton over Unicode scalar values, shared by the
// constructions (subset, product, factories), the minimiser and the lowering.
#pragma once

#include <cstdint>
#include <vector>

namespace ninfer::text {

// Inclusive range of scalar values leading to `target`. Ranges never contain surrogates: the
// alphabet is the scalar values, so a set such as "any character" is [0,D7FF] + [E000,10FFFF].
struct RangeEdge {
  uint32_t lo = 0, hi = 0;
  uint32_t target = 0;
  bool operator==(const RangeEdge&) const = default;
};

struct RangeDfa {
  std::vector<std::vector<RangeEdge>> edges;  // per state: sorted by lo, pairwise disjoint; missing = reject
  std::vector<uint8_t> accepting;             // per state
  uint32_t start = 0;

  uint32_t num_states() const { return static_cast<uint32_t>(edges.size()); }
  uint32_t add_state(bool accept) {
    edges.emplace_back();
    accepting.push_back(accept ? 1 : 0);
    return num_states() - 1;
  }
};

// Removes useless states, merges equivalent ones (Hopcroft partition refinement on range labels)
// and numbers the result canonically (breadth first from the start, edges in code point order), so
// equal languages give identical automata. The empty language is one rejecting state, no edges.
RangeDfa minimize(const RangeDfa& dfa);

}  // namespace ninfer::text
