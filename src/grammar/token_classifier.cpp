// Classification of tokens per DFA state (see token_classifier.h).
#include "grammar/token_classifier.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ninfer::grammar {
namespace {
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
  explicit SuffixChecker(const GrammarAutomaton& a) : parser_(a), callers_(a.rule_start.size()) {
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
          // Recorded as a node of the domain's full trie (the walk may be over a slice's trie).
          uncertain.push_back(static_cast<uint32_t>(domain.trie().node_of_token[trie.ids[trie.token_begin[n]]]));
        }
      }
    }
    ++n;
  }
}

// True when every string of whole JSON-string-safe characters (the TokenDomain slice) keeps the
// DFA path from `state` alive: then every token of the slice is accepted from `state` and the
// trie walk only needs the other tokens. A product search over (DFA state, UTF-8 position).
// `max_chars` = 0: every length; otherwise only strings of at most that many characters.
bool absorbs_string_safe(const GrammarAutomaton& a, uint32_t state, uint32_t max_chars = 0) {
  // UTF-8 positions: 0 boundary, 1..3 continuation bytes left, 4 after E0, 5 after ED, 6 after F0, 7 after F4.
  auto next_pos = [](uint32_t pos, int b) -> int {
    switch (pos) {
      case 0:
        if (b < 0x20 || b == '"' || b == '\\') return -1;
        if (b < 0x80) return 0;
        if (b >= 0xC2 && b <= 0xDF) return 1;
        if (b == 0xE0) return 4;
        if (b == 0xED) return 5;
        if (b >= 0xE1 && b <= 0xEF) return 2;
        if (b == 0xF0) return 6;
        if (b >= 0xF1 && b <= 0xF3) return 3;
        if (b == 0xF4) return 7;
        return -1;
      case 1: return b >= 0x80 && b <= 0xBF ? 0 : -1;
      case 2: return b >= 0x80 && b <= 0xBF ? 1 : -1;
      case 3: return b >= 0x80 && b <= 0xBF ? 2 : -1;
      case 4: return b >= 0xA0 && b <= 0xBF ? 1 : -1;
      case 5: return b >= 0x80 && b <= 0x9F ? 1 : -1;
      case 6: return b >= 0x90 && b <= 0xBF ? 2 : -1;
      case 7: return b >= 0x80 && b <= 0x8F ? 2 : -1;
    }
    return -1;
  };
  // Key: DFA state, UTF-8 position, characters completed so far (only counted when bounded).
  auto key_of = [](uint64_t q, uint64_t pos, uint64_t chars) { return (q << 13) | (chars << 3) | pos; };
  std::vector<uint64_t> stack{key_of(state, 0, 0)};
  std::unordered_map<uint64_t, bool> seen{{stack[0], true}};
  while (!stack.empty()) {
    const uint64_t key = stack.back();
    stack.pop_back();
    const uint32_t q = static_cast<uint32_t>(key >> 13), pos = static_cast<uint32_t>(key & 7);
    const uint32_t chars = static_cast<uint32_t>((key >> 3) & 1023);
    if (max_chars && pos == 0 && chars == max_chars) continue;  // longer strings are not claimed
    for (int b = 0; b < 256; ++b) {
      const int np = next_pos(pos, b);
      if (np < 0) continue;
      const uint32_t t = a.next(q, static_cast<uint8_t>(b));
      if (t == kDeadState) return false;
      const uint32_t nchars = max_chars && np == 0 ? chars + 1 : chars;
      const uint64_t nk = key_of(t, static_cast<uint64_t>(np), nchars);
      if (seen.emplace(nk, true).second) {
        if (seen.size() > 4096) return false;  // large regions: not worth proving
        stack.push_back(nk);
      }
    }
  }
  return true;
}

}  // namespace

struct TokenClassifier::Impl {
  Impl(const GrammarAutomaton& a, const TokenDomain& d) : a(a), d(d), parser(a), follow(a), suffixes(a), frames(65537) {}
  const GrammarAutomaton& a;
  const TokenDomain& d;
  EarleyParser parser;
  FollowAutomaton follow;
  SuffixChecker suffixes;
  std::vector<TrieFrame> frames;
};

TokenClassifier::TokenClassifier(const GrammarAutomaton& a, const TokenDomain& d) : impl_(std::make_unique<Impl>(a, d)) {}
TokenClassifier::~TokenClassifier() = default;

void TokenClassifier::classify(uint32_t state, std::vector<uint32_t>& words, uint32_t& count,
                               std::vector<uint32_t>& uncertain) {
  Impl& m = *impl_;
  uncertain.clear();
  const TokenTrie* trie = &m.d.trie();
  if (absorbs_string_safe(m.a, state)) {
    words = m.d.string_safe_mask();
    count = m.d.string_safe_count();
    trie = &m.d.rest_trie();
  } else if (absorbs_string_safe(m.a, state, TokenDomain::kShortSliceChars)) {
    // Alive for every short string-safe token (e.g. a string with many characters left before
    // its maxLength): claim the short slice, walk the rest.
    words = m.d.string_safe_short_mask();
    count = m.d.string_safe_short_count();
    trie = &m.d.rest_short_trie();
  } else {
    words.assign(m.d.mask_words(), 0);
    count = 0;
  }
  classify_state(m.a, *trie, state, m.parser, m.follow, m.suffixes, m.d, m.frames, words, count, uncertain);
}

}  // namespace ninfer::grammar
