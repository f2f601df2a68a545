// Counter-based RNG: a pure function of (seed, position, purpose, index), no state anywhere, so a
// draw depends only on its key — never on how many masks, compiles or other rows came before.
#include "ops/mix64.h"
#include "ops/sampling.h"

namespace ninfer::ops {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

}  // namespace

double rng_uniform(const RngKey& key, uint64_t index) {
  // Each key field is mixed on its own (with a distinct offset per field, so equal values in
  // different fields do not cancel) and then chained into the state: docs/sampling.md.
  uint64_t h = mix64(key.seed + kGolden);
  h = mix64(h ^ mix64(key.position + 2 * kGolden));
  h = mix64(h ^ mix64(static_cast<uint64_t>(key.purpose) + 3 * kGolden));
  h = mix64(h ^ mix64(index + 4 * kGolden));
  return static_cast<double>(h >> 11) * 0x1.0p-53;  // top 53 bits: every double k * 2^-53 in [0, 1)
}

}  // namespace ninfer::ops
