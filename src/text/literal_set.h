// A set of literal byte strings (choice options, enum / const values) as one deterministic
// automaton built in time linear in the strings' total bytes: sorted insertion into a minimal
// acyclic DFA (shared prefixes and suffixes), instead of an alternation the grammar compiler
// would have to determinise. Numbers may be added as their sets of spellings (number_spellings.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar_automaton.h"
#include "grammar/grammar_ir.h"

namespace ninfer::text {

class LiteralSet {
 public:
  void add(std::string bytes) { strings_.push_back(std::move(bytes)); }
  // Every spelling of the JSON number `text` (throws std::invalid_argument if it is not one).
  void add_number(std::string text) { numbers_.push_back(std::move(text)); }
  bool empty() const { return strings_.empty() && numbers_.empty(); }
  size_t size() const { return strings_.size() + numbers_.size(); }

  // The automaton of all strings and spellings added (deterministic when no number shares a
  // first byte with another entry). A set whose minimal automaton needs more than `max_states`
  // states is a LimitExceeded error (automaton.max_dfa_states) as soon as the count passes it,
  // not after the whole set was built and handed to the grammar compiler.
  std::shared_ptr<grammar::ByteAutomaton> build(uint32_t max_states = grammar::AutomatonLimits{}.max_dfa_states);

 private:
  std::vector<std::string> strings_;
  std::vector<std::string> numbers_;
};

}  // namespace ninfer::text
