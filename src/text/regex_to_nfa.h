// Thompson construction from the regex AST, including the implicit context of search mode.
#pragma once

#include "text/automaton_budget.h"
#include "text/char_nfa.h"
#include "text/regex_parser.h"

namespace ninfer::text {

// Throws AutomatonBudgetExceeded when the expanded NFA (bounded repetitions copy their operand)
// would exceed 16 * budget.max_states states; the check runs before anything is built.
CharNfa regex_to_nfa(const RegexAst& ast, RegexMode mode, const AutomatonBudget& budget);

}  // namespace ninfer::text
