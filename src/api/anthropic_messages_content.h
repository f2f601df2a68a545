// Anthropic Messages `system` and `messages` -> the `messages` variable of a chat template, in the
// OpenAI shape the templates read (what vLLM's Anthropic endpoint does too):
// - `system` (a string or text blocks) -> one leading system message;
// - text blocks of a turn are joined with "\n" into its content;
// - assistant `tool_use` blocks {id, name, input} -> tool_calls [{id, type, function: {name,
//   arguments: input}}] (templates iterate the arguments object), `thinking` blocks ->
//   reasoning_content;
// - user `tool_result` blocks {tool_use_id, content, is_error} -> role "tool" messages, in the order
//   they appear among the turn's text (consecutive text blocks stay one user message).
// Images, documents and other media are rejected at their block's `type`. Every rejection names its
// field in the Anthropic request (messages[i].content[j].type).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/request_field.h"

namespace ninfer::api {

struct AnthropicConversation {
  Json messages = Json::array();  // the template's messages
  // The request field each template message came from ("system", "messages[2]"): a system message
  // comes first and a turn's tool_results are messages of their own, so the indices differ.
  std::vector<std::string> paths;
  // The request ends with an assistant turn: Anthropic's prefill, which the response continues.
  bool ends_with_assistant = false;
};

// `system` may be absent; `messages` must be a non-empty array of user and assistant turns.
AnthropicConversation map_anthropic_messages(const std::optional<Field>& system, const Field& messages);

}  // namespace ninfer::api
