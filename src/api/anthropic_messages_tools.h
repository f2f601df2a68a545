// Anthropic Messages `tools`, `tool_choice` and NInfer's `tool_enforcement` -> the template's
// `tools` variable in the nested OpenAI shape the chat templates and the frontend read
// ({type: "function", function: {name, description, parameters: input_schema, strict}}) and
// RequestOptions::tool_choice (DESIGN.md section 6). Only client tools (type absent or "custom")
// exist here; Anthropic's server tools (web_search_..., bash_..., ...) are rejected by name.
#pragma once

#include <optional>

#include "api/request_field.h"
#include "ninfer/chat.h"

namespace ninfer::api {

struct AnthropicTools {
  Json tools;                             // the converted array; null when the request declares none
  std::optional<ToolChoice> tool_choice;  // set whenever there are tools
  bool active() const { return tool_choice && tool_choice->mode != ToolChoiceMode::None; }
};

// tool_choice: auto -> Auto, any -> Required, tool {name} -> Required + that name + parallel false,
// none -> None; disable_parallel_tool_use: true -> parallel false.
AnthropicTools map_anthropic_tools(const Field& body);

}  // namespace ninfer::api
