// The JSON value of one raw XML parameter value, typed as vLLM's qwen3_coder parser types it
// (FACTS.md 5.2), or by the strict plan of a strict tool.
#pragma once

#include <string>

#include "models/qwen3/frontend/tool_contract.h"

namespace ninfer::qwen3 {

// vLLM's typing: "null" (any case) -> null; then by the schema's "type" name: string-like -> the
// text; int-like -> an integer when the text is one, else the text; number-like -> a number (an
// integer when integral); boolean-like -> text.lower() == "true"; object/array-like -> JSON, else a
// Python literal, else the text. `property_schema` null (an undeclared parameter) -> the text.
OJson vllm_typed_value(const std::string& raw, const OJson* property_schema);

// A strict tool's declared parameter: RawString -> the text; RawStringOrNull -> null for "null" or "None",
// else the text; Json -> the JSON value, or the Python spelling True / False / None, else (only
// reachable without the grammar) vLLM's typing.
OJson strict_typed_value(const std::string& raw, const XmlParameter& parameter);

// The same values as JSON text (for a call's arguments): their dump, except that an integer past
// binary64, which OJson cannot hold and the typing therefore leaves as text, keeps its digits, as
// Python's int() and json.dumps do (and as the JSON tool-call format keeps the model's number text).
std::string vllm_typed_json(const std::string& raw, const OJson* property_schema);
std::string strict_typed_json(const std::string& raw, const XmlParameter& parameter);

// Python literal syntax (what the template's "args_value | string" writes for dicts and lists, or
// ast.literal_eval accepts): dicts, lists, tuples, quoted strings, numbers, True, False, None.
// Returns false when the text is not one.
bool parse_python_literal(const std::string& text, OJson& out);

}  // namespace ninfer::qwen3
