#include "grammar/matcher.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ninfer::grammar {

Matcher::Matcher(std::shared_ptr<const CompiledGrammar> grammar)
    : grammar_(std::move(grammar)), parser_(grammar_->automaton()) {
  parser_.reset();
}

bool Matcher::can_end() const { return !terminated_ && parser_.can_end(); }

bool Matcher::accept_token(int32_t id) {
  const TokenDomain& d = grammar_->domain();
  if (terminated_ || id < 0 || id >= d.size()) return false;
  if (d.is_eos(id)) {
    if (!parser_.can_end()) return false;
    terminated_ = true;
    terminated_step_ = step_sets_.size();
    push_step();
    return true;
  }
  const TokenClass cls = d.token_class(id);
  if (cls == TokenClass::NotGenerable) return false;
  if (!parser_.scan_token(id, d.bytes(id), cls == TokenClass::Normal)) return false;
  push_step();
  return true;
}

bool Matcher::accept_bytes(std::string_view bytes) {
  if (terminated_) return false;
  const size_t start = parser_.num_sets();
  for (unsigned char c : bytes) {
    if (!parser_.scan(c)) {
      parser_.pop_to(start);
      return false;
    }
  }
  push_step();
  return true;
}

void Matcher::rollback_steps(size_t n) {
  n = std::min(n, step_sets_.size());
  rollback({step_sets_.size() - n});
}

void Matcher::rollback(Checkpoint cp) {
  if (cp.steps >= step_sets_.size()) return;
  if (terminated_ && terminated_step_ >= cp.steps) terminated_ = false;
  step_sets_.resize(cp.steps);
  parser_.pop_to(cp.steps == 0 ? 1 : step_sets_.back());
}

bool Matcher::preview(std::span<const int32_t> tokens) {
  if (preview_open_) throw std::logic_error("matcher: preview while another preview is open");
  preview_mark_ = mark();
  for (int32_t t : tokens) {
    if (!accept_token(t)) {
      rollback(preview_mark_);
      return false;
    }
  }
  preview_open_ = true;
  return true;
}

void Matcher::discard() {
  if (!preview_open_) return;
  rollback(preview_mark_);
  preview_open_ = false;
}

std::string Matcher::forced_bytes(size_t max_bytes) {
  std::string out;
  if (terminated_) return out;
  const size_t start = parser_.num_sets();
  const GrammarAutomaton& a = grammar_->automaton();
  bool next[256];
  while (out.size() < max_bytes && !parser_.can_end()) {
    // A whole-token edge is a choice the bytes cannot express.
    bool token_edge = false;
    for (size_t i = parser_.set_begin(parser_.top()), e = parser_.set_end(parser_.top()); i < e && !token_edge; ++i) {
      uint32_t s = parser_.item(i).state;
      token_edge = a.tok_begin[s] != a.tok_begin[s + 1];
    }
    if (token_edge) break;
    parser_.next_bytes(next);
    int only = -1, count = 0;
    for (int b = 0; b < 256 && count < 2; ++b)
      if (next[b]) only = b, ++count;
    if (count != 1) break;
    // The automaton's only byte may still be refused (an any-order object that may not close).
    if (!parser_.scan(static_cast<uint8_t>(only))) break;
    out.push_back(static_cast<char>(only));
  }
  parser_.pop_to(start);
  return out;
}

void Matcher::fill_mask(uint32_t* words) {
  if (preview_open_) throw std::logic_error("matcher: mask requested while a preview is open");
  const int32_t nw = grammar_->words();
  if (terminated_) {
    std::memset(words, 0, size_t(nw) * 4);
    return;
  }
  const GrammarAutomaton& a = grammar_->automaton();
  const size_t top = parser_.top();
  const size_t b = parser_.set_begin(top), e = parser_.set_end(top);

  // Distinct kernel states of the top set.
  kernel_scratch_.clear();
  bool token_edges = false;
  for (size_t i = b; i < e; ++i) {
    const uint32_t s = parser_.item(i).state;
    token_edges |= a.tok_begin[s] != a.tok_begin[s + 1];
    if (parser_.kernel(i) && std::find(kernel_scratch_.begin(), kernel_scratch_.end(), s) == kernel_scratch_.end())
      kernel_scratch_.push_back(s);
  }
  bool first = true;
  for (uint32_t s : kernel_scratch_) {
    const StateTokens& st = grammar_->state_tokens(s);
    if (!st.accepted) continue;
    const uint32_t* src = st.accepted;
    if (first) {
      std::memcpy(words, src, size_t(nw) * 4);
      first = false;
    } else {
      for (int32_t w = 0; w < nw; ++w) words[w] |= src[w];
    }
  }
  if (first) std::memset(words, 0, size_t(nw) * 4);
  add_conditional(b, e, words);

  // Context-dependent tokens: merge the states' node lists (ascending preorder) and verify.
  const std::vector<uint32_t>* nodes = nullptr;
  size_t with_uncertain = 0;
  for (uint32_t s : kernel_scratch_)
    if (!grammar_->state_tokens(s).uncertain.empty()) {
      ++with_uncertain;
      nodes = &grammar_->state_tokens(s).uncertain;
    }
  if (with_uncertain > 1) {
    nodes_scratch_.clear();
    for (uint32_t s : kernel_scratch_) {
      const auto& u = grammar_->state_tokens(s).uncertain;
      nodes_scratch_.insert(nodes_scratch_.end(), u.begin(), u.end());
    }
    std::sort(nodes_scratch_.begin(), nodes_scratch_.end());
    nodes_scratch_.erase(std::unique(nodes_scratch_.begin(), nodes_scratch_.end()), nodes_scratch_.end());
    nodes = &nodes_scratch_;
  }
  if (nodes) verify_uncertain(*nodes, words);

  if (token_edges) {
    for (size_t i = b; i < e; ++i) {
      const uint32_t s = parser_.item(i).state;
      for (uint32_t k = a.tok_begin[s]; k < a.tok_begin[s + 1]; ++k) {
        const uint32_t* m = grammar_->token_set_mask(a.toks[k].token_set);
        for (int32_t w = 0; w < nw; ++w) words[w] |= m[w];
      }
    }
    // EOS is completion control: a token edge never admits it.
    for (int32_t id : grammar_->domain().eos_ids()) words[id >> 5] &= ~(1u << (id & 31));
  }
  if (parser_.can_end())
    for (int32_t id : grammar_->domain().eos_ids()) words[id >> 5] |= 1u << (id & 31);
}

