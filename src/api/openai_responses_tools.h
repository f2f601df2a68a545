// OpenAI Responses `tools` (flat function tools), `tool_choice`, `parallel_tool_calls` and NInfer's
// `tool_enforcement` -> the template's `tools` variable in OpenAI Chat's nested shape (what chat
// templates and the frontend read) and RequestOptions::tool_choice (DESIGN.md section 6). Hosted
// tools (web_search, file_search, mcp, ...) are rejected by name: this server runs function tools only.
#pragma once

#include <optional>

#include "api/request_field.h"
#include "ninfer/chat.h"

namespace ninfer::api {

struct ResponsesTools {
  // [{"type":"function","function":{"name","description"?,"parameters"?,"strict"}}]; null when none.
  Json template_tools;
  // The tools as the response repeats them: flat, `strict` resolved ([] when none).
  Json echo = Json::array();
  std::optional<ToolChoice> tool_choice;  // set whenever there are tools
  Json tool_choice_echo = "auto";         // as the request wrote it
  bool parallel_tool_calls = true;
  // Tools are present and tool_choice is not "none": the output may hold tool calls.
  bool active() const { return tool_choice && tool_choice->mode != ToolChoiceMode::None; }
};

// Reads tools, tool_choice, parallel_tool_calls and tool_enforcement from the request body. A tool
// without `strict` is strict, as OpenAI's Responses API makes it (`strict: false` opts out).
ResponsesTools map_responses_tools(const Field& body);

}  // namespace ninfer::api
