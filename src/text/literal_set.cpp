// Incremental construction of a minimal acyclic automaton from sorted strings: each new string
// shares its prefix with the previous one; the previous string's states past that prefix can no
// longer change, so each is replaced by an equal registered state or registered itself.
#include "text/literal_set.h"

#include <algorithm>
#include <unordered_map>

#include "text/number_spellings.h"

namespace ninfer::text {
namespace {

class MinimalTrie {
 public:
  MinimalTrie() { root_ = new_state(); }

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
  std::unordered_map<std::string, uint32_t> register_;
  std::vector<uint32_t> path_;  // states along the previous string; path_[0] = root
  std::string previous_;
  uint32_t root_ = 0;

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

  std::string signature(uint32_t s) const {
    std::string sig(1, states_[s].accepting ? '1' : '0');
    for (const auto& [byte, target] : states_[s].edges) {
      sig.push_back(static_cast<char>(byte));
      sig.append(reinterpret_cast<const char*>(&target), sizeof target);
    }
    return sig;
  }

  // Replaces or registers the states of the previous string deeper than `depth`.
  void settle(size_t depth) {
    while (path_.size() > depth + 1) {
      const uint32_t child = path_.back();
      path_.pop_back();
      const uint32_t parent = path_.back();
      auto [it, fresh] = register_.try_emplace(signature(child), child);
      if (!fresh) {
        states_[parent].edges.back().second = it->second;
        free_.push_back(child);
      }
    }
  }
};

}  // namespace

std::shared_ptr<grammar::ByteAutomaton> LiteralSet::build() {
  auto a = std::make_shared<grammar::ByteAutomaton>();
  std::sort(strings_.begin(), strings_.end());
  strings_.erase(std::unique(strings_.begin(), strings_.end()), strings_.end());
  MinimalTrie trie;
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
