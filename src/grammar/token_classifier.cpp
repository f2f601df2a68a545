// Classification of tokens per DFA state (see token_classifier.h).
#include "grammar/token_classifier.h"

#include <algorithm>
#include <array>
#include <functional>
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
  uint16_t completed_taints;  // taint bits of that completion (EarleyParser::root_completed_taints)
  uint8_t completions;       // completions on the local path so far (saturating at 2)
};
constexpr uint32_t kLocalDead = 0xFFFFFFFFu;
constexpr uint32_t kNever = 0xFFFFFFFFu;

class SuffixChecker;
struct SafeSearch;
bool absorbs_string_safe(SafeSearch& search, uint32_t state, uint32_t max_chars, std::vector<int8_t>* known,
                         SuffixChecker* exits = nullptr);

// String-safe UTF-8 automaton: the position after byte b, or -1 when b cannot come there.
// UTF-8 positions: 0 boundary, 1..3 continuation bytes left, 4 after E0, 5 after ED, 6 after F0, 7 after F4.
int next_pos(uint32_t pos, int b) {
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
}

// Scratch for product searches over (DFA state, UTF-8 position[, characters]): per position, one
// byte per distinct (byte class, next position), and a flat hash map reused across searches.
struct SafeSearch {
  explicit SafeSearch(const GrammarAutomaton& a) : a(a), slots(kSlots), gen(kSlots, 0), proven(a.num_states(), 0) {
    for (uint32_t pos = 0; pos < 8; ++pos) {
      std::vector<uint8_t> seen(size_t(a.num_classes) * 8, 0);
      for (int b = 0; b < 256; ++b) {
        const int np = next_pos(pos, b);
        if (np < 0) continue;
        uint8_t& s = seen[size_t(a.byte_class[b]) * 8 + np];
        if (!s) s = 1, steps[pos].push_back({static_cast<uint8_t>(b), static_cast<uint8_t>(np)});
      }
    }
  }
  static constexpr uint32_t kSlots = 1u << 13;  // twice the largest search (4096 product states)
  void clear() { ++cur, used.clear(); }
  // Inserts key -> value; false when the key is already there.
  bool insert(uint64_t key, uint64_t value) {
    uint32_t i = static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 50) & (kSlots - 1);
    while (gen[i] == cur) {
      if (slots[i].first == key) return false;
      i = (i + 1) & (kSlots - 1);
    }
    gen[i] = cur, slots[i] = {key, value}, used.push_back(i);
    return true;
  }
  uint64_t value(uint64_t key) const {
    uint32_t i = static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> 50) & (kSlots - 1);
    while (slots[i].first != key) i = (i + 1) & (kSlots - 1);
    return slots[i].second;
  }
  const GrammarAutomaton& a;
  std::array<std::vector<std::pair<uint8_t, uint8_t>>, 8> steps;  // (byte, next position)
  std::vector<std::pair<uint64_t, uint64_t>> slots;
  std::vector<uint32_t> gen;
  std::vector<uint32_t> used;
  uint32_t cur = 1;
  std::vector<uint64_t> stack;
  // Per DFA state: characters of string-safe text known to stay alive on a plain byte path
  // (learnt by successful bounded searches, so the callers of one counted block, which all
  // continue into the same tail states, are proven in one search instead of one each).
  std::vector<uint16_t> proven;
};

// Characters in `s` when it is JSON-string-safe text (a trailing partial UTF-8 character counts
// as one), else -1: a walk of the same UTF-8 automaton the product searches use, so a suffix is
// counted exactly when those searches cover it.
int string_safe_chars(std::string_view s) {
  int chars = 0;
  uint32_t pos = 0;
  for (unsigned char b : s) {
    const int np = next_pos(pos, b);
    if (np < 0) return -1;
    if (np == 0) ++chars;
    pos = static_cast<uint32_t>(np);
  }
  return pos == 0 ? chars : chars + 1;
}

// How a byte string fares right after a rule completes, over every place that calls the rule.
enum SuffixClass : uint8_t {
  kSuffixNo,           // not accepted by every caller (or not decidable here): verify at mask time
  kSuffixAll,          // every caller consumes it whatever the context
  kSuffixCallerClose,  // accepted exactly when the calling any-order object may close
  kSuffixCallerMore,   // accepted exactly when the calling any-order object may take another key
};

