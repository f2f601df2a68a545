// The language of a Qwen chat turn's output as one grammar: the thinking frame, then the body
// (free text or the request's constraint) and the tool calls, as tool_choice and the enforcement
// mode ask (DESIGN.md section 6; docs/chat-frontend.md).
#pragma once

#include <string>
#include <vector>

#include "grammar/grammar_ir.h"
#include "ninfer/chat.h"
#include "ninfer/output_constraint.h"

namespace ninfer::qwen3 {

// Everything the output grammar depends on.
struct OutputLanguage {
  OutputStart start = OutputStart::Body;
  const OutputConstraint* body = nullptr;              // response_format / structured_outputs; null = free text
  const std::vector<ToolDefinition>* tools = nullptr;  // null or empty = no tools
  ToolCallFormat format = ToolCallFormat::Json;        // resolved (Auto is read as Json)
  ToolChoice choice;                                   // mode, allowed_names, parallel, enforcement
};

// Whether the tools add rules to the language under the enforcement mode: Basic with tools, or
// Automatic when the request asks (a strict tool, allowed names narrower than all, Required /
// None, parallel=false).
bool tool_rules_enforced(const OutputLanguage& lang);

// False when nothing needs enforcing (free body and no tool rules): the engine then decodes
// unconstrained and only parses. `force` (a thinking budget) always asks for the grammar.
bool needs_grammar(const OutputLanguage& lang, bool force = false);

// Cache key: the inputs concatenated (length-prefixed), no lowering.
std::string output_language_key(const OutputLanguage& lang);

// The whole output language. Throws ConstraintError (tool schema errors carry in_tool(i) and the
// JSON Pointer inside that tool's parameters; the body's errors as its compiler throws them) and
// RequestError(InvalidTools) for a tool_choice naming an undeclared tool.
// Strict tools' argument grammars are lowered once per (format, parameters) and kept in a bounded
// process-wide cache, so requests sharing tools pay only the splice.
grammar::Grammar output_language_grammar(const OutputLanguage& lang);

// Empties that cache (benchmarks measure cold builds with it).
void clear_argument_grammar_cache();

}  // namespace ninfer::qwen3
