// OpenAI Responses `instructions` and `input` -> the `messages` variable of a chat template, in the
// shape the OpenAI Chat mapping gives it (openai_chat_messages.h):
//   instructions                 -> a first {"role":"system"} message
//   a string input               -> one user message
//   message items                -> messages (developer read as system; content parts joined with "\n")
//   function_call items          -> tool_calls of an assistant message (arguments parsed to an object);
//                                   consecutive calls join the assistant message before them
//   function_call_output items   -> {"role":"tool","tool_call_id","content"} messages
//   reasoning items              -> reasoning_content of the assistant message that follows (an
//                                   assistant message with empty content when none follows)
// Items that need state this server does not keep (item_reference, encrypted reasoning) and items of
// hosted tools are rejected by their field.
#pragma once

#include <optional>

#include "api/request_field.h"

namespace ninfer::api {

Json map_responses_input(const Field& input, const std::optional<Field>& instructions);

}  // namespace ninfer::api
