// The compiled form of a grammar's structure, independent of any vocabulary: one byte-level DFA
// per rule that survives inlining, with call edges (nonterminals) and whole-token edges, plus the
// analyses the Earley parser and the token classifier need (nullable rules, FOLLOW1 byte sets).
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "grammar/grammar_ir.h"
#include "grammar/rule_origins.h"

namespace ninfer::grammar {

inline constexpr uint32_t kDeadState = 0xFFFFFFFFu;

struct CallEdge {
  uint32_t rule;    // automaton rule index
  uint32_t target;  // DFA state after the call returns
};

struct TokenEdge {
  uint32_t token_set;  // index into GrammarAutomaton::token_sets
  uint32_t target;
};

struct TokenSetDef {
  std::vector<int32_t> ids;  // sorted
  bool exclude = false;
  SourceLocation location;
};

struct AutomatonLimits {
  uint32_t inline_max_states = 600;      // a non-recursive rule this small is inlined into its callers
  uint32_t max_nfa_states = 1u << 20;    // per rule, before determinisation (about 130 MB of NFA)
  uint32_t max_dfa_states = 1u << 18;    // in total
};

struct ByteEdge {
  uint32_t cls;     // byte class
  uint32_t target;  // DFA state
};

struct CombSlot {
  uint32_t owner = kDeadState;  // the state whose row holds this slot
  uint32_t target = kDeadState;
};

inline constexpr int32_t kNotAKey = -1, kAdditionalKey = -2;

// An any-order JSON object (KeySetObject in the IR): what the parser needs to keep, per open
// object, the set of keys emitted so far (see key_set_table.h).
struct KeySetSpec {
  uint32_t rule = 0;
  uint32_t declared = 0;            // declared keys: bits 0..declared-1
  std::vector<uint64_t> required;   // bitset over the declared keys
  uint32_t required_count = 0;
  bool additional = false;          // undeclared names may come (repeatedly)
  bool counts = false;              // min or max members given: members are counted
  uint64_t min_members = 0, max_members = ~uint64_t(0);
  bool close_static = false;        // closing is always allowed (no required key, no minimum)
  bool more_static = false;         // another member may always come (undeclared names, no maximum)
  // An undeclared name may always start (no maximum), and its completion leaves the set as it
  // is (members not counted): checks the parser can skip for any set of keys.
  bool name_start_static() const { return additional && max_members == ~uint64_t(0); }
  bool name_end_static() const { return additional && !counts; }
  // Whether a key rule (a declared key bit or kAdditionalKey) may start whatever the keys so far.
  bool start_static(int32_t member) const { return member == kAdditionalKey && name_start_static(); }
};

// Per-state check of an any-order object, made when an item enters the state.
enum KeyCheck : uint8_t { kNoKeyCheck = 0, kCloseCheck = 1, kMoreCheck = 2 };

struct GrammarAutomaton {
  // Per DFA state (global numbering across rules).
  std::vector<uint8_t> accepting;
  std::vector<uint32_t> state_rule;
  std::vector<uint8_t> simple;  // no call edges, no token edges, not accepting: a plain byte DFA step
  // Byte transitions, kept twice: per state as a list of edges (CSR, for walks over a state's
  // edges), and packed into a comb (row displacement) table for O(1) lookup. Large grammars have
  // tens of thousands of states, most with one or two edges: a dense states x classes table
  // would be mostly empty, and fresh memory is slow to touch.
  // A wide row that mostly repeats the row of a looping state (the names of an object inside
  // the "any other key" automaton all fall back to its free state) stores only its differences
  // and names that state as its fallback; a difference may be an explicit dead edge.
  std::vector<uint32_t> edge_begin;  // CSR offsets into edges (size states + 1)
  std::vector<ByteEdge> edges;       // ascending class within a state; target kDeadState = explicitly dead
  std::vector<uint32_t> fallback;    // per state: the state whose row fills the classes not listed, or kDeadState
  std::vector<uint32_t> comb_base;   // per state: where its row starts in comb
  std::vector<CombSlot> comb;        // slot comb_base[s] + class belongs to s when its owner is s
  std::vector<uint32_t> call_begin;  // CSR offsets into calls (size states + 1)
  std::vector<CallEdge> calls;
  std::vector<uint32_t> tok_begin;  // CSR offsets into toks (size states + 1)
  std::vector<TokenEdge> toks;

