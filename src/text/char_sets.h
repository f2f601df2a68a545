// The named character sets of ECMAScript regexes, as normalised scalar-value ranges (sorted,
// merged, surrogates excluded).
#pragma once

#include <vector>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

using CharSet = std::vector<grammar::CodepointRange>;

const CharSet& any_scalar_set();  // every Unicode scalar value
const CharSet& digit_set();       // \d: [0-9]
const CharSet& word_set();        // \w: [A-Za-z0-9_] (ASCII only, as in ECMAScript without /i)
const CharSet& space_set();       // \s: WhiteSpace + LineTerminator
const CharSet& dot_set();         // .: everything but \n \r U+2028 U+2029 (no /s flag)

// Normalises arbitrary ranges (clipped to U+10FFFF, surrogates removed); `negate` complements
// within the scalar values.
CharSet normalize_set(CharSet ranges, bool negate);

}  // namespace ninfer::text
