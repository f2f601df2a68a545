// Message content as every protocol writes it: a string, or an array of parts (OpenAI's content
// parts, Anthropic's content blocks), each an object with a `type`. Which types a place accepts, and
// the members each may carry, stay with the protocol.
#pragma once

#include <functional>
#include <string>

#include "api/request_field.h"

namespace ninfer::api {

// Calls `visit(part, type)` for each element of the array `content` once it is known to be an
// object with a `type`; content that is not an array is a 400 expecting `expected`.
void for_each_content_part(const Field& content, const std::string& expected,
                           const std::function<void(const Field& part, const Field& type)>& visit);

// A string, or the texts `part_text` reads (and checks) from each part, joined with "\n" (vLLM's
// "string" content format).
std::string joined_content_text(const Field& content, const std::string& expected,
                                const std::function<std::string(const Field& part, const Field& type)>& part_text);

}  // namespace ninfer::api
