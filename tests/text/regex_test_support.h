// Helpers for the regex / string automaton tests: string enumeration, lowering into a one-rule
// grammar, and a direct simulator for the byte automata the lowering produces.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/grammar_ir.h"
#include "grammar/matcher.h"
#include "grammar/test_support.h"
#include "text/char_automaton.h"

namespace ninfer::text::testing {

// Every string over `alphabet` (one element per symbol) of length 0..max_len, shortest first.
inline std::vector<std::string> all_strings(const std::vector<std::string>& alphabet, size_t max_len) {
  std::vector<std::string> out{""};
  size_t level_begin = 0;
  for (size_t len = 1; len <= max_len; ++len) {
    const size_t level_end = out.size();
    for (size_t i = level_begin; i < level_end; ++i)
      for (const auto& a : alphabet) out.push_back(out[i] + a);
    level_begin = level_end;
  }
  return out;
}

inline std::vector<std::string> chars_of(std::string_view s) {
  std::vector<std::string> out;
  for (char c : s) out.emplace_back(1, c);
  return out;
}

// A grammar whose root rule is the lowered automaton.
inline grammar::Grammar grammar_of(const CharAutomaton& a, Encoding enc) {
  grammar::Grammar g;
  const int32_t e = a.to_ir(g, enc);
  grammar::Rule r;
  r.name = "root";
  r.body = e;
  g.rules.push_back(r);
  g.root = 0;
  return g;
}

// One token per alphabet symbol (plus EOS at id 0).
inline std::shared_ptr<const grammar::CompiledGrammar> compile_lowered(const CharAutomaton& a, Encoding enc,
                                                                       const std::vector<std::string>& tokens) {
  return grammar::compile(grammar_of(a, enc), grammar::testing::make_domain(tokens));
}

// Direct NFA simulation of a lowered byte automaton (independent of the grammar compiler).
inline bool byte_automaton_accepts(const grammar::ByteAutomaton& a, std::string_view bytes) {
  std::vector<uint8_t> cur(a.num_states(), 0), next(a.num_states(), 0);
  cur[a.start] = 1;
  for (unsigned char b : bytes) {
    std::fill(next.begin(), next.end(), 0);
    bool any = false;
    for (uint32_t s = 0; s < a.num_states(); ++s) {
      if (!cur[s]) continue;
      for (const auto& e : a.edges[s])
        if (e.lo <= b && b <= e.hi) next[e.target] = 1, any = true;
    }
    if (!any) return false;
    cur.swap(next);
  }
  for (uint32_t s = 0; s < a.num_states(); ++s)
    if (cur[s] && a.accepting[s]) return true;
  return false;
}

inline std::string utf8(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) grammar::append_utf8(out, static_cast<uint32_t>(c));
  return out;
}

inline std::u32string u32(std::string_view ascii_or_utf8) { return utf8_to_u32(ascii_or_utf8); }

}  // namespace ninfer::text::testing
