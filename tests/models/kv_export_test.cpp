// Qwen3Model's KV export for the prefix cache: a prefix read out of one slot and appended to
// another (or the same, after truncation) leaves the model computing the suffix's logits bit for bit
// as if it had computed the prefix there itself, at every dtype; bad ranges are rejected.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "models/qwen3/qwen3_model.h"
#include "models/random_weights.h"

namespace ninfer::models::testing {
namespace {

using qwen3::Qwen3Model;
using qwen3::Qwen3ModelOptions;

std::vector<int32_t> some_tokens(int n, int vocab, int32_t salt) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) t[i] = (salt + 53 * i + i * i) % vocab;
  return t;
}

std::vector<float> forward_row(Qwen3Model& m, int slot, std::span<const int32_t> tokens, int logits_count) {
  std::vector<float> logits(static_cast<size_t>(logits_count) * m.vocab_size());
  ForwardRow row{slot, tokens, logits_count};
  m.forward({&row, 1}, logits);
  return logits;
}

class KvExport : public ::testing::TestWithParam<DType> {};

TEST_P(KvExport, RestoredPrefixGivesBitIdenticalLogits) {
  RandomWeightsOptions wo;
  wo.dtype = GetParam();
  const auto w = make_random_qwen3_weights(tiny_qwen3_config(), wo);
  Qwen3ModelOptions o;
  o.slots = 3;
  o.threads = 2;
  o.prefill_chunk = 8;
  Qwen3Model m(w, o);
  const int vocab = m.vocab_size();
  // 150 positions: the cache's 64-position blocks cut the copies' runs, at 64 and 128 (and below at
  // the reads from 50 on).
  const auto prefix = some_tokens(150, vocab, 3), suffix = some_tokens(11, vocab, 5);
  std::vector<int32_t> whole = prefix;
  whole.insert(whole.end(), suffix.begin(), suffix.end());

  // Computed in one go: the suffix's logits.
  const std::vector<float> want = forward_row(m, 0, whole, static_cast<int>(suffix.size()));

  // The prefix computed in slot 1, moved to slot 2 through the bytes, then the suffix.
  (void)forward_row(m, 1, prefix, 1);
  std::vector<std::byte> kv(prefix.size() * m.kv_bytes_per_position());
  m.read_kv(1, 0, static_cast<int>(prefix.size()), kv);
  m.append_kv(2, static_cast<int>(prefix.size()), kv);
  EXPECT_EQ(m.slot_length(2), static_cast<int>(prefix.size()));
  const std::vector<float> got = forward_row(m, 2, suffix, static_cast<int>(suffix.size()));
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0);

  // In two blocks at other offsets, into a slot that was used before.
  m.truncate_slot(1, 0);
  const int cut = 50;
  std::vector<std::byte> first(cut * m.kv_bytes_per_position()), second((prefix.size() - cut) * m.kv_bytes_per_position());
  m.read_kv(2, 0, cut, first);
  m.read_kv(2, cut, static_cast<int>(prefix.size()) - cut, second);
  m.append_kv(1, cut, first);
  m.append_kv(1, static_cast<int>(prefix.size()) - cut, second);
  const std::vector<float> again = forward_row(m, 1, suffix, static_cast<int>(suffix.size()));
  EXPECT_EQ(std::memcmp(again.data(), want.data(), want.size() * sizeof(float)), 0);
}

TEST_P(KvExport, BadRangesAreRejected) {
  RandomWeightsOptions wo;
  wo.dtype = GetParam();
  Qwen3ModelOptions o;
  o.slots = 2;
  o.max_context = 32;
  Qwen3Model m(make_random_qwen3_weights(tiny_qwen3_config(), wo), o);
  (void)forward_row(m, 0, some_tokens(10, m.vocab_size(), 1), 1);
  std::vector<std::byte> kv(40 * m.kv_bytes_per_position());
  EXPECT_THROW(m.read_kv(0, 5, 6, kv), std::invalid_argument);   // past the slot's length
  EXPECT_THROW(m.read_kv(0, -1, 2, kv), std::invalid_argument);
  EXPECT_THROW(m.read_kv(2, 0, 1, kv), std::invalid_argument);   // no such slot
  EXPECT_THROW(m.read_kv(0, 0, 10, std::span<std::byte>(kv).first(8)), std::invalid_argument);  // too small
  EXPECT_THROW(m.append_kv(1, 33, kv), std::invalid_argument);   // past max_context
  EXPECT_THROW(m.append_kv(1, 2, std::span<const std::byte>(kv).first(3)), std::invalid_argument);
  EXPECT_EQ(m.slot_length(1), 0);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, KvExport, ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ninfer::models::testing