// Decides whether a byte string is accepted right after `rule` completes in *every* context:
// each place that calls the rule must consume it locally. Such tokens are context-independent
// although they run past the rule's end (e.g. whitespace after a JSON value).
class SuffixChecker {
 public:
  explicit SuffixChecker(const GrammarAutomaton& a)
      : a_(a), search_(a), parser_(a), callers_(a.rule_start.size()), callers_absorb_(a.rule_start.size(), -1) {
    for (uint32_t s = 0; s < a.num_states(); ++s)
      for (uint32_t e = a.call_begin[s]; e < a.call_begin[s + 1]; ++e) callers_[a.calls[e].rule].push_back(a.calls[e].target);
    for (auto& c : callers_) {
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
    }
  }

  // The longest string-safe text (0, kShortSliceChars or kMediumSliceChars characters) that every
  // caller of `rule` absorbs on a plain byte path (computed once per rule).
  uint32_t callers_absorb(uint32_t rule) {
    int16_t& known = callers_absorb_[rule];
    if (known < 0) {
      auto all_absorb = [&](uint32_t chars) {
        for (uint32_t t : callers_[rule])
          if (!absorbs_string_safe(search_, t, chars, nullptr)) return false;
        return true;
      };
      known = 0;
      if (!callers_[rule].empty() && all_absorb(TokenDomain::kShortSliceChars))
        known = all_absorb(TokenDomain::kMediumSliceChars) ? TokenDomain::kMediumSliceChars : TokenDomain::kShortSliceChars;
    }
    return static_cast<uint32_t>(known);
  }

  SuffixClass suffix_class(uint32_t rule, std::string_view suffix) {
    if (callers_[rule].empty() || suffix.empty()) return kSuffixNo;
    // Fast path: string-safe text that every caller's automaton absorbs (the callers of a counted
    // block inside a long JSON string): no parse per caller and suffix.
    const int chars = string_safe_chars(suffix);
    if (chars >= 0 && static_cast<uint32_t>(chars) <= callers_absorb(rule)) return kSuffixAll;
    std::string key(reinterpret_cast<const char*>(&rule), sizeof rule);
    key.append(suffix);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    // A caller inside an any-order object may accept the suffix only under a condition on its
    // keys; the class is conditional only when every such caller needs the same condition and
    // every other caller accepts outright.
    SuffixClass result = kSuffixAll;
    bool object_outright = false;
    for (uint32_t t : callers_[rule]) {
      parser_.reset_local(t, true);
      bool ok = true;
      for (unsigned char c : suffix)
        if (!parser_.scan(c)) {
          ok = false;
          break;
        }
      if (!ok) {
        result = kSuffixNo;
        break;
      }
      const uint16_t live = parser_.top_taints();
      const bool in_object = a_.rule_key_set[a_.state_rule[t]] >= 0;
      if (live & 1u) {
        object_outright |= in_object;
        continue;
      }
      const SuffixClass want = live == (1u << kTaintClose) ? kSuffixCallerClose
                               : live == (1u << kTaintMore) ? kSuffixCallerMore
                                                            : kSuffixNo;
      if (want == kSuffixNo || (result != kSuffixAll && result != want)) {
        result = kSuffixNo;
        break;
      }
      result = want;
    }
    if (result != kSuffixAll && object_outright) result = kSuffixNo;
    memo_.emplace(std::move(key), result);
    return result;
  }

 private:
  const GrammarAutomaton& a_;
  SafeSearch search_;
  EarleyParser parser_;
  std::vector<std::vector<uint32_t>> callers_;
  std::vector<int16_t> callers_absorb_;  // per rule: characters (see callers_absorb), -1 not known yet
  std::unordered_map<std::string, SuffixClass> memo_;
};

