#include "grammar/earley_parser.h"

#include <algorithm>

namespace ninfer::grammar {

EarleyParser::EarleyParser(const GrammarAutomaton& a) : a_(a) {
  hkeys_.assign(64, 0);
  hgen_.assign(64, 0);
}

void EarleyParser::reset() {
  items_.clear();
  kernel_.clear();
  set_begin_.clear();
  root_completed_.clear();
  begin_set();
  add(a_.aug_start, 0, true);
  closure(0);
}

void EarleyParser::reset_local(uint32_t state) {
  items_.clear();
  kernel_.clear();
  set_begin_.clear();
  root_completed_.clear();
  begin_set();
  add(state, kRootOrigin, true);
  closure(0);
}

void EarleyParser::begin_set() {
  set_begin_.push_back(static_cast<uint32_t>(items_.size()));
  root_completed_.push_back(0);
  if (++gen_ == 0) {
    std::fill(hgen_.begin(), hgen_.end(), 0);
    gen_ = 1;
  }
}

void EarleyParser::grow_table() {
  size_t cap = hkeys_.size() * 2;
  hkeys_.assign(cap, 0);
  hgen_.assign(cap, 0);
  // Re-insert the items of the set under construction.
  ++gen_;
  if (gen_ == 0) gen_ = 1;
  const size_t mask = cap - 1;
  for (size_t i = set_begin_.back(); i < items_.size(); ++i) {
    uint64_t key = (uint64_t(items_[i].state) << 32) | items_[i].origin;
    size_t h = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
    while (hgen_[h] == gen_) h = (h + 1) & mask;
    hgen_[h] = gen_;
    hkeys_[h] = key;
  }
}

void EarleyParser::add(uint32_t state, uint32_t origin, bool kernel) {
  size_t count = items_.size() - set_begin_.back();
  if ((count + 1) * 2 > hkeys_.size()) grow_table();
  const uint64_t key = (uint64_t(state) << 32) | origin;
  const size_t mask = hkeys_.size() - 1;
  size_t h = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
  while (hgen_[h] == gen_) {
    if (hkeys_[h] == key) return;
    h = (h + 1) & mask;
  }
  hgen_[h] = gen_;
  hkeys_[h] = key;
  items_.push_back({state, origin});
  kernel_.push_back(kernel);
}

void EarleyParser::closure(size_t set) {
  const uint32_t cur = static_cast<uint32_t>(set);
  for (size_t idx = set_begin_[set]; idx < items_.size(); ++idx) {
    const EarleyItem it = items_[idx];
    const uint32_t s = it.state;
    if (a_.simple[s]) continue;
    if (a_.accepting[s]) {
      const uint32_t rule = a_.state_rule[s];
      if (it.origin == kRootOrigin) {
        root_completed_[set] = 1;
      } else {
        const size_t k = it.origin;
        const size_t end = k == set ? items_.size() : set_end(k);
        for (size_t j = set_begin_[k]; j < end; ++j) {
          const uint32_t ps = items_[j].state;
          for (uint32_t e = a_.call_begin[ps]; e < a_.call_begin[ps + 1]; ++e)
            if (a_.calls[e].rule == rule) add(a_.calls[e].target, items_[j].origin, k != set);
        }
      }
    }
    for (uint32_t e = a_.call_begin[s]; e < a_.call_begin[s + 1]; ++e) {
      const CallEdge ce = a_.calls[e];
      add(a_.rule_start[ce.rule], cur, false);
      if (a_.rule_nullable[ce.rule]) add(ce.target, it.origin, false);
    }
  }
}

bool EarleyParser::scan(uint8_t byte) {
  const size_t from = top();
  const size_t b = set_begin_[from], e = items_.size();
  const uint32_t cls = a_.byte_class[byte];
  begin_set();
  for (size_t i = b; i < e; ++i) {
    const uint32_t t = a_.next_class(items_[i].state, cls);
    if (t != kDeadState) add(t, items_[i].origin, true);
  }
  if (items_.size() == e) {
    set_begin_.pop_back();
    root_completed_.pop_back();
    return false;
  }
  closure(top());
  return true;
}

bool EarleyParser::scan_token(int32_t token, std::string_view bytes, bool bytes_path) {
  const size_t start_sets = num_sets();
  const size_t from = top();
  // Token edges of the current set that accept this token (rare: only grammars naming tokens).
  std::vector<EarleyItem> via_token;
  for (size_t i = set_begin_[from], e = set_end(from); i < e; ++i) {
    const uint32_t s = items_[i].state;
    for (uint32_t k = a_.tok_begin[s]; k < a_.tok_begin[s + 1]; ++k) {
      const TokenSetDef& d = a_.token_sets[a_.toks[k].token_set];
      bool named = std::binary_search(d.ids.begin(), d.ids.end(), token);
      // ExcludeToken admits only ordinary text tokens (bytes_path) outside its list.
      if (d.exclude ? (!named && bytes_path) : named) via_token.push_back({a_.toks[k].target, items_[i].origin});
    }
  }
  if (via_token.empty()) {
    if (!bytes_path || bytes.empty()) return false;
    for (unsigned char c : bytes) {
      if (!scan(c)) {
        pop_to(start_sets);
        return false;
      }
    }
    return true;
  }
  // Mixed: walk the byte path (empty sets allowed in the middle), then merge token-edge items
  // into the final position.
  const size_t len = bytes_path ? std::max<size_t>(bytes.size(), 1) : 1;
  bool alive = bytes_path && !bytes.empty();
  for (size_t i = 0; i + 1 < len; ++i) {
    if (alive && scan(static_cast<uint8_t>(bytes[i]))) continue;
    alive = false;
    begin_set();
  }
  const size_t prev = top();
  const size_t pb = set_begin_[prev], pe = items_.size();
  begin_set();
  if (alive) {
    const uint32_t cls = a_.byte_class[static_cast<uint8_t>(bytes.back())];
    for (size_t i = pb; i < pe; ++i) {
      const uint32_t t = a_.next_class(items_[i].state, cls);
      if (t != kDeadState) add(t, items_[i].origin, true);
    }
  }
  for (const auto& it : via_token) add(it.state, it.origin, true);
  closure(top());
  return true;
}

void EarleyParser::pop_to(size_t n) {
  if (n >= set_begin_.size()) return;
  items_.resize(set_begin_[n]);
  kernel_.resize(set_begin_[n]);
  set_begin_.resize(n);
  root_completed_.resize(n);
}

bool EarleyParser::can_end() const {
  const size_t t = top();
  for (size_t i = set_begin_[t], e = items_.size(); i < e; ++i)
    if (items_[i].state == a_.aug_accept && items_[i].origin == 0) return true;
  return false;
}

void EarleyParser::next_bytes(bool out[256]) const {
  for (int b = 0; b < 256; ++b) out[b] = false;
  const size_t t = top();
  for (size_t i = set_begin_[t], e = items_.size(); i < e; ++i) {
    const uint32_t s = items_[i].state;
    for (int b = 0; b < 256; ++b)
      if (!out[b] && a_.next(s, static_cast<uint8_t>(b)) != kDeadState) out[b] = true;
  }
}

size_t EarleyParser::memory_bytes() const {
  return items_.capacity() * sizeof(EarleyItem) + kernel_.capacity() + set_begin_.capacity() * 4 +
         root_completed_.capacity() + hkeys_.capacity() * 8 + hgen_.capacity() * 4;
}

}  // namespace ninfer::grammar
