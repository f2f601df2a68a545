// Size limits for the string automata built from regexes, length bounds and their
// intersections (DESIGN.md §5 "Limits"), and the error raised when a construction exceeds them.
#pragma once

#include <cstdint>
#include <string>

#include "ninfer/constraint_error.h"

namespace ninfer::text {

struct AutomatonBudget {
  uint32_t max_states = 65536;  // states of any deterministic automaton built (before minimisation)
  uint32_t max_length = 8192;   // largest repetition count / finite length bound, in characters
  uint32_t max_merges = 16384;  // intersections one schema reduction may perform (counted by the caller)
};

// Thrown when an automaton would exceed its budget. It is a ConstraintError of kind
// UnsupportedSchema with keyword "pattern" because the JSON Schema compiler is the main client: it
// only adds the JSON Pointer (and may replace the keyword, e.g. with "maxLength"). The `regex`
// constraint catches this type and reports it as LimitExceeded with the same limit instead.
class AutomatonBudgetExceeded : public ConstraintError {
 public:
  // `limit` names the budget field exceeded ("text.max_states", "text.max_length").
  AutomatonBudgetExceeded(const std::string& what, const std::string& limit, uint64_t value)
      : ConstraintError(ConstraintErrorKind::UnsupportedSchema, "string automaton too large: " + what) {
    with_keyword("pattern");
    with_limit(limit, value);
  }
};

}  // namespace ninfer::text
