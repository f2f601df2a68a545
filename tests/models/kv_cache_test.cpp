// KvCache (models/kv_cache.h): a slot grows in place, keeps what it holds, and stops at max_context.
#include "models/kv_cache.h"

#include <gtest/gtest.h>

#include <set>
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

// Every layer's keys and values of every position have an element of their own, and the positions
// [0, n) of a slot are the first whole blocks of its memory, whatever the layer: a slot commits one
// contiguous range as it grows.
TEST(KvCache, EveryElementHasItsOwnPlaceAndBlocksFillTheSlotInOrder) {
  const int layers = 3, kv_heads = 2, head_dim = 8, max_context = 3 * KvCache::kBlock + 5;
  KvCache kv(layers, kv_heads, head_dim, /*slots=*/1, max_context);
  kv.reserve(0, max_context);
  const uint16_t* base = kv.keys(0, 0);
  const int64_t per_block = int64_t{2} * layers * kv.kv_dim() * KvCache::kBlock;
  EXPECT_EQ(kv.block_stride(), per_block);
  std::set<int64_t> seen;
  for (int l = 0; l < layers; ++l)
    for (int p = 0; p < max_context; ++p)
      for (int c = 0; c < kv.kv_dim(); ++c) {
        const int64_t k = kv.keys(0, l) + kv.key_index(p, c) - base;
        const int64_t v = kv.values(0, l) + kv.value_index(p, c) - base;
        ASSERT_TRUE(seen.insert(k).second) << "layer " << l << " position " << p << " channel " << c;
        ASSERT_TRUE(seen.insert(v).second) << "layer " << l << " position " << p << " channel " << c;
        for (int64_t e : {k, v}) {  // inside its block, and the block is its position's
          ASSERT_GE(e, p / KvCache::kBlock * per_block);
          ASSERT_LT(e, (p / KvCache::kBlock + 1) * per_block);
        }
      }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), int64_t{2} * layers * max_context * kv.kv_dim());
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_LT(*seen.rbegin(), 4 * per_block);  // max_context in 4 blocks
}

}  // namespace
}  // namespace ninfer::models
