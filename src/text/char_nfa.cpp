#include "text/char_nfa.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace ninfer::text {

void CharNfa::add_eps(uint32_t from, uint32_t to) {
  State& s = states[from];
  if (s.eps[0] == kNone) {
    s.eps[0] = to;
  } else if (s.eps[1] == kNone) {
    s.eps[1] = to;
  } else {
    throw std::logic_error("CharNfa: a state got a third epsilon move");
  }
}

namespace {

// Interns sorted sets of NFA states; all sets live in one pool to keep allocation flat.
class SetTable {
 public:
  // Returns the id of `s` and whether it was new.
  std::pair<uint32_t, bool> intern(const std::vector<uint32_t>& s) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t x : s) h = (h ^ x) * 1099511628211ull;
    auto it = head_.try_emplace(h, kNil).first;
    for (uint32_t id = it->second; id != kNil; id = chain_[id]) {
      if (begin_[id + 1] - begin_[id] == s.size() && std::equal(s.begin(), s.end(), pool_.begin() + begin_[id]))
        return {id, false};
    }
    const uint32_t id = static_cast<uint32_t>(begin_.size() - 1);
    pool_.insert(pool_.end(), s.begin(), s.end());
    begin_.push_back(pool_.size());
    chain_.push_back(it->second);
    it->second = id;
    return {id, true};
  }
  void copy(uint32_t id, std::vector<uint32_t>& out) const {
    out.assign(pool_.begin() + begin_[id], pool_.begin() + begin_[id + 1]);
  }
  size_t pooled() const { return pool_.size(); }

 private:
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  std::vector<uint32_t> pool_;
  std::vector<size_t> begin_{0};
  std::vector<uint32_t> chain_;
  std::unordered_map<uint64_t, uint32_t> head_;
};

struct Event {
  uint32_t pos;    // first code point where the change applies
  uint32_t group;  // members sharing one character set
  int32_t delta;   // +1 range starts, -1 range ended just before pos
};

struct Group {
  uint32_t set;
  std::vector<uint32_t> targets;  // NFA states entered on a character of the set
};

class Determinizer {
 public:
  Determinizer(const CharNfa& nfa, const AutomatonBudget& budget)
      : nfa_(nfa), budget_(budget), mark_(nfa.states.size(), 0), group_of_(nfa.sets.size(), CharNfa::kNone),
        count_(nfa.sets.size(), 0), active_flag_(nfa.sets.size(), 0) {}

