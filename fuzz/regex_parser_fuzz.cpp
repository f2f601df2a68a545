// libFuzzer target: regex text -> CharAutomaton in both modes -> invariants of the automata and of
// their byte-level lowering. ConstraintError (InvalidRegex, or AutomatonBudgetExceeded) is the
// only acceptable failure; anything else (another exception, a sanitizer report, a failed
// invariant) is a bug and crashes the run.
//
// Build: CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DNINFER_FUZZ=ON -DNINFER_BUILD_TESTS=OFF
//        && ninja -C build-fuzz regex_parser_fuzz     (see fuzz/README.md)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "grammar/grammar_ir.h"
#include "ninfer/constraint_error.h"
#include "text/char_automaton.h"
#include "text/regex_lowering.h"

namespace {

using namespace ninfer::text;
using ninfer::grammar::ByteAutomaton;

[[noreturn]] void bug(const char* what, std::string_view src) {
  std::fprintf(stderr, "regex_parser_fuzz invariant violated: %s\n--- pattern (%zu bytes) ---\n%.*s\n---\n", what,
               src.size(), static_cast<int>(std::min<size_t>(src.size(), 2000)), src.data());
  std::abort();
}

// The lowering is deterministic: edges sorted and disjoint, so a walk is a simple loop.
bool byte_accepts(const ByteAutomaton& a, std::string_view bytes, std::string_view src) {
  uint32_t s = a.start;
  for (unsigned char b : bytes) {
    uint32_t next = UINT32_MAX;
    for (const auto& e : a.edges[s]) {
      if (e.lo <= b && b <= e.hi) {
        if (next != UINT32_MAX) bug("lowered automaton is nondeterministic", src);
        next = e.target;
      }
    }
    if (next == UINT32_MAX) return false;
    s = next;
  }
  return a.accepting[s] != 0;
}

std::string raw(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) ninfer::grammar::append_utf8(out, static_cast<uint32_t>(c));
  return out;
}

// json.dumps(ensure_ascii=False) spelling, written independently of the lowering.
std::string json(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) {
    switch (c) {
      case U'"': out += "\\\""; break;
      case U'\\': out += "\\\\"; break;
      case U'\n': out += "\\n"; break;
      case U'\r': out += "\\r"; break;
      case U'\t': out += "\\t"; break;
      case U'\b': out += "\\b"; break;
      case U'\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          ninfer::grammar::append_utf8(out, static_cast<uint32_t>(c));
        }
    }
  }
  return out;
}

void check_automaton(const CharAutomaton& a, const uint8_t* data, size_t size, std::string_view src) {
  const RangeDfa& d = a.dfa();
  if (d.num_states() == 0 || d.start >= d.num_states()) bug("automaton without a valid start", src);
  for (uint32_t s = 0; s < d.num_states(); ++s) {
    for (size_t i = 0; i < d.edges[s].size(); ++i) {
      const RangeEdge& e = d.edges[s][i];
      if (e.lo > e.hi || e.hi > 0x10FFFF || e.target >= d.num_states()) bug("malformed edge", src);
      if (e.lo <= 0xDFFF && e.hi >= 0xD800) bug("edge over surrogates", src);
      if (i && d.edges[s][i - 1].hi >= e.lo) bug("edges not sorted and disjoint", src);
    }
  }
  const ByteAutomaton rb = lower_to_bytes(d, Encoding::Raw);
  const ByteAutomaton jb = lower_to_bytes(d, Encoding::JsonString);
  // Random walks steered by the input: mostly accepted strings, plus one-character mutations.
  size_t cursor = 0;
  auto next = [&](size_t k) -> size_t { return size ? static_cast<size_t>(data[(cursor++ * 7919) % size]) % k : 0; };
  for (int walk = 0; walk < 6; ++walk) {
    std::u32string s;
    uint32_t st = d.start;
    for (int step = 0; step < 12; ++step) {
      if (d.edges[st].empty() || (d.accepting[st] && next(4) == 0)) break;
      const RangeEdge& e = d.edges[st][next(d.edges[st].size())];
      const uint32_t pick = next(3);
      const uint32_t c = pick == 0 ? e.lo : pick == 1 ? e.hi : e.lo + (e.hi - e.lo) / 2;
      s.push_back(static_cast<char32_t>(c));
      st = e.target;
    }
    if (walk % 2 == 1 && !s.empty()) s[next(s.size())] = static_cast<char32_t>(next(2) ? 'a' : 0x2028);
    const bool want = a.accepts(s);
    if (walk % 2 == 0 && want != (d.accepting[st] != 0)) bug("accepts() disagrees with the walk", src);
    if (byte_accepts(rb, raw(s), src) != want) bug("Raw lowering disagrees with accepts()", src);
    if (byte_accepts(jb, json(s), src) != want) bug("JsonString lowering disagrees with accepts()", src);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  // A small budget keeps every input fast; exceeding it is a typed, expected error.
  AutomatonBudget budget;
  budget.max_states = 2048;
  budget.max_length = 64;
  try {
    const CharAutomaton full = CharAutomaton::from_regex(src, RegexMode::FullMatch, budget);
    check_automaton(full, data, size, src);
    const CharAutomaton search = CharAutomaton::from_regex(src, RegexMode::Search, budget);
    check_automaton(search, data, size, src);
    // Every full match is also a search match.
    if (!(full.intersect(search, budget) == full)) bug("FullMatch language is not inside the Search language", src);
    if (full.is_empty() != (!full.dfa().accepting[full.dfa().start] && full.dfa().edges[full.dfa().start].empty()))
      bug("is_empty inconsistent", src);
    const CharAutomaton bounded = search.intersect(CharAutomaton::length_between(1, 3, budget), budget);
    check_automaton(bounded, data, size, src);
  } catch (const AutomatonBudgetExceeded& e) {
    if (e.kind() != ninfer::ConstraintErrorKind::UnsupportedSchema) bug("budget error with the wrong kind", src);
    if (e.limit().empty()) bug("budget error without the limit's name", src);
  } catch (const ninfer::ConstraintError& e) {
    if (e.kind() != ninfer::ConstraintErrorKind::InvalidRegex) bug("parse error with the wrong kind", src);
    if (e.offset() < 0 || static_cast<size_t>(e.offset()) > size) bug("error offset outside the pattern", src);
    if (e.what()[0] == '\0') bug("error without a message", src);
  }
  return 0;
}
