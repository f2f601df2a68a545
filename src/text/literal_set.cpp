// Incremental construction of a minimal acyclic automaton from sorted strings: each new string
// shares its prefix with the previous one; the previous string's states past that prefix can no
// longer change, so each is replaced by an equal registered state or registered itself.
#include "text/literal_set.h"

#include <algorithm>
#include <unordered_set>

#include "ninfer/constraint_error.h"
#include "text/number_spellings.h"

namespace ninfer::text {
namespace {

class MinimalTrie {
 public:
  explicit MinimalTrie(uint32_t max_states) : max_states_(max_states) { root_ = new_state(); }

  void insert(std::string_view word) {
    size_t common = 0;
    while (common < word.size() && common < previous_.size() && word[common] == previous_[common]) ++common;
    settle(common);
    uint32_t cur = path_[common];
    for (size_t i = common; i < word.size(); ++i) {
      const uint32_t next = new_state();
      states_[cur].edges.push_back({static_cast<uint8_t>(word[i]), next});
      path_.push_back(next);
      cur = next;
    }
    states_[cur].accepting = true;
    previous_.assign(word.begin(), word.end());
  }

  // Settles the last string and copies the reachable states into `out` (root = out.start).
  void finish(grammar::ByteAutomaton& out) {
    settle(0);
    const uint32_t base = out.num_states();
    std::vector<uint32_t> id(states_.size(), UINT32_MAX);
    std::vector<uint32_t> order{root_};
    id[root_] = base;
    for (size_t i = 0; i < order.size(); ++i)
      for (const auto& [byte, target] : states_[order[i]].edges)
        if (id[target] == UINT32_MAX) {
          id[target] = base + static_cast<uint32_t>(order.size());
          order.push_back(target);
        }
    out.start = base;
    for (uint32_t s : order) {
      out.accepting.push_back(states_[s].accepting ? 1 : 0);
      auto& edges = out.edges.emplace_back();
      for (const auto& [byte, target] : states_[s].edges) edges.push_back({byte, byte, id[target]});
    }
  }

 private:
  struct State {
    std::vector<std::pair<uint8_t, uint32_t>> edges;  // ascending bytes (sorted input)
    bool accepting = false;
  };
  std::vector<State> states_;
  std::vector<uint32_t> free_;
  // Settled states by content (accepting flag and edges): hashed and compared in place, so that
  // registering a state allocates nothing.
  struct ContentHash {
    const MinimalTrie* trie;
    size_t operator()(uint32_t s) const {
      const State& st = trie->states_[s];
      uint64_t h = st.accepting ? 0x9e3779b97f4a7c15ull : 0x632be59bd9b4e019ull;
      for (const auto& [byte, target] : st.edges) h = (h ^ (uint64_t(byte) << 32 | target)) * 0x100000001b3ull;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  struct ContentEqual {
    const MinimalTrie* trie;
    bool operator()(uint32_t a, uint32_t b) const {
      const State& x = trie->states_[a];
      const State& y = trie->states_[b];
      return x.accepting == y.accepting && x.edges == y.edges;
    }
  };
  std::unordered_set<uint32_t, ContentHash, ContentEqual> register_{64, ContentHash{this}, ContentEqual{this}};
  std::vector<uint32_t> path_;  // states along the previous string; path_[0] = root
  std::string previous_;
  uint32_t root_ = 0;
  uint32_t max_states_;

  uint32_t new_state() {
    uint32_t s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
      states_[s] = State{};
    } else {
      s = static_cast<uint32_t>(states_.size());
      states_.emplace_back();
    }
    if (path_.empty()) path_.push_back(s);
    return s;
  }

  // Replaces or registers the states of the previous string deeper than `depth`.
  void settle(size_t depth) {
    while (path_.size() > depth + 1) {
      const uint32_t child = path_.back();
      path_.pop_back();
      const uint32_t parent = path_.back();
      auto [it, fresh] = register_.insert(child);
      if (!fresh) {
        states_[parent].edges.back().second = *it;
        free_.push_back(child);
      } else if (register_.size() > max_states_) {
        throw limit_exceeded("automaton.max_dfa_states", max_states_, "the automaton of a set of literals");
      }
    }
  }
};

}  // namespace

std::shared_ptr<grammar::ByteAutomaton> LiteralSet::build(uint32_t max_states) {
  auto a = std::make_shared<grammar::ByteAutomaton>();
  std::sort(strings_.begin(), strings_.end());
  strings_.erase(std::unique(strings_.begin(), strings_.end()), strings_.end());
  MinimalTrie trie(max_states);
  for (const auto& s : strings_) trie.insert(s);
  trie.finish(*a);
  std::sort(numbers_.begin(), numbers_.end());
  numbers_.erase(std::unique(numbers_.begin(), numbers_.end()), numbers_.end());
  NumberSpellings spellings(*a);
  const int shift = numbers_.size() > kLargeNumberSet ? 0 : kSpellingShift;
  for (const auto& n : numbers_) spellings.add(a->start, n, shift);
  return a;
}

}  // namespace ninfer::text
