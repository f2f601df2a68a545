// OpenAI Chat `tools`, `tool_choice`, `parallel_tool_calls` and NInfer's `tool_enforcement` ->
// the template's `tools` variable (as the client wrote them) and RequestOptions::tool_choice
// (DESIGN.md section 6). The outer shape is checked here; each tool's parameter schema and name
// rules are the frontend's, at prepare.
#pragma once

#include <optional>

#include "api/request_field.h"
#include "ninfer/chat.h"

namespace ninfer::api {

struct ChatTools {
  const Json* tools = nullptr;            // the request's tools array (in the body); null when there are none
  std::optional<ToolChoice> tool_choice;  // set whenever there are tools
  // Tools are present and tool_choice is not "none": the output may hold tool calls.
  bool active() const { return tool_choice && tool_choice->mode != ToolChoiceMode::None; }
};

// Reads tools, tool_choice, parallel_tool_calls and tool_enforcement from the request body.
ChatTools map_openai_tools(const Field& body);

}  // namespace ninfer::api
