// GBNF (llama.cpp / XGrammar flavoured EBNF) → grammar IR, with line:column errors.
#pragma once

#include <string_view>

#include "grammar/grammar_ir.h"

namespace ninfer::grammar {

struct GbnfOptions {
  std::string_view root_rule = "root";
  // Groups/repetitions nested deeper are a TooDeep error. The parser recurses per level, so the
  // limit keeps its stack use far inside a thread's stack even in sanitizer builds.
  int max_nesting = 128;
  uint32_t max_repetition = 100000;  // {m,n} counts above this are a BadRepetition error
  // Source text and IR size: past these the parse stops with a TooLarge error (limit
  // gbnf.max_source_bytes / gbnf.max_expressions) before the grammar costs more memory.
  size_t max_source_bytes = 16u << 20;
  size_t max_expressions = 1u << 20;
};

// Throws GrammarError (located) on any malformed input; never crashes.
Grammar parse_gbnf(std::string_view source, const GbnfOptions& options = {});

}  // namespace ninfer::grammar
