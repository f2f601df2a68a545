// Free text that must not contain certain strings (a chat frontend's reasoning text may not hold
// "</think>"; a raw tool-call value may not hold its terminator).
#pragma once

#include <string>
#include <vector>

#include "text/char_automaton.h"

namespace ninfer::text {

// Every string of Unicode scalar values that holds none of `forbidden` (UTF-8 strings) as a
// substring. No forbidden strings = any string; an empty forbidden string = the empty language.
CharAutomaton text_excluding(const std::vector<std::string>& forbidden, const AutomatonBudget& budget = {});

}  // namespace ninfer::text
