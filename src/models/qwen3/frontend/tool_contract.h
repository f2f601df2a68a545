// One parsed tool definition, read once and used by both the grammar and the parser: the
// parameter schema as JSON and, for the XML format, how each top-level parameter is written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ninfer/chat.h"
#include "text/char_automaton.h"

namespace ninfer::qwen3 {

using OJson = nlohmann::ordered_json;

// How an XML parameter value is written (DESIGN.md section 6).
enum class XmlValueKind {
  RawString,        // the string itself, unquoted, up to "\n</parameter>"
  RawStringOrNull,  // ["string","null"]: raw text, where exactly "null" or "None" (the template's rendering) is null
  Json,             // every other type: JSON (the template renders nested values with tojson)
};

struct XmlParameter {
  std::string name;
  std::string pointer;  // JSON Pointer of the property's schema inside the tool's parameters
  bool required = false;
  XmlValueKind kind = XmlValueKind::Json;
  // The property's schema as a document of its own (the root's $defs / definitions / $schema
  // carried along so local references still resolve).
  OJson schema;
  // Json: the Python spellings the template renders (True / False / None) that the schema admits.
  bool python_true = false, python_false = false, python_none = false;
};

struct ToolContract {
  int index = -1;
  const ToolDefinition* definition = nullptr;
  OJson parameters = OJson::object();  // the parsed schema ({} when none was declared)
  // XML, strict tools only (filled by plan_xml_parameters): the declared parameters in order.
  std::vector<XmlParameter> xml_parameters;
  bool xml_additional = false;  // undeclared parameters allowed (additionalProperties absent or true)
};

// Parses the parameter schema (ConstraintError InvalidJsonSchema in_tool(index) when it is not JSON).
ToolContract read_tool_contract(const ToolDefinition& tool, int index);

// The strict XML plan: the root must be an object schema whose top-level properties each have a
// string type, a string-or-null type or only non-string types. Throws ConstraintError
// (UnsupportedSchema, in_tool, at the pointer) for ambiguous unions and for root keywords the
// XML format cannot express.
void plan_xml_parameters(ToolContract& contract);

// Same, without throwing: false (and the plan left empty) when the schema cannot be planned.
bool try_plan_xml_parameters(ToolContract& contract);

// The string language of a RawString / RawStringOrNull parameter's schema (enum, const, pattern,
// length, format, anyOf, allOf, not, $ref). Throws ConstraintError(UnsupportedSchema) at the
// keyword's pointer for anything else that asserts on strings.
text::CharAutomaton xml_string_language(const XmlParameter& parameter);

// JSON Pointer escaping of one reference token.
std::string pointer_token(const std::string& name);

}  // namespace ninfer::qwen3
