// The "tools" array of an OpenAI-shaped chat request as tool definitions, and the tool-call
// format a chat template writes.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ninfer/chat.h"

namespace ninfer::qwen3 {

// Ordered, so that each schema keeps its declared property order. Each element {"type":"function","function":{"name","description"?,"parameters"?,"strict"?}}.
// Names follow OpenAI's rule [a-zA-Z0-9_-]{1,64} and are unique. Throws RequestError(InvalidTools)
// with param() naming the field ("tools[2].function.name").
std::vector<ToolDefinition> parse_tools(const nlohmann::ordered_json& tools);

// Xml when the template source writes "<function=" (Qwen3-Coder, Qwen3.5), else Json (Qwen3).
ToolCallFormat tool_format_for_template(std::string_view template_source);

// OpenAI's tool name rule.
bool is_valid_tool_name(std::string_view name);

}  // namespace ninfer::qwen3
