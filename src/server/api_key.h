// API-key checks: OpenAI clients send `Authorization: Bearer KEY`, Anthropic clients `x-api-key:
// KEY` (or a Bearer token). Compared in constant time, so that response timing tells nothing about
// how much of a guess was right.
#pragma once

#include <string_view>

namespace ninfer::server {

bool constant_time_equal(std::string_view a, std::string_view b);
// `authorization`: the Authorization header ("" when absent); `x_api_key`: the x-api-key header.
bool api_key_matches(std::string_view key, std::string_view authorization, std::string_view x_api_key,
                     bool accept_x_api_key);

}  // namespace ninfer::server
