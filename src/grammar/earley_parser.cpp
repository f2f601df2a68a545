#include "grammar/earley_parser.h"

#include <algorithm>

namespace ninfer::grammar {

EarleyParser::EarleyParser(const GrammarAutomaton& a) : a_(a), key_sets_(a) {
  hidx_.assign(64, 0);
  hgen_.assign(64, 0);
}

void EarleyParser::reset() {
  items_.clear();
  kernel_.clear();
  set_begin_.clear();
  root_completed_.clear();
  set_taints_.clear();
  begin_set();
  add(a_.aug_start, 0, 0, true);
  closure(0);
}

void EarleyParser::reset_local(uint32_t state, bool entered) {
  items_.clear();
  kernel_.clear();
  set_begin_.clear();
  root_completed_.clear();
  set_taints_.clear();
  begin_set();
  // An item of an any-order object starts with unknown keys. A kernel state's own check has
  // passed already (the item exists); a state entered by the local parse is checked.
  const uint32_t ctx = a_.rule_key_set[a_.state_rule[state]] >= 0 ? kUnknownKeys : 0;
  if (entered) add(state, kRootOrigin, ctx, true);
  else insert(state, kRootOrigin, ctx, true);
  closure(0);
}

void EarleyParser::begin_set() {
  set_begin_.push_back(static_cast<uint32_t>(items_.size()));
  root_completed_.push_back(0);
  set_taints_.push_back(0);
  if (++gen_ == 0) {
    std::fill(hgen_.begin(), hgen_.end(), 0);
    gen_ = 1;
  }
}

void EarleyParser::pop_set() {
  set_begin_.pop_back();
  root_completed_.pop_back();
  set_taints_.pop_back();
}

namespace {
inline size_t item_hash(uint32_t state, uint32_t origin, uint32_t ctx) {
  const uint64_t k = ((uint64_t(state) << 32) | origin) * 0x9E3779B97F4A7C15ull ^ (uint64_t(ctx) * 0xC2B2AE3D27D4EB4Full);
  return static_cast<size_t>(k >> 20);
}
}  // namespace

void EarleyParser::insert_hash(uint32_t idx) {
  const size_t mask = hidx_.size() - 1;
  const EarleyItem& it = items_[idx];
  size_t h = item_hash(it.state, it.origin, it.ctx) & mask;
  while (hgen_[h] == gen_) h = (h + 1) & mask;
  hgen_[h] = gen_;
  hidx_[h] = idx;
}

void EarleyParser::grow_table() {
  size_t cap = hidx_.size() * 2;
  hidx_.assign(cap, 0);
  hgen_.assign(cap, 0);
  // Re-insert the items of the set under construction.
  ++gen_;
  if (gen_ == 0) gen_ = 1;
  for (size_t i = set_begin_.back(); i < items_.size(); ++i) insert_hash(static_cast<uint32_t>(i));
}

void EarleyParser::add(uint32_t state, uint32_t origin, uint32_t ctx, bool kernel) {
  const uint8_t check = a_.key_check[state];
  if (check != kNoKeyCheck) {
    if (ctx & kUnknownKeys) {
      ctx |= check == kCloseCheck ? kTaintClose : kTaintMore;
    } else {
      const uint32_t keys = ctx_keys(ctx);
      if (keys == KeySetTable::kNone) return;
      if (!(check == kCloseCheck ? key_sets_.may_close(keys) : key_sets_.may_continue(keys))) return;
    }
  }
  insert(state, origin, ctx, kernel);
}

void EarleyParser::insert(uint32_t state, uint32_t origin, uint32_t ctx, bool kernel) {
  size_t count = items_.size() - set_begin_.back();
  if ((count + 1) * 2 > hidx_.size()) grow_table();
  const size_t mask = hidx_.size() - 1;
  size_t h = item_hash(state, origin, ctx) & mask;
  while (hgen_[h] == gen_) {
    const EarleyItem& o = items_[hidx_[h]];
    if (o.state == state && o.origin == origin && o.ctx == ctx) return;
    h = (h + 1) & mask;
  }
  hgen_[h] = gen_;
  hidx_[h] = static_cast<uint32_t>(items_.size());
  items_.push_back({state, origin, ctx});
  kernel_.push_back(kernel);
  set_taints_.back() |= static_cast<uint16_t>(1u << ctx_taint(ctx));
}

uint32_t EarleyParser::predicted(uint32_t caller_state, uint32_t ctx, uint32_t rule) {
  uint32_t p = ctx_taint(ctx);  // the prediction holds under the caller's assumptions
  const int32_t member = a_.key_member[rule];
  if (member != kNotAKey) {
    const int32_t ks = a_.rule_key_set[a_.state_rule[caller_state]];
    if (ks >= 0) {
      if (ctx & kUnknownKeys) {
        // Undeclared names under a maximum may start while a member still fits: a condition of
        // its own (the names are most of the vocabulary).
        if (!a_.key_sets[ks].start_static(member)) p |= member == kAdditionalKey ? kTaintName : kTaintOther;
      } else if (key_sets_.with(ctx_keys(ctx), member) == KeySetTable::kNone) {
        return kRejected;
      }
    }
  }
  const int32_t own = a_.rule_key_set[rule];
  if (own >= 0) p |= key_sets_.empty_set(static_cast<uint32_t>(own)) << kCtxShift;
  return p;
}

uint32_t EarleyParser::after_call(uint32_t caller_state, uint32_t caller_ctx, uint32_t rule, uint32_t callee_ctx) {
  uint32_t c = caller_ctx | ctx_taint(callee_ctx);
  const int32_t member = a_.key_member[rule];
  if (member == kNotAKey) return c;
  const int32_t ks = a_.rule_key_set[a_.state_rule[caller_state]];
  if (ks < 0) return c;
  if (caller_ctx & kUnknownKeys) {
    if (!(member == kAdditionalKey && a_.key_sets[ks].name_end_static())) c |= kTaintOther;
    return c;
  }
  const uint32_t next = key_sets_.with(ctx_keys(caller_ctx), member);
  if (next == KeySetTable::kNone) return kRejected;
  return (next << kCtxShift) | ctx_taint(c);
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
        root_completed_[set] |= static_cast<uint16_t>(1u << ctx_taint(it.ctx));
      } else {
        const size_t k = it.origin;
        const size_t end = k == set ? items_.size() : set_end(k);
        for (size_t j = set_begin_[k]; j < end; ++j) {
          const uint32_t ps = items_[j].state;
          for (uint32_t e = a_.call_begin[ps]; e < a_.call_begin[ps + 1]; ++e)
            if (a_.calls[e].rule == rule) {
              const uint32_t c = after_call(ps, items_[j].ctx, rule, it.ctx);
              if (c != kRejected) add(a_.calls[e].target, items_[j].origin, c, k != set);
            }
        }
      }
    }
    for (uint32_t e = a_.call_begin[s]; e < a_.call_begin[s + 1]; ++e) {
      const CallEdge ce = a_.calls[e];
      const uint32_t p = predicted(s, it.ctx, ce.rule);
      if (p == kRejected) continue;
      add(a_.rule_start[ce.rule], cur, p, false);
      if (a_.rule_nullable[ce.rule]) {
        const uint32_t c = after_call(s, it.ctx, ce.rule, p & kTaintMask);
        if (c != kRejected) add(ce.target, it.origin, c, false);
      }
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
    if (t != kDeadState) add(t, items_[i].origin, items_[i].ctx, true);
  }
  if (items_.size() == e) {
    pop_set();
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
      if (d.exclude ? (!named && bytes_path) : named)
        via_token.push_back({a_.toks[k].target, items_[i].origin, items_[i].ctx});
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
      if (t != kDeadState) add(t, items_[i].origin, items_[i].ctx, true);
    }
  }
  for (const auto& it : via_token) add(it.state, it.origin, it.ctx, true);
  closure(top());
  return true;
}

void EarleyParser::pop_to(size_t n) {
  if (n >= set_begin_.size()) return;
  items_.resize(set_begin_[n]);
  kernel_.resize(set_begin_[n]);
  set_begin_.resize(n);
  root_completed_.resize(n);
  set_taints_.resize(n);
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
         root_completed_.capacity() * 2 + set_taints_.capacity() * 2 + hidx_.capacity() * 4 + hgen_.capacity() * 4 +
         key_sets_.memory_bytes();
}

}  // namespace ninfer::grammar
