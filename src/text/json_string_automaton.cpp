#include "text/json_string_automaton.h"

#include <cstdio>
#include <map>

namespace ninfer::text {
namespace {

using grammar::ByteAutomaton;

// Hand-built DFA of canonical string content. State 0 = between characters (accepting).
enum : uint32_t { kB = 0, kU1, kU2, kU3, kE0, kED, kF0, kF4, kEsc, kX0, kX1, kX2, kX3a, kX3b, kStates };

struct ContentDfa {
  uint32_t next[kStates][256];
  ContentDfa() {
    for (auto& row : next)
      for (auto& t : row) t = UINT32_MAX;
    auto set = [&](uint32_t s, int lo, int hi, uint32_t t) {
      for (int b = lo; b <= hi; ++b) next[s][b] = t;
    };
    set(kB, 0x20, 0x7F, kB);
    next[kB][0x22] = UINT32_MAX;  // '"'
    next[kB][0x5C] = kEsc;  // backslash
    set(kB, 0xC2, 0xDF, kU1);
    set(kB, 0xE0, 0xE0, kE0);
    set(kB, 0xE1, 0xEC, kU2);
    set(kB, 0xED, 0xED, kED);
    set(kB, 0xEE, 0xEF, kU2);
    set(kB, 0xF0, 0xF0, kF0);
    set(kB, 0xF1, 0xF3, kU3);
    set(kB, 0xF4, 0xF4, kF4);
    set(kU1, 0x80, 0xBF, kB);
    set(kU2, 0x80, 0xBF, kU1);
    set(kU3, 0x80, 0xBF, kU2);
    set(kE0, 0xA0, 0xBF, kU1);
    set(kED, 0x80, 0x9F, kU1);
    set(kF0, 0x90, 0xBF, kU2);
    set(kF4, 0x80, 0x8F, kU2);
    for (char c : std::string("\"\\bfnrt")) next[kEsc][static_cast<unsigned char>(c)] = kB;
    next[kEsc][0x75] = kX0;  // u
    next[kX0][0x30] = kX1;
    next[kX1][0x30] = kX2;
    next[kX2][0x30] = kX3a;
    next[kX2][0x31] = kX3b;
    // \u0000..\u0007, \u000b, \u000e, \u000f (the others have short escapes).
    set(kX3a, '0', '7', kB);
    for (char c : std::string("bef")) next[kX3a][static_cast<unsigned char>(c)] = kB;
    set(kX3b, '0', '9', kB);
    set(kX3b, 'a', 'f', kB);
  }
};

const ContentDfa& content_dfa() {
  static const ContentDfa dfa;
  return dfa;
}

// Converts a per-state 256-entry table into range edges.
void add_edges(ByteAutomaton& a, uint32_t state, const uint32_t* row) {
  int b = 0;
  while (b < 256) {
    if (row[b] == UINT32_MAX) {
      ++b;
      continue;
    }
    int e = b;
    while (e + 1 < 256 && row[e + 1] == row[b]) ++e;
    a.edges[state].push_back({static_cast<uint8_t>(b), static_cast<uint8_t>(e), row[b]});
    b = e + 1;
  }
}

}  // namespace

std::string json_quote(const std::string& value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
  return out;
}

std::shared_ptr<const ByteAutomaton> json_string_content() {
  static const std::shared_ptr<const ByteAutomaton> shared = [] {
    auto a = std::make_shared<ByteAutomaton>();
    a->edges.resize(kStates);
    a->accepting.assign(kStates, 0);
    a->accepting[kB] = 1;
    for (uint32_t s = 0; s < kStates; ++s) add_edges(*a, s, content_dfa().next[s]);
    return a;
  }();
  return shared;
}

std::shared_ptr<const ByteAutomaton> json_string_content_except(const std::vector<std::string>& excluded) {
  if (excluded.empty()) return json_string_content();
  // Trie over the canonical encodings (without quotes) of the excluded values.
  struct Node {
    std::map<uint8_t, uint32_t> child;
    bool word = false;
  };
  std::vector<Node> trie(1);
  for (const auto& w : excluded) {
    std::string enc = json_quote(w);
    enc = enc.substr(1, enc.size() - 2);
    uint32_t n = 0;
    for (unsigned char c : enc) {
      auto it = trie[n].child.find(c);
      if (it == trie[n].child.end()) {
        trie.push_back({});
        trie[n].child.emplace(c, static_cast<uint32_t>(trie.size() - 1));
        n = static_cast<uint32_t>(trie.size() - 1);
      } else {
        n = it->second;
      }
    }
    trie[n].word = true;
  }
  // Product of the content DFA with the trie (UINT32_MAX = left the trie).
  const ContentDfa& dfa = content_dfa();
  auto a = std::make_shared<ByteAutomaton>();
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> ids;
  std::vector<std::pair<uint32_t, uint32_t>> queue;
  auto id_of = [&](uint32_t c, uint32_t t) {
    auto [it, fresh] = ids.emplace(std::make_pair(c, t), static_cast<uint32_t>(queue.size()));
    if (fresh) queue.emplace_back(c, t);
    return it->second;
  };
  id_of(kB, 0);
  for (size_t i = 0; i < queue.size(); ++i) {
    auto [c, t] = queue[i];
    uint32_t row[256];
    for (int b = 0; b < 256; ++b) {
      const uint32_t nc = dfa.next[c][b];
      if (nc == UINT32_MAX) {
        row[b] = UINT32_MAX;
        continue;
      }
      uint32_t nt = UINT32_MAX;
      if (t != UINT32_MAX) {
        auto it = trie[t].child.find(static_cast<uint8_t>(b));
        if (it != trie[t].child.end()) nt = it->second;
      }
      row[b] = id_of(nc, nt);
    }
    a->edges.resize(queue.size());
    add_edges(*a, static_cast<uint32_t>(i), row);
  }
  a->edges.resize(queue.size());
  a->accepting.resize(queue.size());
  for (size_t i = 0; i < queue.size(); ++i) {
    auto [c, t] = queue[i];
    a->accepting[i] = c == kB && !(t != UINT32_MAX && trie[t].word);
  }
  return a;
}

}  // namespace ninfer::text
