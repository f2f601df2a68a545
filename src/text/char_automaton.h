// Deterministic string automata over Unicode scalar values: what the regex and JSON Schema
// string constraints compile to before they become grammar IR. Transitions are labelled by
// disjoint code point ranges, so large classes ("." or [^"]) stay one or two edges.
//
// Errors: invalid patterns throw ninfer::ConstraintError(InvalidRegex) with a code point offset;
// constructions past an AutomatonBudget throw AutomatonBudgetExceeded (a ConstraintError of kind
// UnsupportedSchema, keyword "pattern"; see automaton_budget.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar_ir.h"
#include "text/automaton_budget.h"
#include "text/range_dfa.h"
#include "text/regex_parser.h"

namespace ninfer::text {

// How characters become bytes when an automaton is lowered into the grammar IR.
enum class Encoding {
  Raw,         // the UTF-8 bytes of each character
  JsonString,  // the character as written inside a JSON string literal by Python's
               // json.dumps(ensure_ascii=False): \" \\ \n \r \t \b \f, other controls \u00xx
               // (lowercase hex), everything else raw UTF-8 (including '/', U+007F, U+2028)
};

class CharAutomaton {
 public:
  // The empty language.
  CharAutomaton();

  static CharAutomaton from_regex(std::string_view pattern, RegexMode mode, const AutomatonBudget& budget = {});
  static CharAutomaton any_string();
  // Strings of min..max characters (max = UINT32_MAX: unbounded). A finite bound or a min above
  // budget.max_length throws AutomatonBudgetExceeded; min > max is the empty language.
  static CharAutomaton length_between(uint32_t min, uint32_t max, const AutomatonBudget& budget = {});
  static CharAutomaton literal(std::u32string_view s);

  // Product automaton (both languages), minimised; more than budget.max_states product states
  // throws AutomatonBudgetExceeded.
  CharAutomaton intersect(const CharAutomaton& other, const AutomatonBudget& budget = {}) const;

  // Every string of scalar values the automaton rejects.
  CharAutomaton complement() const;
  // Either language (by De Morgan over intersect).
  CharAutomaton unite(const CharAutomaton& other, const AutomatonBudget& budget = {}) const;
  bool is_empty() const { return !dfa_.accepting[dfa_.start] && dfa_.edges[dfa_.start].empty(); }
  // False for strings holding surrogates or values past U+10FFFF (not scalar values).
  bool accepts(std::u32string_view s) const;
  uint32_t num_states() const { return dfa_.num_states(); }

  // Adds an ExprKind::Automaton expression (a byte-level NFA) to `g` and returns its index.
  int32_t to_ir(grammar::Grammar& g, Encoding encoding) const;

  // The minimal DFA, canonically numbered: equal languages give equal automata.
  const RangeDfa& dfa() const { return dfa_; }
  bool operator==(const CharAutomaton& o) const {
    return dfa_.start == o.dfa_.start && dfa_.accepting == o.dfa_.accepting && dfa_.edges == o.dfa_.edges;
  }

 private:
  explicit CharAutomaton(RangeDfa minimal) : dfa_(std::move(minimal)) {}
  RangeDfa dfa_;
};

// Decodes UTF-8 (for callers holding bytes); each invalid byte becomes 0xFFFFFFFF, which no
// automaton accepts.
std::u32string utf8_to_u32(std::string_view s);

}  // namespace ninfer::text
