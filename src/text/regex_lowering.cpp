#include "text/regex_lowering.h"

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace ninfer::text {
namespace {

using grammar::ByteRange;
using Sequence = std::vector<ByteRange>;
constexpr uint32_t kNoTarget = 0xFFFFFFFFu;

void push_merged(std::vector<Sequence>& out, Sequence seq) {
  if (!out.empty()) {
    Sequence& prev = out.back();
    if (prev.size() == seq.size() && prev.back().hi + 1 == seq.back().lo &&
        std::equal(prev.begin(), prev.end() - 1, seq.begin(),
                   [](const ByteRange& a, const ByteRange& b) { return a.lo == b.lo && a.hi == b.hi; })) {
      prev.back().hi = seq.back().hi;
      return;
    }
  }
  out.push_back(std::move(seq));
}

Sequence bytes_of(const char* s) {
  Sequence seq;
  for (; *s; ++s) seq.push_back({static_cast<uint8_t>(*s), static_cast<uint8_t>(*s)});
  return seq;
}

void raw_sequences(uint32_t lo, uint32_t hi, std::vector<Sequence>& out) {
  // utf8_sequences must not see surrogates; callers' ranges exclude them, this keeps it true.
  if (lo < 0xD800 && hi >= 0xD800) {
    grammar::utf8_sequences(lo, 0xD7FF, out);
    if (hi > 0xDFFF) grammar::utf8_sequences(0xE000, hi, out);
    return;
  }
  if (lo >= 0xD800 && lo <= 0xDFFF) {
    if (hi <= 0xDFFF) return;
    lo = 0xE000;
  }
  grammar::utf8_sequences(lo, hi, out);
}

// The json.dumps(ensure_ascii=False) spelling of one control character, quote or backslash.
Sequence json_escape(uint32_t c) {
  switch (c) {
    case '"': return bytes_of("\\\"");
    case '\\': return bytes_of("\\\\");
    case '\n': return bytes_of("\\n");
    case '\r': return bytes_of("\\r");
    case '\t': return bytes_of("\\t");
    case '\b': return bytes_of("\\b");
    case '\f': return bytes_of("\\f");
    default: {
      static const char kHex[] = "0123456789abcdef";
      const char buf[] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xF], kHex[c & 0xF], 0};
      return bytes_of(buf);
    }
  }
}

}  // namespace

void encoded_sequences(uint32_t lo, uint32_t hi, Encoding encoding, std::vector<Sequence>& out) {
  if (lo > hi) return;
  if (encoding == Encoding::Raw) {
    raw_sequences(lo, hi, out);
    return;
  }
  // JsonString: walk the range, escaping controls, '"' and '\\', raw UTF-8 for the runs between.
  uint32_t c = lo;
  while (c <= hi) {
    if (c < 0x20 || c == '"' || c == '\\') {
      push_merged(out, json_escape(c));
      ++c;
      continue;
    }
    uint32_t stop = hi;  // last character of this raw run
    if (c < '"' && stop >= '"') stop = '"' - 1;
    else if (c < '\\' && stop >= '\\') stop = '\\' - 1;
    raw_sequences(c, stop, out);
    if (stop == hi) break;
    c = stop + 1;
  }
}

namespace {

// A pending suffix: position `pos` of sequence `seq` (in the pool), then character state `target`.
struct Item {
  uint32_t seq;
  uint32_t pos;
  uint32_t target;
};

struct KeyHash {
  size_t operator()(const std::vector<uint64_t>& v) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t x : v) h = (h ^ x) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// Builds the byte DFA: character states keep their numbers; every other state stands for the set
// of pending suffixes it still has to read, interned by (remaining bytes, target) pairs, so equal
// futures share one state across the whole automaton.
class ByteDfaBuilder {
 public:
  ByteDfaBuilder(const RangeDfa& dfa, Encoding encoding) : dfa_(dfa), encoding_(encoding) {}

  RangeDfa run() {
    for (uint32_t s = 0; s < dfa_.num_states(); ++s) out_.add_state(dfa_.accepting[s] != 0);
    out_.start = dfa_.start;
    std::vector<Item> items;
    for (uint32_t s = 0; s < dfa_.num_states(); ++s) {
      items.clear();
      for (const auto& e : dfa_.edges[s]) {
        const auto [first, count] = sequences_of(e.lo, e.hi);
        for (uint32_t k = 0; k < count; ++k) items.push_back({first + k, 0, e.target});
      }
      expand(s, items);
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
      const std::vector<Item> its = std::move(pending_[i].second);
      expand(pending_[i].first, its);
    }
    return std::move(out_);
  }

