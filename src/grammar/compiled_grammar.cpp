#include "grammar/compiled_grammar.h"

#include <chrono>
#include <cstring>
#include <unordered_map>

#include "grammar/earley_parser.h"

namespace ninfer::grammar {

size_t CompiledGrammar::memory_bytes() const {
  size_t m = sizeof(*this) + automaton_.memory_bytes() + bitsets_.size() * 4 + token_set_masks_.size() * 4;
  for (const auto& s : states_) m += sizeof(StateTokens) + s.uncertain.size() * 4;
  return m;
}

namespace {

// States that can be the top of a parse without having been predicted there: targets of byte,
// call and token edges, plus the augmented start.
std::vector<uint8_t> kernel_states(const GrammarAutomaton& a) {
  std::vector<uint8_t> k(a.num_states(), 0);
  k[a.aug_start] = 1;
  for (uint32_t t : a.trans)
    if (t != kDeadState) k[t] = 1;
  for (const auto& c : a.calls) k[c.target] = 1;
  for (const auto& t : a.toks) k[t.target] = 1;
  return k;
}

// Walks the whole token trie from one DFA state with a local Earley parse (see the header).
void classify_state(const GrammarAutomaton& a, const TokenTrie& trie, uint32_t state, EarleyParser& parser,
                    std::vector<uint32_t>& accepted_words, uint32_t& accepted_count, std::vector<uint32_t>& uncertain,
                    std::vector<uint8_t>& unc_at) {
  const auto& follow = a.follow1[a.state_rule[state]];
  parser.reset_local(state);
  const uint32_t nodes = trie.num_nodes();
  accepted_count = 0;
  uint32_t n = 1;
  while (n < nodes) {
    const uint32_t d = trie.depth[n];
    parser.pop_to(d);
    const uint8_t byte = trie.byte[n];
    const bool u = unc_at[d - 1] || (parser.root_completed(d - 1) && follow.test(byte));
    if (parser.scan(byte)) {
      unc_at[d] = u;
      for (uint32_t i = trie.token_begin[n]; i < trie.token_begin[n + 1]; ++i) {
        const int32_t id = trie.ids[i];
        accepted_words[id >> 5] |= 1u << (id & 31);
        ++accepted_count;
      }
      ++n;
      continue;
    }
    const uint32_t end = trie.subtree_end[n];
    if (u) {
      for (uint32_t m = n; m < end; ++m)
        if (trie.token_begin[m] != trie.token_begin[m + 1]) uncertain.push_back(m);
    }
    n = end;
  }
}

}  // namespace

std::shared_ptr<const CompiledGrammar> compile(const Grammar& g, std::shared_ptr<const TokenDomain> domain,
                                               const CompileOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  auto cg = std::shared_ptr<CompiledGrammar>(new CompiledGrammar());
  cg->automaton_ = build_automaton(g, options.limits);
  auto t1 = std::chrono::steady_clock::now();
  cg->domain_ = domain;
  const GrammarAutomaton& a = cg->automaton_;
  const int32_t words = domain->mask_words();
  cg->words_ = words;

  // Token-set edges: validate ids against the domain and build their masks.
  for (const auto& ts : a.token_sets) {
    std::vector<uint32_t> m(words, 0);
    for (int32_t id : ts.ids) {
      if (id < 0 || id >= domain->size() || domain->token_class(id) == TokenClass::NotGenerable)
        throw GrammarError(GrammarErrorKind::UnknownToken,
                           "token id " + std::to_string(id) + " is not a generable token of this vocabulary",
                           ts.location);
      m[id >> 5] |= 1u << (id & 31);
    }
    if (ts.exclude) {
      const auto& normal = domain->normal_mask();
      for (int32_t w = 0; w < words; ++w) m[w] = normal[w] & ~m[w];
    }
    cg->token_set_masks_.insert(cg->token_set_masks_.end(), m.begin(), m.end());
  }

  // Classify tokens per kernel state; identical accepted sets share storage.
  const TokenTrie& trie = domain->trie();
  std::vector<uint8_t> kernel = kernel_states(a);
  cg->states_.resize(a.num_states());
  EarleyParser parser(a);
  std::vector<uint32_t> words_buf(words);
  std::vector<uint8_t> unc_at(65537, 0);
  std::unordered_map<uint64_t, std::vector<int32_t>> by_hash;
  for (uint32_t s = 0; s < a.num_states(); ++s) {
    if (!kernel[s]) continue;
    ++cg->stats_.kernel_states;
    std::fill(words_buf.begin(), words_buf.end(), 0);
    StateTokens& st = cg->states_[s];
    classify_state(a, trie, s, parser, words_buf, st.accepted_count, st.uncertain, unc_at);
    cg->stats_.uncertain_nodes += st.uncertain.size();
    if (st.accepted_count == 0) continue;
    uint64_t h = 1469598103934665603ull;
    for (uint32_t w : words_buf) h = (h ^ w) * 1099511628211ull;
    auto& candidates = by_hash[h];
    for (int32_t c : candidates)
      if (std::memcmp(cg->bitset(c), words_buf.data(), size_t(words) * 4) == 0) st.accepted = c;
    if (st.accepted < 0) {
      st.accepted = static_cast<int32_t>(cg->bitsets_.size() / words);
      cg->bitsets_.insert(cg->bitsets_.end(), words_buf.begin(), words_buf.end());
      candidates.push_back(st.accepted);
    }
  }
  auto t2 = std::chrono::steady_clock::now();
  cg->stats_.seconds = std::chrono::duration<double>(t2 - t0).count();
  cg->stats_.automaton_seconds = std::chrono::duration<double>(t1 - t0).count();
  cg->stats_.dfa_states = a.num_states();
  cg->stats_.rules = static_cast<uint32_t>(a.rule_start.size());
  cg->stats_.distinct_bitsets = static_cast<uint32_t>(cg->bitsets_.size() / std::max(words, 1));
  return cg;
}

}  // namespace ninfer::grammar
