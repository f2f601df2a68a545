// Byte automata for the contents of JSON string literals in NInfer's generation language: raw
// UTF-8 for every scalar value except '"', '\\' and U+0000..U+001F, which use the canonical escapes
// of Python's json.dumps(ensure_ascii=False) (\" \\ \b \f \n \r \t, else \u00XX lowercase).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

// Any string content (no surrounding quotes).
std::shared_ptr<const grammar::ByteAutomaton> json_string_content();

// Any string content except the canonical encodings of `excluded` (decoded string values).
std::shared_ptr<const grammar::ByteAutomaton> json_string_content_except(const std::vector<std::string>& excluded);

// The canonical JSON literal (with quotes) of a UTF-8 string value.
std::string json_quote(const std::string& value);

}  // namespace ninfer::text
