#include "api/random_id.h"

#include <chrono>
#include <random>

namespace ninfer::api {

uint64_t random_u64() {
  thread_local std::mt19937_64 rng{std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32)};
  return rng();
}

std::string random_hex_id(std::string_view prefix, int hex_digits) {
  static const char* hex = "0123456789abcdef";
  std::string id(prefix);
  uint64_t bits = 0;
  for (int i = 0; i < hex_digits; ++i, bits >>= 4) {
    if (i % 16 == 0) bits = random_u64();
    id += hex[bits & 15];
  }
  return id;
}

int64_t unix_seconds_now() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(now).count();
}

}  // namespace ninfer::api