void classify_state(const GrammarAutomaton& a, const TokenTrie& trie, uint32_t state, EarleyParser& parser,
                    FollowAutomaton& follow, SuffixChecker& suffixes, const TokenDomain& domain,
                    std::vector<TrieFrame>& frames, std::vector<uint32_t>& accepted_words,
                    uint32_t& accepted_count, std::vector<uint32_t>& uncertain, std::vector<uint32_t> (&cond)[kCondKinds],
                    bool tails) {
  const uint32_t rule = a.state_rule[state];
  const uint32_t after = follow.after_rule(rule);
  if (a.simple[state]) {
    frames[0] = {state, 0, FollowAutomaton::kEmpty, kNever, 0, 0};
  } else {
    parser.reset_local(state);
    const uint16_t done = parser.root_completed_taints(0);
    frames[0] = {kDeadState, 0, done ? after : FollowAutomaton::kEmpty, done ? 0 : kNever, done, uint8_t(done ? 1 : 0)};
  }
  const uint32_t nodes = trie.num_nodes();
  uint32_t n = 1;
  while (n < nodes) {
    const uint32_t d = trie.depth[n];
    const TrieFrame parent = frames[d - 1];
    const uint8_t byte = trie.byte[n];
    TrieFrame f{kDeadState, kLocalDead, FollowAutomaton::kEmpty, parent.completed_at, parent.completed_taints,
                parent.completions};
    const uint8_t more_completions = static_cast<uint8_t>(std::min(parent.completions + 1, 2));
    uint16_t live = 0;  // taint bits of the local parse's items after this node (bit 0: no condition)
    if (parent.dfa != kDeadState) {
      const uint32_t t = a.next(parent.dfa, byte);
      if (t != kDeadState) {
        if (a.simple[t]) {
          f = {t, 0, FollowAutomaton::kEmpty, parent.completed_at, parent.completed_taints, parent.completions};
          live = 1;
        } else {
          parser.reset_local(t, true);
          if (!parser.set_empty(0)) {
            f.base = d;
            live = parser.set_taints(0);
            if (const uint16_t done = parser.root_completed_taints(0))
              f.follow = after, f.completed_at = d, f.completed_taints = done, f.completions = more_completions;
          }
        }
      }
    } else if (parent.base != kLocalDead) {
      parser.pop_to(d - parent.base);
      if (parser.scan(byte)) {
        f.base = parent.base;
        live = parser.top_taints();
        if (const uint16_t done = parser.root_completed_taints(parser.top()))
          f.follow = after, f.completed_at = d, f.completed_taints = done, f.completions = more_completions;
      }
    }
    if (parent.follow != FollowAutomaton::kEmpty) f.follow = follow.unite(follow.step(parent.follow, byte), f.follow);
    const bool alive = live != 0;
    if (!alive && f.follow == FollowAutomaton::kEmpty) {
      n = trie.subtree_end[n];
      continue;
    }
    frames[d] = f;
    if (trie.token_begin[n] != trie.token_begin[n + 1]) {
      // Accepted outright, accepted under one condition on an any-order object's keys, or
      // context-dependent (verified at mask time).
      int verdict = -2;  // -2 uncertain, -1 accepted, else a CondKind
      if (live & 1u) {
        verdict = -1;
      } else if (!alive) {
        // Only paths past the rule's end. The node's bytes are the token's last `d` bytes (all
        // of them, except in a tail trie).
        if (f.completed_at != kNever) {
          const std::string& bytes = domain.bytes(trie.ids[trie.token_begin[n]]);
          const SuffixClass sc = suffixes.suffix_class(rule, std::string_view(bytes).substr(bytes.size() - d + f.completed_at));
          // A condition is exact only when this completion is the path's one way past the end.
          const uint16_t done = f.completions == 1 ? f.completed_taints : uint16_t(f.completed_taints & 1u);
          if (sc == kSuffixAll && (done & 1u)) verdict = -1;
          else if (sc == kSuffixAll && done == (1u << kTaintClose)) verdict = kOwnClose;
          else if (sc == kSuffixCallerClose && done == 1u) verdict = kCallerClose;
          else if (sc == kSuffixCallerMore && done == 1u) verdict = kCallerMore;
        }
      } else if (f.follow == FollowAutomaton::kEmpty || (f.completed_at == d && f.completions == 1)) {
        // Alive only under a condition on the kernel item's own keys, with no byte past the
        // rule's end (a completion exactly at the token's end is the same path).
        if (live == (1u << kTaintClose)) verdict = kOwnClose;
        else if (live == (1u << kTaintMore)) verdict = kOwnMore;
        else if (live == (1u << kTaintName)) verdict = kOwnName;
      }
      if (verdict == -1) {
        for (uint32_t i = trie.token_begin[n]; i < trie.token_begin[n + 1]; ++i) {
          const int32_t id = trie.ids[i];
          accepted_words[id >> 5] |= 1u << (id & 31);
          ++accepted_count;
        }
      } else if (verdict >= 0) {
        std::vector<uint32_t>& c = cond[verdict];
        if (c.empty()) c.assign(accepted_words.size(), 0);
        for (uint32_t i = trie.token_begin[n]; i < trie.token_begin[n + 1]; ++i) c[trie.ids[i] >> 5] |= 1u << (trie.ids[i] & 31);
      } else {
        if (!tails) {
          // Recorded as a node of the domain's full trie (the walk may be over a slice's trie).
          uncertain.push_back(static_cast<uint32_t>(domain.trie().node_of_token[trie.ids[trie.token_begin[n]]]));
        } else {
          // Tokens sharing a tail have different bytes: one full-trie node each.
          for (uint32_t i = trie.token_begin[n]; i < trie.token_begin[n + 1]; ++i)
            uncertain.push_back(static_cast<uint32_t>(domain.trie().node_of_token[trie.ids[i]]));
        }
      }
    }
    ++n;
  }
  if (tails) {
    std::sort(uncertain.begin(), uncertain.end());
    uncertain.erase(std::unique(uncertain.begin(), uncertain.end()), uncertain.end());
  }
}

