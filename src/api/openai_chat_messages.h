// OpenAI Chat `messages` -> the `messages` variable of a chat template, converted the way vLLM
// converts them: content parts joined into one string, assistant tool-call arguments parsed from
// their JSON string into an object (templates iterate `arguments|items`), reasoning passed on as
// `reasoning_content`, and `developer` read as `system`.
#pragma once

#include "api/request_field.h"

namespace ninfer::api {

// `messages` must be a non-empty array; every rejection names its field (messages[i].content[j].type).
Json map_openai_messages(const Field& messages);
// The arguments of an assistant tool call, a JSON string (OpenAI) or an object, as an object (what
// templates iterate); a string that is not a JSON object is rejected at the field.
Json tool_call_arguments(const Field& arguments);

}  // namespace ninfer::api
