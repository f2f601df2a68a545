// Test-only reference recogniser for the grammar IR, written independently of the compiler,
// automaton, Earley parser and matcher in src/grammar. It answers two exact questions about a
// byte string s (at most kMaxInput bytes):
//   is_complete(s)       s is a string of the language of the root rule;
//   is_viable_prefix(s)  s is a prefix of some string of the language.
// Semantics: set-of-end-positions evaluation of each expression at each start position, memoised
// per (rule, start) and solved as a least fixpoint (every memo entry starts empty and the whole
// demanded system is re-evaluated until nothing changes), which handles left recursion, hidden
// left recursion and ambiguity without special cases. The prefix question is answered by a
// second, boolean component of the same evaluation ("the input ends inside this expression and
// the expression, and everything after it, can still be completed").
// CharClass matches one UTF-8 encoded scalar value (no overlongs, no surrogates, <= U+10FFFF);
// ByteClass matches one byte; an Automaton expression is simulated as the byte NFA it embeds.
// TokenSet expressions are outside its scope (supported() is false).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "grammar/grammar_ir.h"

namespace ninfer::grammar::oracle {

class Run;

inline constexpr size_t kMaxInput = 127;

class Oracle {
 public:
  // Keeps a reference to `g`, which must outlive the oracle.
  explicit Oracle(const Grammar& g);

  struct Verdict {
    bool viable = false;    // s is a prefix of a string of the language
    bool complete = false;  // s is a string of the language
  };
  // Throws std::invalid_argument for inputs longer than kMaxInput or grammars with token sets.
  Verdict check(std::string_view s) const;
  bool is_viable_prefix(std::string_view s) const { return check(s).viable; }
  bool is_complete(std::string_view s) const { return check(s).complete; }

  // The language of the root rule is non-empty.
  bool root_productive() const;
  bool rule_productive(int32_t rule) const { return rule_productive_[rule] != 0; }
  bool expr_productive(int32_t expr) const { return expr_productive_[expr] != 0; }

  // False when a rule reachable from the root uses a TokenSet (whole-token) expression.
  static bool supported(const Grammar& g);

 private:
  const Grammar& g_;
  std::vector<uint8_t> rule_productive_;
  std::vector<uint8_t> expr_productive_;
  // For each Sequence expression: rest_productive_[e][k] = children k+1.. all derive something.
  std::vector<std::vector<uint8_t>> rest_productive_;
  // For each Automaton expression: per NFA state, whether an accepting state is reachable.
  std::vector<std::vector<uint8_t>> automaton_live_;

  friend class Run;
};

// Decodes one UTF-8 scalar at the start of `s` (strict: shortest form, no surrogates,
// <= U+10FFFF). Returns the encoded length (1..4), or 0 when `s` does not start with one.
int decode_utf8(std::string_view s, uint32_t& cp);

}  // namespace ninfer::grammar::oracle
