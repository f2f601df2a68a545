#include "server/api_key.h"

#include <cstdint>

namespace ninfer::server {

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Walks the longer length whatever the inputs, and folds every difference into one value.
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  uint64_t diff = a.size() ^ b.size();
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<uint64_t>(x ^ y);
  }
  return diff == 0;
}

bool api_key_matches(std::string_view key, std::string_view authorization, std::string_view x_api_key,
                     bool accept_x_api_key) {
  bool ok = false;
  constexpr std::string_view bearer = "Bearer ";
  if (authorization.size() > bearer.size() && authorization.substr(0, bearer.size()) == bearer)
    ok |= constant_time_equal(authorization.substr(bearer.size()), key);
  if (accept_x_api_key && !x_api_key.empty()) ok |= constant_time_equal(x_api_key, key);
  return ok;
}

}  // namespace ninfer::server
