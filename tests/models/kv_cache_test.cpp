// KvCache (models/kv_cache.h): a slot grows in place, keeps what it holds, and stops at max_context.
#include "models/kv_cache.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ninfer::models {
namespace {

TEST(KvCache, ASlotGrowsInPlaceAndKeepsItsPositions) {
  KvCache kv(/*layers=*/3, /*kv_heads=*/2, /*head_dim=*/8, /*slots=*/2, /*max_context=*/1000);
  EXPECT_EQ(kv.keys(0, 0), nullptr);  // nothing reserved before first use
  EXPECT_EQ(kv.bytes(), 0u);
  kv.reserve(0, 5);
  const size_t per_position = 2 * 3 * 16 * sizeof(uint16_t);
  EXPECT_EQ(kv.bytes(), KvCache::kBlock * per_position);  // whole blocks
  uint16_t* keys = kv.keys(0, 2);
  uint16_t* values = kv.values(0, 2);
  for (int p = 0; p < 5; ++p)
    for (int c = 0; c < kv.kv_dim(); ++c) {
      keys[kv.key_index(p, c)] = static_cast<uint16_t>(p * 100 + c);
      values[kv.value_index(p, c)] = static_cast<uint16_t>(p * 100 + c + 1);
    }
  kv.reserve(0, 999);  // past several doublings: no copy, the same addresses
  EXPECT_EQ(kv.keys(0, 2), keys);
  EXPECT_EQ(kv.values(0, 2), values);
  EXPECT_EQ(kv.bytes(), 1024 * per_position);
  for (int p = 0; p < 5; ++p)
    for (int c = 0; c < kv.kv_dim(); ++c) {
      ASSERT_EQ(keys[kv.key_index(p, c)], p * 100 + c);
      ASSERT_EQ(values[kv.value_index(p, c)], p * 100 + c + 1);
    }
  // The last position of the last layer is writable, and fresh memory reads as zero.
  EXPECT_EQ(kv.keys(0, 2)[kv.key_index(998, kv.kv_dim() - 1)], 0);
  kv.values(0, 2)[kv.value_index(999, kv.kv_dim() - 1)] = 7;
  // Layers and slots do not overlap.
  EXPECT_NE(kv.keys(0, 1), kv.keys(0, 2));
  kv.reserve(1, 1);
  EXPECT_EQ(kv.keys(1, 2)[kv.key_index(0, 0)], 0);
  EXPECT_THROW(kv.reserve(1, 1001), std::length_error);
}

}  // namespace
}  // namespace ninfer::models