  std::array<uint8_t, 256> byte_class{};
  uint32_t num_classes = 1;

  // Per automaton rule.
  std::vector<uint32_t> rule_start;
  std::vector<uint8_t> rule_nullable;
  std::vector<std::string> rule_names;
  std::vector<std::bitset<256>> follow1;  // bytes that can come right after the rule completes
  std::vector<TokenSetDef> token_sets;

  // Any-order objects.
  std::vector<KeySetSpec> key_sets;
  std::vector<int32_t> rule_key_set;  // per rule: index into key_sets, or -1
  std::vector<int32_t> key_member;    // per rule: declared key bit, kAdditionalKey, or kNotAKey
  // Per state: kCloseCheck on the accepting states of an object that may not always close,
  // kMoreCheck on states from which the object cannot close before another key (after a comma)
  // where another key may not always come; such states are never `simple`.
  std::vector<uint8_t> key_check;

  // Explanations only (never read on the mask path): the labelled rules each state is inside.
  std::vector<RuleOrigin> origins;
  std::vector<OriginNode> origin_nodes;
  std::vector<uint32_t> state_origin;  // per state: innermost OriginNode, or kNoOrigin

  // Augmented start: aug_start --root--> aug_accept. The language may end when (aug_accept, 0) is live.
  uint32_t aug_rule = 0, aug_start = 0, aug_accept = 0;

  uint32_t num_states() const { return static_cast<uint32_t>(state_rule.size()); }
  uint32_t next_class(uint32_t state, uint32_t cls) const {
    const CombSlot& slot = comb[comb_base[state] + cls];
    if (slot.owner == state) return slot.target;
    const uint32_t f = fallback[state];
    if (f == kDeadState) return kDeadState;
    const CombSlot& inherited = comb[comb_base[f] + cls];
    return inherited.owner == f ? inherited.target : kDeadState;
  }
  // Calls fn(cls, target) for every live byte transition of `state`, ascending class.
  template <typename Fn>
  void for_each_edge(uint32_t state, Fn&& fn) const {
    uint32_t i = edge_begin[state];
    const uint32_t e = edge_begin[state + 1];
    const uint32_t f = fallback[state];
    uint32_t j = f == kDeadState ? 0 : edge_begin[f];
    const uint32_t fe = f == kDeadState ? 0 : edge_begin[f + 1];
    while (i < e || j < fe) {
      if (j >= fe || (i < e && edges[i].cls <= edges[j].cls)) {
        if (j < fe && edges[j].cls == edges[i].cls) ++j;  // overridden
        if (edges[i].target != kDeadState) fn(edges[i].cls, edges[i].target);
        ++i;
      } else {
        if (edges[j].target != kDeadState) fn(edges[j].cls, edges[j].target);
        ++j;
      }
    }
  }
  uint32_t next(uint32_t state, uint8_t byte) const { return next_class(state, byte_class[byte]); }
  // A "key" state of an any-order object: right after a key's opening quote, where the only
  // moves are calls of key rules.
  bool key_start_state(uint32_t s) const {
    if (rule_key_set[state_rule[s]] < 0 || call_begin[s] == call_begin[s + 1] || edge_begin[s] != edge_begin[s + 1] ||
        fallback[s] != kDeadState || tok_begin[s] != tok_begin[s + 1])
      return false;
    for (uint32_t e = call_begin[s]; e < call_begin[s + 1]; ++e)
      if (key_member[calls[e].rule] == kNotAKey) return false;
    return true;
  }
  size_t memory_bytes() const;
};

// Throws GrammarError (TooLarge, EmptyLanguage, TooDeep).
GrammarAutomaton build_automaton(const Grammar& g, const AutomatonLimits& limits = {});

}  // namespace ninfer::grammar
