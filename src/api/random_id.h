// Response and item ids: a protocol's prefix and random lowercase hex ("chatcmpl-…", "resp_…",
// "msg_…"), from a per-thread generator seeded by the OS.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ninfer::api {

std::string random_hex_id(std::string_view prefix, int hex_digits = 32);
// 64 random bits from the same generator (seeds the server draws for requests).
uint64_t random_u64();
// Unix seconds now.
int64_t unix_seconds_now();

}  // namespace ninfer::api