// True when every string of whole JSON-string-safe characters (the TokenDomain slice) keeps the
// DFA path from `state` alive: then every token of the slice is accepted from `state` and the
// trie walk only needs the other tokens. A product search over (DFA state, UTF-8 position).
// `max_chars` = 0: every length; otherwise only strings of at most that many characters.
// `known` (every-length searches only): per DFA state, 1 = absorbs, 0 = does not, -1 = unknown;
// a failed search marks every state on the path to the dead byte, so the positions of a long
// counted chain are each searched once instead of once per position.
// `exits` (bounded searches only): when every caller of the state's rule absorbs strings of
// max_chars characters, a path that reaches a character boundary where the rule may complete is
// accepted whatever follows (the end of a counted block inside a long JSON string).
bool absorbs_string_safe(SafeSearch& search, uint32_t state, uint32_t max_chars, std::vector<int8_t>* known,
                         SuffixChecker* exits) {
  const GrammarAutomaton& a = search.a;
  // Bounded searches without exit credit learn and reuse per-state capacities.
  const bool memo = max_chars != 0 && exits == nullptr && max_chars < 1024;
  // Key: DFA state, UTF-8 position, characters completed so far (only counted when bounded).
  auto key_of = [](uint64_t q, uint64_t pos, uint64_t chars) { return (q << 13) | (chars << 3) | pos; };
  constexpr uint64_t kRoot = ~uint64_t(0);
  search.clear();
  std::vector<uint64_t>& stack = search.stack;
  stack.assign(1, key_of(state, 0, 0));
  search.insert(stack[0], kRoot);  // product state -> where it was reached from
  auto fail_path = [&](uint64_t key) {
    if (known)
      for (; key != kRoot; key = search.value(key))
        if ((key & 7) == 0) (*known)[key >> 13] = 0;
    return false;
  };
  while (!stack.empty()) {
    const uint64_t key = stack.back();
    stack.pop_back();
    const uint32_t q = static_cast<uint32_t>(key >> 13), pos = static_cast<uint32_t>(key & 7);
    const uint32_t chars = static_cast<uint32_t>((key >> 3) & 1023);
    if (known && pos == 0 && (*known)[q] == 0) return fail_path(key);
    if (known && pos == 0 && (*known)[q] == 1) continue;
    if (max_chars && pos == 0 && chars == max_chars) continue;  // longer strings are not claimed
    if (memo && pos == 0 && search.proven[q] >= max_chars - chars) continue;
    if (max_chars && exits && pos == 0 && a.accepting[q] && exits->callers_absorb(a.state_rule[q]) >= max_chars) continue;
    for (const auto& [b, np] : search.steps[pos]) {
      const uint32_t t = a.next(q, b);
      if (t == kDeadState) return fail_path(key);
      const uint32_t nchars = max_chars && np == 0 ? chars + 1 : chars;
      const uint64_t nk = key_of(t, np, nchars);
      if (search.insert(nk, key)) {
        if (search.used.size() > 4096) return false;  // large regions: not worth proving
        stack.push_back(nk);
      }
    }
  }
  if (known)
    for (uint32_t i : search.used)
      if ((search.slots[i].first & 7) == 0) (*known)[search.slots[i].first >> 13] = 1;
  if (memo)
    for (uint32_t i : search.used) {
      const uint64_t key = search.slots[i].first;
      if ((key & 7) != 0) continue;
      uint16_t& p = search.proven[key >> 13];
      p = std::max<uint16_t>(p, static_cast<uint16_t>(max_chars - ((key >> 3) & 1023)));
    }
  return true;
}

