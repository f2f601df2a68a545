#include "grammar/follow_automaton.h"

#include <algorithm>

namespace ninfer::grammar {

FollowAutomaton::FollowAutomaton(const GrammarAutomaton& a) : a_(a) {
  callers_.resize(a.rule_start.size());
  for (uint32_t s = 0; s < a.num_states(); ++s)
    for (uint32_t e = a.call_begin[s]; e < a.call_begin[s + 1]; ++e) callers_[a.calls[e].rule].push_back(a.calls[e].target);
  for (auto& c : callers_) {
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
  mark_.assign(a.num_states(), 0);
  sets_.push_back({});  // kEmpty
  sets_.push_back({});  // kAny (its contents are never read)
  trans_.assign(2 * size_t(a.num_classes), UINT32_MAX);
  for (uint32_t c = 0; c < a.num_classes; ++c) {
    trans_[c] = kEmpty;
    trans_[a.num_classes + c] = kAny;
  }
  after_rule_.assign(a.rule_start.size(), UINT32_MAX);
}

uint32_t FollowAutomaton::intern(std::vector<uint32_t> states) {
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  std::vector<uint32_t> out;
  for (uint32_t s : states)
    if (mark_[s] != stamp_) mark_[s] = stamp_, out.push_back(s);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint32_t s = out[i];
    if (a_.tok_begin[s] != a_.tok_begin[s + 1]) return kAny;
    auto push = [&](uint32_t t) {
      if (mark_[t] != stamp_) mark_[t] = stamp_, out.push_back(t);
    };
    if (a_.accepting[s])
      for (uint32_t t : callers_[a_.state_rule[s]]) push(t);
    for (uint32_t e = a_.call_begin[s]; e < a_.call_begin[s + 1]; ++e) {
      push(a_.rule_start[a_.calls[e].rule]);
      if (a_.rule_nullable[a_.calls[e].rule]) push(a_.calls[e].target);
    }
  }
  if (out.empty()) return kEmpty;
  std::sort(out.begin(), out.end());
  uint64_t h = 1469598103934665603ull;
  for (uint32_t s : out) h = (h ^ s) * 1099511628211ull;
  auto& bucket = by_hash_[h];
  for (uint32_t id : bucket)
    if (sets_[id] == out) return id;
  const uint32_t id = static_cast<uint32_t>(sets_.size());
  sets_.push_back(std::move(out));
  trans_.resize(trans_.size() + a_.num_classes, UINT32_MAX);
  bucket.push_back(id);
  return id;
}

uint32_t FollowAutomaton::after_rule(uint32_t rule) {
  if (after_rule_[rule] == UINT32_MAX) after_rule_[rule] = intern(callers_[rule]);
  return after_rule_[rule];
}

uint32_t FollowAutomaton::step(uint32_t set, uint8_t byte) {
  const uint32_t cls = a_.byte_class[byte];
  uint32_t& cached = trans_[size_t(set) * a_.num_classes + cls];
  if (cached != UINT32_MAX) return cached;
  std::vector<uint32_t> next;
  for (uint32_t s : sets_[set]) {
    const uint32_t t = a_.next_class(s, cls);
    if (t != kDeadState) next.push_back(t);
  }
  const uint32_t id = intern(std::move(next));
  trans_[size_t(set) * a_.num_classes + cls] = id;  // re-index: intern may have grown trans_
  return id;
}

uint32_t FollowAutomaton::unite(uint32_t x, uint32_t y) {
  if (x == y || y == kEmpty) return x;
  if (x == kEmpty) return y;
  if (x == kAny || y == kAny) return kAny;
  if (x > y) std::swap(x, y);
  const uint64_t key = (uint64_t(x) << 32) | y;
  auto it = unions_.find(key);
  if (it != unions_.end()) return it->second;
  std::vector<uint32_t> u = sets_[x];
  u.insert(u.end(), sets_[y].begin(), sets_[y].end());
  const uint32_t id = intern(std::move(u));
  unions_.emplace(key, id);
  return id;
}

}  // namespace ninfer::grammar
