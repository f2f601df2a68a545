// Copies one grammar into another, so that front ends can combine grammars lowered separately
// (a tool's argument schema, a response_format body) into one language.
#pragma once

#include <string>

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {

// Appends every expression, rule, any-order object and rule origin of `src` to `dst` (indices
// shifted, rule names prefixed with `name_prefix` so they stay distinct) and returns the index in
// `dst` of the rule that was `src`'s root. `dst.root` is left as it was.
int32_t splice_grammar(Grammar& dst, const Grammar& src, const std::string& name_prefix);

}  // namespace ninfer::grammar