// True when every string-safe character leads from `state` back to `state` through plain byte
// states: the inside of an unbounded JSON string. A token's fate there depends only on the bytes
// after its longest string-safe prefix (TokenDomain::rest_tail_trie).
bool loops_on_string_safe(SafeSearch& search, uint32_t state) {
  const GrammarAutomaton& a = search.a;
  if (!a.simple[state]) return false;
  std::vector<std::pair<uint32_t, uint32_t>> stack{{state, 0}};
  std::vector<std::pair<uint32_t, uint32_t>> seen{{state, 0}};
  while (!stack.empty()) {
    const auto [q, pos] = stack.back();
    stack.pop_back();
    for (const auto& [b, np] : search.steps[pos]) {
      const uint32_t t = a.next(q, b);
      if (t == kDeadState || !a.simple[t] || (np == 0 && t != state)) return false;
      if (std::find(seen.begin(), seen.end(), std::make_pair(t, uint32_t(np))) == seen.end()) {
        if (seen.size() > 64) return false;
        seen.push_back({t, np});
        stack.push_back({t, np});
      }
    }
  }
  return true;
}

}  // namespace

struct TokenClassifier::Impl {
  Impl(const GrammarAutomaton& a, const TokenDomain& d)
      : a(a), d(d), search(a), parser(a), follow(a), suffixes(a), frames(65537), absorbs(a.num_states(), -1) {}
  const GrammarAutomaton& a;
  const TokenDomain& d;
  SafeSearch search;
  EarleyParser parser;
  FollowAutomaton follow;
  SuffixChecker suffixes;
  std::vector<TrieFrame> frames;
  std::vector<int8_t> absorbs;  // every-length absorption per DFA state, learnt across calls
};

TokenClassifier::TokenClassifier(const GrammarAutomaton& a, const TokenDomain& d) : impl_(std::make_unique<Impl>(a, d)) {}
TokenClassifier::~TokenClassifier() = default;

