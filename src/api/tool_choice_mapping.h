// The pieces of `tool_choice` and `tool_enforcement` that OpenAI Chat, OpenAI Responses and
// Anthropic Messages read alike, onto RequestOptions::tool_choice (DESIGN.md section 6). Each
// protocol keeps its own outer shape (Chat nests a chosen name in `function`, Responses keeps it
// flat, Anthropic names its modes auto/any/tool/none) and its own wording where they differ.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/request_field.h"
#include "ninfer/chat.h"

namespace ninfer::api {

// Where a chosen tool's name sits: Chat {type: "function", function: {name}}, Responses
// {type: "function", name}.
enum class ToolNameLayout { Nested, Flat };

// "none" | "auto" | "required" (OpenAI's string form).
ToolChoice string_tool_choice(const Field& choice);
// A named choice: exactly that tool, once (DESIGN.md section 6).
ToolChoice named_tool_choice(const std::string& name);
// `name` when it names a declared tool; otherwise a 400 at `name`.
const std::string& declared_tool_name(const Field& name, const std::vector<std::string>& declared);
// {type: "function", ...name} in `layout`, naming a declared tool; returns the name.
std::string chosen_tool_name(const Field& choice, const std::vector<std::string>& declared, ToolNameLayout layout);
// The `mode` (auto | required) and non-empty `tools` list of an allowed_tools choice, read from the
// object that holds them (the caller has checked its other members).
ToolChoice allowed_tools_choice(const Field& allowed, const std::vector<std::string>& declared, ToolNameLayout layout);
// tool_enforcement: "basic" | "automatic"; nullopt when absent. Checked even without tools.
std::optional<ToolEnforcement> map_tool_enforcement(const std::optional<Field>& enforcement);

}  // namespace ninfer::api