  RangeDfa run() {
    dfa_.start = state_for({nfa_.start});
    std::vector<uint32_t> members, kernel;
    std::vector<Event> events;
    for (uint32_t d = 0; d < dfa_.num_states(); ++d) {
      closures_.copy(d, members);
      // Group the consuming members by character set: copies made by bounded repetition share
      // one set, so the sweep sorts a few boundaries instead of some per member.
      groups_.clear();
      for (uint32_t s : members) {
        const CharNfa::State& st = nfa_.states[s];
        if (st.set == CharNfa::kNone) continue;
        uint32_t& g = group_of_[st.set];
        if (g == CharNfa::kNone) {
          g = static_cast<uint32_t>(groups_.size());
          groups_.push_back({st.set, {}});
        }
        groups_[g].targets.push_back(st.next);
      }
      events.clear();
      for (uint32_t g = 0; g < groups_.size(); ++g) {
        group_of_[groups_[g].set] = CharNfa::kNone;
        for (const auto& r : nfa_.sets[groups_[g].set]) {
          events.push_back({r.lo, g, +1});
          events.push_back({r.hi + 1, g, -1});
        }
      }
      std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.pos < b.pos; });
      // Sweep: between two consecutive boundaries the set of active groups is constant.
      active_.clear();
      for (size_t i = 0; i < events.size();) {
        const uint32_t pos = events[i].pos;
        for (; i < events.size() && events[i].pos == pos; ++i) {
          const uint32_t g = events[i].group;
          count_[g] = static_cast<uint32_t>(static_cast<int64_t>(count_[g]) + events[i].delta);
          if (count_[g] > 0 && !active_flag_[g]) {
            active_flag_[g] = 1;
            active_.push_back(g);
          }
        }
        if (i == events.size()) break;
        const uint32_t stop = events[i].pos;  // segment [pos, stop)
        size_t k = 0;
        for (uint32_t g : active_) {
          if (count_[g] > 0) active_[k++] = g;
          else active_flag_[g] = 0;
        }
        active_.resize(k);
        if (active_.empty()) continue;
        kernel.clear();
        for (uint32_t g : active_) kernel.insert(kernel.end(), groups_[g].targets.begin(), groups_[g].targets.end());
        std::sort(kernel.begin(), kernel.end());
        kernel.erase(std::unique(kernel.begin(), kernel.end()), kernel.end());
        const uint32_t target = state_for(kernel);
        auto& out = dfa_.edges[d];
        if (!out.empty() && out.back().target == target && out.back().hi + 1 == pos) {
          out.back().hi = stop - 1;
        } else {
          out.push_back({pos, stop - 1, target});
        }
      }
      for (uint32_t g : active_) active_flag_[g] = 0;
    }
    return std::move(dfa_);
  }

 private:
  const CharNfa& nfa_;
  const AutomatonBudget& budget_;
  RangeDfa dfa_;
  SetTable closures_;                 // id == DFA state
  SetTable kernels_;                  // targets before the epsilon closure ...
  std::vector<uint32_t> kernel_dfa_;  // ... and the DFA state they lead to
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  std::vector<uint32_t> group_of_;  // set index -> group of the current DFA state
  std::vector<Group> groups_;
  std::vector<uint32_t> count_;  // per group: ranges covering the sweep position
  std::vector<uint8_t> active_flag_;
  std::vector<uint32_t> active_, stack_, closure_;

  void check_work() const {
    const uint64_t limit = uint64_t(budget_.max_states) * 128;
    if (closures_.pooled() + kernels_.pooled() > limit)
      throw AutomatonBudgetExceeded("determinisation would track more than " + std::to_string(limit) + " NFA states", "text.max_states", budget_.max_states);
  }

  // DFA state for the epsilon closure of `kernel` (sorted).
  uint32_t state_for(const std::vector<uint32_t>& kernel) {
    auto [kid, kfresh] = kernels_.intern(kernel);
    if (!kfresh) return kernel_dfa_[kid];
    // Closure restricted to the states that matter for the future: consuming or accepting ones.
    ++stamp_;
    closure_.clear();
    stack_ = kernel;
    bool universal = false;
    while (!stack_.empty()) {
      const uint32_t s = stack_.back();
      stack_.pop_back();
      if (mark_[s] == stamp_) continue;
      mark_[s] = stamp_;
      const CharNfa::State& st = nfa_.states[s];
      if (s == nfa_.universal) universal = true;
      if (st.set != CharNfa::kNone || s == nfa_.accept) closure_.push_back(s);
      for (uint32_t e : st.eps)
        if (e != CharNfa::kNone && mark_[e] != stamp_) stack_.push_back(e);
    }
    if (universal) closure_.assign(1, nfa_.universal);
    std::sort(closure_.begin(), closure_.end());
    auto [did, dfresh] = closures_.intern(closure_);
    if (dfresh) {
      const bool accept = universal || std::binary_search(closure_.begin(), closure_.end(), nfa_.accept);
      dfa_.add_state(accept);
      if (dfa_.num_states() > budget_.max_states)
        throw AutomatonBudgetExceeded("more than " + std::to_string(budget_.max_states) + " states", "text.max_states", budget_.max_states);
    }
    kernel_dfa_.push_back(did);
    check_work();
    return did;
  }
};

}  // namespace

RangeDfa determinize(const CharNfa& nfa, const AutomatonBudget& budget) { return Determinizer(nfa, budget).run(); }

}  // namespace ninfer::text
