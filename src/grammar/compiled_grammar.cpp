#include "grammar/compiled_grammar.h"

#include <chrono>
#include <cstring>
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "grammar/earley_parser.h"
#include "grammar/follow_automaton.h"

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

// Walks the whole token trie from one DFA state. While the local parse is a single item in a
// plain byte state it is a table lookup per trie node; otherwise a local Earley parse seeded with
// (state, root) runs. Bytes past the completion of the state's rule are followed through the
// FollowAutomaton: a token accepted locally is context-independent, a token whose only live
// paths run past the rule's end is context-dependent (verified at mask time), the rest is rejected.
struct TrieFrame {
  uint32_t dfa;           // DFA state in byte mode, or kDeadState
  uint32_t base;          // depth of the local parser's set 0 in Earley mode; kLocalDead when the local parse died
  uint32_t follow;        // FollowAutomaton set of continuations past the rule's end
  uint32_t completed_at;  // last depth where the rule completed on the local path (kNever if none)
};
constexpr uint32_t kLocalDead = 0xFFFFFFFFu;
constexpr uint32_t kNever = 0xFFFFFFFFu;

// Decides whether a byte string is accepted right after `rule` completes in *every* context:
// each place that calls the rule must consume it locally. Such tokens are context-independent
// although they run past the rule's end (e.g. whitespace after a JSON value).
class SuffixChecker {
 public:
  explicit SuffixChecker(const GrammarAutomaton& a) : a_(a), parser_(a), callers_(a.rule_start.size()) {
    for (uint32_t s = 0; s < a.num_states(); ++s)
      for (uint32_t e = a.call_begin[s]; e < a.call_begin[s + 1]; ++e) callers_[a.calls[e].rule].push_back(a.calls[e].target);
    for (auto& c : callers_) {
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
    }
  }

  bool accepted_everywhere(uint32_t rule, std::string_view suffix) {
    if (callers_[rule].empty() || suffix.empty()) return false;
    std::string key(reinterpret_cast<const char*>(&rule), sizeof rule);
    key.append(suffix);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    bool ok = true;
    for (uint32_t t : callers_[rule]) {
      parser_.reset_local(t);
      for (unsigned char c : suffix)
        if (!parser_.scan(c)) {
          ok = false;
          break;
        }
      if (!ok) break;
    }
    memo_.emplace(std::move(key), ok);
    return ok;
  }

 private:
  const GrammarAutomaton& a_;
  EarleyParser parser_;
  std::vector<std::vector<uint32_t>> callers_;
  std::unordered_map<std::string, bool> memo_;
};

void classify_state(const GrammarAutomaton& a, const TokenTrie& trie, uint32_t state, EarleyParser& parser,
                    FollowAutomaton& follow, SuffixChecker& suffixes, const TokenDomain& domain,
                    std::vector<TrieFrame>& frames, std::vector<uint32_t>& accepted_words,
                    uint32_t& accepted_count, std::vector<uint32_t>& uncertain) {
  const uint32_t rule = a.state_rule[state];
  const uint32_t after = follow.after_rule(rule);
  if (a.simple[state]) {
    frames[0] = {state, 0, FollowAutomaton::kEmpty, kNever};
  } else {
    parser.reset_local(state);
    const bool done = parser.root_completed(0);
    frames[0] = {kDeadState, 0, done ? after : FollowAutomaton::kEmpty, done ? 0 : kNever};
  }
  const uint32_t nodes = trie.num_nodes();
  accepted_count = 0;
  uint32_t n = 1;
  while (n < nodes) {
    const uint32_t d = trie.depth[n];
    const TrieFrame parent = frames[d - 1];
    const uint8_t byte = trie.byte[n];
    TrieFrame f{kDeadState, kLocalDead, FollowAutomaton::kEmpty, parent.completed_at};
    if (parent.dfa != kDeadState) {
      const uint32_t t = a.next(parent.dfa, byte);
      if (t != kDeadState) {
        if (a.simple[t]) {
          f = {t, 0, FollowAutomaton::kEmpty, parent.completed_at};
        } else {
          parser.reset_local(t);
          f.base = d;
          if (parser.root_completed(0)) f.follow = after, f.completed_at = d;
        }
      }
    } else if (parent.base != kLocalDead) {
      parser.pop_to(d - parent.base);
      if (parser.scan(byte)) {
        f.base = parent.base;
        if (parser.top_root_completed()) f.follow = after, f.completed_at = d;
      }
    }
    if (parent.follow != FollowAutomaton::kEmpty) f.follow = follow.unite(follow.step(parent.follow, byte), f.follow);
    const bool alive = f.dfa != kDeadState || f.base != kLocalDead;
    if (!alive && f.follow == FollowAutomaton::kEmpty) {
      n = trie.subtree_end[n];
      continue;
    }
    frames[d] = f;
    if (trie.token_begin[n] != trie.token_begin[n + 1]) {
      if (alive) {
        for (uint32_t i = trie.token_begin[n]; i < trie.token_begin[n + 1]; ++i) {
          const int32_t id = trie.ids[i];
          accepted_words[id >> 5] |= 1u << (id & 31);
          ++accepted_count;
        }
      } else {
        const std::string& bytes = domain.bytes(trie.ids[trie.token_begin[n]]);
        if (f.completed_at != kNever &&
            suffixes.accepted_everywhere(rule, std::string_view(bytes).substr(f.completed_at))) {
          for (uint32_t i = trie.token_begin[n]; i < trie.token_begin[n + 1]; ++i) {
            const int32_t id = trie.ids[i];
            accepted_words[id >> 5] |= 1u << (id & 31);
            ++accepted_count;
          }
        } else {
          uncertain.push_back(n);
        }
      }
    }
    ++n;
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
  FollowAutomaton follow(a);
  SuffixChecker suffixes(a);
  std::vector<TrieFrame> frames(65537);
  std::unordered_map<uint64_t, std::vector<int32_t>> by_hash;
  for (uint32_t s = 0; s < a.num_states(); ++s) {
    if (!kernel[s]) continue;
    ++cg->stats_.kernel_states;
    std::fill(words_buf.begin(), words_buf.end(), 0);
    StateTokens& st = cg->states_[s];
    classify_state(a, trie, s, parser, follow, suffixes, *domain, frames, words_buf, st.accepted_count, st.uncertain);
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