void TokenClassifier::classify(uint32_t state, std::vector<uint32_t>& words, uint32_t& count,
                               std::vector<uint32_t>& uncertain, std::vector<uint32_t> (&cond)[kCondKinds]) {
  Impl& m = *impl_;
  uncertain.clear();
  for (auto& c : cond) c.clear();
  const TokenTrie* trie = &m.d.trie();
  // Cheapest question first: the inside of an unbounded string.
  if (loops_on_string_safe(m.search, state)) {
    words = m.d.string_safe_mask();
    count = m.d.string_safe_count();
    classify_state(m.a, m.d.rest_tail_trie(), state, m.parser, m.follow, m.suffixes, m.d, m.frames, words, count,
                   uncertain, cond, true);
    return;
  }
  // The short question is cheaper than, and necessary for, the every-length one. A state also
  // absorbs what a rule it calls absorbs from its start (a string shape shared through a rule,
  // next to inline alternatives): the local parse follows the call.
  // Through calls: a rule's start may itself only call (a key rule whose text is a shared
  // automaton), so the search follows calls from rule starts a few levels deep.
  // `name_calls`: also follow the calls of undeclared names that may start only while a member
  // still fits (what they absorb is then conditional, see below).
  std::function<bool(uint32_t, uint32_t, int, bool)> calls_absorb = [&](uint32_t from, uint32_t max_chars, int depth,
                                                                        bool name_calls) {
    const int32_t ks = m.a.rule_key_set[m.a.state_rule[from]];
    for (uint32_t e = m.a.call_begin[from]; e < m.a.call_begin[from + 1]; ++e) {
      // A key of an any-order object may start only where its keys allow, except undeclared
      // names of an object without a maximum.
      const int32_t member = m.a.key_member[m.a.calls[e].rule];
      if (ks >= 0 && member != kNotAKey &&
          !(member == kAdditionalKey && name_calls) && !m.a.key_sets[ks].start_static(member))
        continue;
      const uint32_t start = m.a.rule_start[m.a.calls[e].rule];
      if (absorbs_string_safe(m.search, start, max_chars, max_chars ? nullptr : &m.absorbs, nullptr)) return true;
      if (depth > 0 && calls_absorb(start, max_chars, depth - 1, false)) return true;
    }
    return false;
  };
  auto via_calls = [&](uint32_t max_chars) { return calls_absorb(state, max_chars, 2, false); };
  // An object's "key" state (after the opening quote) whose undeclared names absorb any text but
  // may start only while a member fits (maxProperties): the string-safe slice is accepted exactly
  // under that condition, except the tokens that may also begin a declared key (verified).
  const bool short_via_calls = via_calls(TokenDomain::kShortSliceChars);
  if (m.a.key_start_state(state) && !m.a.key_sets[m.a.rule_key_set[m.a.state_rule[state]]].name_start_static() &&
      !short_via_calls && calls_absorb(state, 0, 2, true)) {
    cond[kOwnName] = m.d.string_safe_mask();
    const TokenTrie& full = m.d.trie();
    std::vector<uint32_t> at(257, kDeadState);  // DFA state per trie depth
    for (uint32_t e = m.a.call_begin[state]; e < m.a.call_begin[state + 1]; ++e) {
      if (m.a.key_member[m.a.calls[e].rule] < 0) continue;
      // Byte walk of the declared key's literal over the full trie (it prunes at once).
      at[0] = m.a.rule_start[m.a.calls[e].rule];
      for (uint32_t n = 1; n < full.num_nodes();) {
        const uint32_t dd = full.depth[n];
        const uint32_t t = dd <= 256 && at[dd - 1] != kDeadState ? m.a.next(at[dd - 1], full.byte[n]) : kDeadState;
        if (t == kDeadState) {
          n = full.subtree_end[n];
          continue;
        }
        at[dd] = t;
        for (uint32_t i = full.token_begin[n]; i < full.token_begin[n + 1]; ++i) {
          const int32_t id = full.ids[i];
          if (cond[kOwnName][id >> 5] >> (id & 31) & 1u) {
            cond[kOwnName][id >> 5] &= ~(1u << (id & 31));
            uncertain.push_back(n);
          }
        }
        ++n;
      }
    }
    words.assign(m.d.mask_words(), 0);
    count = 0;
    classify_state(m.a, m.d.rest_trie(), state, m.parser, m.follow, m.suffixes, m.d, m.frames, words, count, uncertain,
                   cond, false);
    std::sort(uncertain.begin(), uncertain.end());
    uncertain.erase(std::unique(uncertain.begin(), uncertain.end()), uncertain.end());
    return;
  }
  const bool absorbs_short =
      short_via_calls || absorbs_string_safe(m.search, state, TokenDomain::kShortSliceChars, nullptr, &m.suffixes);
  if (absorbs_short && (absorbs_string_safe(m.search, state, 0, &m.absorbs) || via_calls(0))) {
    words = m.d.string_safe_mask();
    count = m.d.string_safe_count();
    trie = &m.d.rest_trie();
  } else if (absorbs_short && m.suffixes.callers_absorb(m.a.state_rule[state]) >= TokenDomain::kMediumSliceChars &&
             absorbs_string_safe(m.search, state, TokenDomain::kMediumSliceChars, nullptr, &m.suffixes)) {
    // The end of a counted block: every caller goes on with a block's worth of characters.
    words = m.d.string_safe_medium_mask();
    count = m.d.string_safe_medium_count();
    trie = &m.d.rest_medium_trie();
  } else if (absorbs_short) {
    // Alive for every short string-safe token (e.g. a string with many characters left before
    // its maxLength): claim the short slice, walk the rest.
    words = m.d.string_safe_short_mask();
    count = m.d.string_safe_short_count();
    trie = &m.d.rest_short_trie();
  } else {
    words.assign(m.d.mask_words(), 0);
    count = 0;
  }
  classify_state(m.a, *trie, state, m.parser, m.follow, m.suffixes, m.d, m.frames, words, count, uncertain, cond, false);
}

}  // namespace ninfer::grammar
