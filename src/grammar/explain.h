// Why an input is rejected: the bytes the grammar allows at the failing position, whether the
// language may end there, a short description a person reads ("expected one of: "," "}"",
// "expected a digit", "expected key "name" or "email""), and the labelled rules open there
// (JSON Pointers of schema nodes, GBNF rule names). Used by `grammar check`, by a request that
// reaches a dead end and by the continuation prefix of a chat request. Computed on failures only:
// nothing here runs on the mask path, and every search is bounded (the input is untrusted).
#pragma once

#include <bitset>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"

namespace ninfer::grammar {

struct Explanation {
  size_t offset = 0;                // bytes accepted before the position explained
  bool rejected = false;            // a byte at `offset` was refused (false: every byte was accepted)
  std::bitset<256> expected_bytes;  // bytes that may come next
  bool token = false;               // a whole named token (GBNF Token(...)) may come next
  bool can_end = false;             // the language may end here
  std::string expected;             // the human list: "expected one of: \",\" \"}\""
  // Labelled rules open at the position, outermost first ("/properties/sku: string matching ^[A-Z]+$").
  std::vector<std::string> path;
};

// From the matcher's current state, accepts `bytes` one at a time and explains the position of
// the first byte refused (or the position after the last byte when all are accepted). The
// matcher's state is unchanged.
Explanation explain_rejection(Matcher& m, std::string_view bytes);
// The same from the start of the grammar.
Explanation explain_rejection(const std::shared_ptr<const CompiledGrammar>& g, std::string_view bytes);
// What may come next at the matcher's current state.
inline Explanation explain_next(Matcher& m) { return explain_rejection(m, {}); }

// A byte set as a regular-expression class: "[,}]", "[0-9]", "[ -!#-\[\]-\x7f\xc2-\xf4]". Printable
// ASCII stands for itself ('\\', ']', '^' and '-' escaped with a backslash), other bytes as \xNN,
// runs of three or more as lo-hi.
std::string byte_class_text(const std::bitset<256>& bytes);

// One line: the human list and, when known, the open rules from the root
// ("expected a digit at (root): object with keys \"qty\" > /properties/qty: integer").
std::string explanation_summary(const Explanation& e);

}  // namespace ninfer::grammar