void Matcher::add_conditional(size_t b, size_t e, uint32_t* words) {
  const GrammarAutomaton& a = grammar_->automaton();
  if (a.key_sets.empty()) return;  // no any-order object: no conditional tokens
  KeySetTable& sets = parser_.key_sets();
  const int32_t nw = grammar_->words();
  auto set_all = [&](const uint32_t* bits) {
    if (bits)
      for (int32_t w = 0; w < nw; ++w) words[w] |= bits[w];
  };
  for (size_t i = b; i < e; ++i) {
    if (!parser_.kernel(i)) continue;
    const EarleyItem it = parser_.item(i);
    const StateTokens& st = grammar_->state_tokens(it.state);
    if (!st.has_cond) continue;
    const uint32_t keys = ctx_keys(it.ctx);
    if (keys != KeySetTable::kNone) {
      if (sets.may_close(keys)) set_all(st.cond[kOwnClose]);
      if (sets.may_continue(keys)) set_all(st.cond[kOwnMore]);
      if (sets.may_name(keys)) set_all(st.cond[kOwnName]);
    }
    if (!st.cond[kCallerClose] && !st.cond[kCallerMore]) continue;
    if (it.origin == EarleyParser::kRootOrigin) continue;
    // The items that called this item's rule: an object's keys, once the call returns (a member
    // rule adds its key), decide; any other caller accepts.
    bool close = false, more = false;
    const uint32_t rule = a.state_rule[it.state];
    const int32_t member = a.key_member[rule];
    for (size_t j = parser_.set_begin(it.origin), je = parser_.set_end(it.origin); j < je && !(close && more); ++j) {
      const EarleyItem& c = parser_.item(j);
      bool calls = false;
      for (uint32_t k = a.call_begin[c.state]; k < a.call_begin[c.state + 1] && !calls; ++k) calls = a.calls[k].rule == rule;
      if (!calls) continue;
      if (a.rule_key_set[a.state_rule[c.state]] < 0) {
        close = more = true;
        continue;
      }
      uint32_t ck = ctx_keys(c.ctx);
      if (member != kNotAKey && ck != KeySetTable::kNone) ck = sets.with(ck, member);
      if (ck == KeySetTable::kNone) continue;
      close |= sets.may_close(ck);
      more |= sets.may_continue(ck);
    }
    if (close) set_all(st.cond[kCallerClose]);
    if (more) set_all(st.cond[kCallerMore]);
  }
}

void Matcher::verify_uncertain(const std::vector<uint32_t>& nodes, uint32_t* words) {
  const TokenDomain& d = grammar_->domain();
  const TokenTrie& trie = d.trie();
  const size_t base = parser_.num_sets();
  const std::string* prev = nullptr;
  size_t alive = 0;     // bytes of `prev` successfully scanned (sets above base)
  size_t dead_len = 0;  // prev's first dead_len bytes are a dead prefix (0: none)
  for (uint32_t node : nodes) {
    const uint32_t tb = trie.token_begin[node], te = trie.token_begin[node + 1];
    const int32_t first_id = trie.ids[tb];
    if (words[first_id >> 5] >> (first_id & 31) & 1u) continue;  // already allowed context-independently
    const std::string& s = d.bytes(first_id);
    size_t lcp = 0;
    if (prev) {
      const size_t m = std::min(prev->size(), s.size());
      while (lcp < m && (*prev)[lcp] == s[lcp]) ++lcp;
    }
    if (dead_len && lcp >= dead_len) continue;  // shares a dead prefix
    size_t keep = std::min(lcp, alive);
    parser_.pop_to(base + keep);
    size_t i = keep;
    while (i < s.size() && parser_.scan(static_cast<uint8_t>(s[i]))) ++i;
    prev = &s;
    alive = i;
    if (i == s.size()) {
      dead_len = 0;
      for (uint32_t k = tb; k < te; ++k) words[trie.ids[k] >> 5] |= 1u << (trie.ids[k] & 31);
    } else {
      dead_len = i + 1;
    }
  }
  parser_.pop_to(base);
}

bool Matcher::is_allowed(int32_t id) {
  const TokenDomain& d = grammar_->domain();
  if (terminated_ || id < 0 || id >= d.size()) return false;
  if (d.is_eos(id)) return parser_.can_end();
  const TokenClass cls = d.token_class(id);
  if (cls == TokenClass::NotGenerable) return false;
  const size_t start = parser_.num_sets();
  bool ok = parser_.scan_token(id, d.bytes(id), cls == TokenClass::Normal);
  parser_.pop_to(start);
  return ok;
}

size_t Matcher::memory_bytes() const {
  return sizeof(*this) + parser_.memory_bytes() + step_sets_.capacity() * 4 + kernel_scratch_.capacity() * 4 +
         nodes_scratch_.capacity() * 4;
}

}  // namespace ninfer::grammar
