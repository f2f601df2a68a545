// Model output as JSON text: a JSON string must be valid UTF-8, and a result cut off mid-character
// (max_tokens, a cancel) may end in part of one. Invalid bytes become U+FFFD, as decoders do.
#pragma once

#include <string>
#include <string_view>

namespace ninfer::api {

std::string valid_utf8(std::string_view text);

}  // namespace ninfer::api