 private:
  const RangeDfa& dfa_;
  Encoding encoding_;
  RangeDfa out_;
  std::vector<Sequence> pool_;
  std::vector<std::vector<uint32_t>> suffix_id_;  // per pool sequence and position
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> by_range_;  // (lo, hi) -> pool slice
  std::unordered_map<std::string, uint32_t> suffixes_;                    // remaining bytes -> id
  std::unordered_map<std::vector<uint64_t>, uint32_t, KeyHash> interned_;
  std::vector<std::pair<uint32_t, std::vector<Item>>> pending_;  // intermediate states to expand
  std::vector<uint64_t> key_;

  // The encoded sequences of a character range, computed once per distinct range.
  std::pair<uint32_t, uint32_t> sequences_of(uint32_t lo, uint32_t hi) {
    auto [it, fresh] = by_range_.try_emplace((uint64_t(lo) << 32) | hi);
    if (!fresh) return it->second;
    std::vector<Sequence> seqs;
    encoded_sequences(lo, hi, encoding_, seqs);
    it->second = {static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(seqs.size())};
    for (auto& seq : seqs) {
      std::vector<uint32_t> ids(seq.size());
      for (size_t p = 0; p < seq.size(); ++p) {
        std::string k;
        for (size_t q = p; q < seq.size(); ++q) k += {static_cast<char>(seq[q].lo), static_cast<char>(seq[q].hi)};
        ids[p] = suffixes_.try_emplace(std::move(k), static_cast<uint32_t>(suffixes_.size())).first->second;
      }
      suffix_id_.push_back(std::move(ids));
      pool_.push_back(std::move(seq));
    }
    return it->second;
  }

  const ByteRange& range(const Item& it) const { return pool_[it.seq][it.pos]; }

  uint32_t intermediate(std::vector<Item>& items) {
    key_.clear();
    for (const Item& it : items) key_.push_back((uint64_t(suffix_id_[it.seq][it.pos]) << 32) | it.target);
    std::sort(key_.begin(), key_.end());
    key_.erase(std::unique(key_.begin(), key_.end()), key_.end());
    auto [it, fresh] = interned_.try_emplace(key_, out_.num_states());
    if (fresh) {
      out_.add_state(false);
      pending_.emplace_back(it->second, std::move(items));
    }
    return it->second;
  }

  void expand(uint32_t state, const std::vector<Item>& items) {
    std::array<uint8_t, 257> boundary{};
    for (const Item& it : items) {
      boundary[range(it).lo] = 1;
      boundary[range(it).hi + 1] = 1;
    }
    std::vector<Item> next;
    for (uint32_t lo = 0; lo < 256;) {
      uint32_t hi = lo;
      while (hi + 1 < 256 && !boundary[hi + 1]) ++hi;
      // Items whose current range covers [lo, hi] (boundaries make it all or nothing).
      next.clear();
      uint32_t done_target = kNoTarget;
      bool done = false;
      for (const Item& it : items) {
        if (range(it).lo > lo || range(it).hi < lo) continue;
        if (it.pos + 1 == pool_[it.seq].size()) {
          // UTF-8 and the JSON spellings are prefix-free and injective, and the character
          // automaton is deterministic, so a completed character has nothing else alongside.
          if (done && done_target != it.target) throw std::logic_error("lower_to_bytes: ambiguous encoding");
          done = true;
          done_target = it.target;
        } else {
          next.push_back({it.seq, it.pos + 1, it.target});
        }
      }
      if (done && !next.empty()) throw std::logic_error("lower_to_bytes: encoding is not prefix-free");
      if (done || !next.empty()) {
        const uint32_t t = done ? done_target : intermediate(next);
        auto& es = out_.edges[state];
        if (!es.empty() && es.back().target == t && es.back().hi + 1 == lo) {
          es.back().hi = hi;
        } else {
          es.push_back({lo, hi, t});
        }
      }
      lo = hi + 1;
    }
  }
};

}  // namespace

grammar::ByteAutomaton lower_to_bytes(const RangeDfa& dfa, Encoding encoding) {
  // Deterministic by construction; minimising makes it canonical (equal languages, equal IR).
  const RangeDfa bytes = minimize(ByteDfaBuilder(dfa, encoding).run());
  grammar::ByteAutomaton out;
  out.start = bytes.start;
  out.accepting = bytes.accepting;
  out.edges.resize(bytes.num_states());
  for (uint32_t s = 0; s < bytes.num_states(); ++s)
    for (const auto& e : bytes.edges[s])
      out.edges[s].push_back({static_cast<uint8_t>(e.lo), static_cast<uint8_t>(e.hi), e.target});
  return out;
}

int32_t CharAutomaton::to_ir(grammar::Grammar& g, Encoding encoding) const {
  grammar::Expr e;
  e.kind = grammar::ExprKind::Automaton;
  e.automaton = std::make_shared<const grammar::ByteAutomaton>(lower_to_bytes(dfa_, encoding));
  return g.add(std::move(e));
}

}  // namespace ninfer::text
