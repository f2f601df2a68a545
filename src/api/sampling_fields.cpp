#include "api/sampling_fields.h"

#include <climits>
#include <cstdint>

namespace ninfer::api {

void map_openai_sampling(const Field& body, SamplingOptions& s) {
  if (auto f = body.optional_member("temperature")) s.temperature = static_cast<float>(f->number(0, 2));
  if (auto f = body.optional_member("top_p")) s.top_p = static_cast<float>(f->number(0, 1, true));
  if (auto f = body.optional_member("top_k")) {
    const int64_t k = f->integer(-1, INT_MAX);
    s.top_k = k < 0 ? 0 : static_cast<int>(k);  // vLLM: -1 (and 0) turn top-k off
  }
  if (auto f = body.optional_member("min_p")) s.min_p = static_cast<float>(f->number(0, 1));
  // Any 64-bit integer seeds; negative ones by their two's complement.
  if (auto f = body.optional_member("seed")) s.seed = static_cast<uint64_t>(f->integer(INT64_MIN, INT64_MAX));
}

}  // namespace ninfer::api
