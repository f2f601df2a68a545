// safetensors and GGUF: conversions, write-then-read round trips for every dtype, sharding-free
// metadata, alignment, and the views pointing into the mapping rather than copies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "models/dtype_convert.h"
#include "models/gguf.h"
#include "models/mapped_file.h"
#include "models/model_format_test_support.h"
#include "models/safetensors.h"
#include "models/tensor.h"

namespace ninfer::models::testing {
namespace {

std::vector<float> random_values(size_t n, uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Encodes values as `dtype` bytes (row-major, rows of `cols`).
std::vector<uint8_t> encode(DType dtype, const std::vector<float>& v, int64_t cols) {
  std::vector<uint8_t> out;
  switch (dtype) {
    case DType::F32:
      out.resize(v.size() * 4);
      std::memcpy(out.data(), v.data(), out.size());
      break;
    case DType::F16:
    case DType::BF16:
      out.resize(v.size() * 2);
      for (size_t i = 0; i < v.size(); ++i) {
        const uint16_t h = dtype == DType::F16 ? f32_to_f16(v[i]) : f32_to_bf16(v[i]);
        std::memcpy(out.data() + 2 * i, &h, 2);
      }
      break;
    case DType::Q8_0:
      out.resize(v.size() / 32 * 34);
      for (size_t b = 0; b < v.size() / 32; ++b) quantize_q8_0_block(v.data() + 32 * b, out.data() + 34 * b);
      break;
  }
  (void)cols;
  return out;
}

float rounded(DType dtype, float x) {
  switch (dtype) {
    case DType::F32: return x;
    case DType::F16: return f16_to_f32(f32_to_f16(x));
    case DType::BF16: return bf16_to_f32(f32_to_bf16(x));
    case DType::Q8_0: break;
  }
  return x;
}

TEST(ModelFormat, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3C00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xC000);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7C00);  // rounds up to infinity
  EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(std::nanf("")))));
  EXPECT_EQ(f32_to_f16(5.9604645e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(f32_to_f16(2.9802322e-08f), 0x0000);  // half of it: tie to even (zero)
  EXPECT_EQ(f32_to_f16(1.0f + 1.0f / 2048), 0x3C00);  // tie between 1 and 1+2^-10: even
  EXPECT_EQ(f32_to_f16(1.0f + 3.0f / 2048), 0x3C02);  // tie: up to even
  // Every half value converts to float and back exactly.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), h) << std::hex << h;
  }
  // Against a double-precision rounding for random floats across the range.
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), std::uniform_int_distribution<int>(-26, 16)(rng));
    const float y = f16_to_f32(f32_to_f16(x));
    if (std::isinf(y)) {
      ASSERT_GE(std::fabs(x), 65520.0f) << x;  // IEEE overflow threshold: max half + half an ulp
      continue;
    }
    // No half value lies strictly closer to x than y.
    const uint16_t h = f32_to_f16(x);
    for (int d : {-1, 1}) {
      const uint16_t n = static_cast<uint16_t>(h + d);
      const float z = f16_to_f32(n);
      if (std::isnan(z) || std::isinf(z) || ((n ^ h) & 0x8000)) continue;
      ASSERT_LE(std::fabs(static_cast<double>(y) - x), std::fabs(static_cast<double>(z) - x)) << x;
    }
  }
}

TEST(ModelFormat, Bf16ConversionsRoundToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(bf16_to_f32(0x3F80), 1.0f);
  EXPECT_EQ(f32_to_bf16(bits_float(0x3F808000u)), 0x3F80);  // tie: stays even
  EXPECT_EQ(f32_to_bf16(bits_float(0x3F818000u)), 0x3F82);  // tie: up to even
  EXPECT_EQ(f32_to_bf16(bits_float(0x3F808001u)), 0x3F81);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = bf16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_bf16(f), h);
  }
}

TEST(ModelFormat, Q8_0BlocksMatchTheReferenceQuantiser) {
  std::vector<float> x = random_values(64, 3, 0.1f);
  x[5] = 0;
  uint8_t block[34];
  quantize_q8_0_block(x.data(), block);
  float amax = 0;
  for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float d = amax / 127;
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(static_cast<int8_t>(block[2 + i]), static_cast<int>(std::round(x[i] / d))) << i;
    EXPECT_NEAR(q8_0_value(block, i), x[i], d * 0.5 + std::fabs(x[i]) * 1e-3) << i;
  }
  std::vector<float> zeros(32, 0.0f);
  quantize_q8_0_block(zeros.data(), block);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(q8_0_value(block, i), 0.0f);
}

TEST(ModelFormat, RowBytesAndNames) {
  EXPECT_EQ(row_bytes(DType::F32, 10), 40u);
  EXPECT_EQ(row_bytes(DType::F16, 10), 20u);
  EXPECT_EQ(row_bytes(DType::BF16, 10), 20u);
  EXPECT_EQ(row_bytes(DType::Q8_0, 64), 68u);
  EXPECT_THROW(row_bytes(DType::Q8_0, 33), std::invalid_argument);
  EXPECT_STREQ(dtype_name(DType::Q8_0), "q8_0");
  EXPECT_STREQ(dtype_name(DType::BF16), "bf16");
  EXPECT_STREQ(model_error_kind_name(ModelErrorKind::UnknownDtype), "UnknownDtype");
}

TEST(ModelFormat, MappedFileMapsAndReportsMissingFiles) {
  TempDir tmp;
  write_text(tmp.file("a.bin"), "hello");
  auto f = MappedFile::open(tmp.file("a.bin"));
  ASSERT_EQ(f->size(), 5u);
  EXPECT_EQ(std::memcmp(f->data(), "hello", 5), 0);
  write_text(tmp.file("empty.bin"), "");
  EXPECT_EQ(MappedFile::open(tmp.file("empty.bin"))->size(), 0u);
  expect_model_error([&] { MappedFile::open(tmp.file("nope.bin")); }, ModelErrorKind::NotFound, "nope.bin");
  expect_model_error([&] { MappedFile::open(tmp.path()); }, ModelErrorKind::NotFound, tmp.path());
}

TEST(ModelFormat, AHugePageCopyHoldsTheFilesBytesOnA2MiBBoundary) {
  // Residency::HugePages: the bytes copied into anonymous memory (2 MiB aligned, so that huge pages
  // can back it), the same as the mapping's, across a size that is not a whole number of pages.
  TempDir tmp;
  std::string text(3 * 4096 + 123, '\0');
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i * 7 % 26);
  write_text(tmp.file("b.bin"), text);
  auto mapped = MappedFile::open(tmp.file("b.bin"));
  auto copied = MappedFile::open(tmp.file("b.bin"), Residency::HugePages);
  ASSERT_EQ(copied->size(), text.size());
  EXPECT_EQ(std::memcmp(copied->data(), mapped->data(), text.size()), 0);
  EXPECT_NE(copied->data(), mapped->data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copied->data()) % (uintptr_t(2) << 20), 0u);
  write_text(tmp.file("empty.bin"), "");
  EXPECT_EQ(MappedFile::open(tmp.file("empty.bin"), Residency::HugePages)->size(), 0u);
  expect_model_error([&] { MappedFile::open(tmp.file("nope.bin"), Residency::HugePages); }, ModelErrorKind::NotFound,
                     "nope.bin");
}

class SafetensorsRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(SafetensorsRoundTrip, WriteThenReadGivesTheSameValues) {
  const DType dtype = GetParam();
  TempDir tmp;
  const auto a = random_values(24 * 40, 1);
  const auto b = random_values(40, 2);
  const auto c = random_values(0, 3);
  {
    safetensors::Writer w(tmp.file("m.safetensors"),
                          {{"layer.a", dtype, {24, 40}}, {"layer.b", dtype, {40}}, {"empty", dtype, {0, 4}}},
                          {{"format", "pt"}, {"note", "x"}});
    const auto ea = encode(dtype, a, 40);
    // In pieces, to exercise streaming.
    w.write(ea.data(), 7);
    w.write(ea.data() + 7, ea.size() - 7);
    const auto eb = encode(dtype, b, 40);
    w.write(eb.data(), eb.size());
    w.finish();
  }
  const safetensors::File f = safetensors::open(tmp.file("m.safetensors"));
  EXPECT_EQ(f.metadata.at("format"), "pt");
  EXPECT_EQ(f.metadata.at("note"), "x");
  ASSERT_EQ(f.tensors.size(), 3u);
  const TensorView* ta = f.find("layer.a");
  const TensorView* tb = f.find("layer.b");
  ASSERT_TRUE(ta && tb && f.find("empty"));
  EXPECT_EQ(ta->shape, (std::vector<int64_t>{24, 40}));
  EXPECT_EQ(tb->shape, (std::vector<int64_t>{40}));
  EXPECT_EQ(ta->dtype, dtype);
  EXPECT_EQ(ta->rows(), 24);
  EXPECT_EQ(ta->cols(), 40);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(tensor_element(*ta, static_cast<int64_t>(i)), rounded(dtype, a[i])) << i;
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(tensor_element(*tb, static_cast<int64_t>(i)), rounded(dtype, b[i])) << i;
  // Zero-copy: the views point into the mapped file.
  const auto* map = static_cast<const MappedFile*>(f.storage.back().get());
  const auto* p = static_cast<const uint8_t*>(ta->data);
  EXPECT_TRUE(p >= map->data() && p + ta->bytes <= map->data() + map->size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, SafetensorsRoundTrip, ::testing::Values(DType::F32, DType::F16, DType::BF16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(ModelFormat, SafetensorsMisalignedTensorIsCopiedAligned) {
  // A hand-made header whose length is not a multiple of 4 leaves an F32 tensor misaligned.
  std::string header = R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  while ((8 + header.size()) % 4 != 1) header += ' ';
  std::vector<uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(header.size() >> (8 * i));
  bytes.insert(bytes.end(), header.begin(), header.end());
  const float vals[2] = {1.5f, -2.25f};
  const auto* vp = reinterpret_cast<const uint8_t*>(vals);
  bytes.insert(bytes.end(), vp, vp + 8);
  // Place the image at an aligned address so that the misalignment is the file's own.
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  const auto f = safetensors::parse({reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size()}, "mem");
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.tensors[0].data) % 4, 0u);
  EXPECT_EQ(tensor_element(f.tensors[0], 0), 1.5f);
  EXPECT_EQ(tensor_element(f.tensors[0], 1), -2.25f);
}

TEST(ModelFormat, SafetensorsWriterRefusesMisuse) {
  TempDir tmp;
  EXPECT_THROW(safetensors::Writer(tmp.file("q.safetensors"), {{"q", DType::Q8_0, {1, 32}}}), std::invalid_argument);
  safetensors::Writer w(tmp.file("s.safetensors"), {{"a", DType::F32, {2}}});
  const float v[3] = {};
  EXPECT_THROW(w.write(v, 12), std::logic_error);
  w.write(v, 4);
  EXPECT_THROW(w.finish(), std::logic_error);
}

class GgufRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(GgufRoundTrip, WriteThenReadGivesTheSameValues) {
  const DType dtype = GetParam();
  TempDir tmp;
  const auto a = random_values(24 * 64, 11, 0.05f);
  const auto b = random_values(64, 12);
  {
    gguf::Writer w(tmp.file("m.gguf"));
    w.set("general.architecture", gguf::Value::string("test"));
    w.set("x.u32", gguf::Value::u32(123456));
    w.set("x.i32", gguf::Value::i32(-7));
    w.set("x.u64", gguf::Value::u64(uint64_t{1} << 40));
    w.set("x.f32", gguf::Value::f32(0.25f));
    w.set("x.bool", gguf::Value::boolean(true));
    w.set("x.strings", gguf::Value::string_array({"a", "", "ccc"}));
    w.set("x.ints", gguf::Value::i32_array({1, -2, 3}));
    gguf::Value f64;
    f64.type = gguf::ValueType::F64;
    f64.f = 1e-300;
    w.set("x.f64", f64);
    gguf::Value floats;
    floats.type = gguf::ValueType::Array;
    floats.element = gguf::ValueType::F32;
    floats.floats = {0.5, -1.5};
    w.set("x.floats", floats);
    w.add_tensor("blk.0.w", dtype, {24, 64});
    w.add_tensor("blk.0.n", DType::F32, {64});
    w.begin();
    const auto ea = encode(dtype, a, 64);
    w.write(ea.data(), 5);
    w.write(ea.data() + 5, ea.size() - 5);
    const auto eb = encode(DType::F32, b, 64);
    w.write(eb.data(), eb.size());
    w.finish();
  }
  const gguf::File f = gguf::open(tmp.file("m.gguf"));
  EXPECT_EQ(f.version, 3u);
  EXPECT_EQ(f.alignment, 32u);
  EXPECT_EQ(f.get_string("general.architecture"), "test");
  EXPECT_EQ(f.get_int("x.u32"), 123456);
  EXPECT_EQ(f.get_int("x.i32"), -7);
  EXPECT_EQ(f.get_int("x.u64"), int64_t{1} << 40);
  EXPECT_EQ(f.get_number("x.f32"), 0.25);
  EXPECT_EQ(f.get_number("x.f64"), 1e-300);
  EXPECT_EQ(f.find("x.bool")->i, 1);
  EXPECT_EQ(f.find("x.strings")->strings, (std::vector<std::string>{"a", "", "ccc"}));
  EXPECT_EQ(f.find("x.ints")->ints, (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(f.find("x.floats")->floats, (std::vector<double>{0.5, -1.5}));
  expect_model_error([&] { f.get_int("x.strings"); }, ModelErrorKind::BadConfig, "m.gguf:x.strings");
  expect_model_error([&] { f.get_string("x.absent"); }, ModelErrorKind::BadConfig, "m.gguf:x.absent");

  const TensorView* ta = f.find_tensor("blk.0.w");
  const TensorView* tb = f.find_tensor("blk.0.n");
  ASSERT_TRUE(ta && tb);
  EXPECT_EQ(ta->shape, (std::vector<int64_t>{24, 64}));  // ne = {64, 24}: rows = ne[1]
  EXPECT_EQ(ta->dtype, dtype);
  EXPECT_EQ(ta->bytes, 24 * row_bytes(dtype, 64));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ta->data) % 32, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tb->data) % 32, 0u);
  double worst = 0;
  for (int64_t r = 0; r < 24; ++r) {
    float amax = 0;  // Q8_0 error bound per block: half a quantisation step (+ f16 scale rounding)
    for (int64_t i = 0; i < 64; ++i) {
      if (i % 32 == 0) {
        amax = 0;
        for (int64_t k = i; k < i + 32; ++k) amax = std::max(amax, std::fabs(a[r * 64 + k]));
      }
      const float got = tensor_element(*ta, r * 64 + i);
      const float want = a[static_cast<size_t>(r * 64 + i)];
      if (dtype == DType::Q8_0) {
        const double err = std::fabs(got - want);
        worst = std::max(worst, err / (amax / 127));
        ASSERT_LE(err, amax / 127 * 0.5 + amax * 1e-3) << r << "," << i;
      } else {
        ASSERT_EQ(got, rounded(dtype, want));
      }
    }
  }
  if (dtype == DType::Q8_0) std::printf("[ gguf ] q8_0 worst error %.3f quantisation steps\n", worst);
  for (int64_t i = 0; i < 64; ++i) ASSERT_EQ(tensor_element(*tb, i), b[static_cast<size_t>(i)]);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, GgufRoundTrip, ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(ModelFormat, GgufCustomAlignmentIsWrittenAndHonoured) {
  TempDir tmp;
  {
    gguf::Writer w(tmp.file("a.gguf"), 64);
    w.add_tensor("a", DType::F32, {3});
    w.add_tensor("b", DType::F32, {5});
    w.begin();
    const float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    w.write(v, sizeof v);
    w.finish();
  }
  const gguf::File f = gguf::open(tmp.file("a.gguf"));
  EXPECT_EQ(f.alignment, 64u);
  EXPECT_EQ(f.get_int("general.alignment"), 64);
  EXPECT_EQ(f.data_offset % 64, 0u);
  EXPECT_EQ(tensor_element(*f.find_tensor("b"), 0), 4.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.find_tensor("b")->data) % 64, 0u);
}

TEST(ModelFormat, GgufWriterRefusesMisuse) {
  TempDir tmp;
  gguf::Writer w(tmp.file("w.gguf"));
  EXPECT_THROW(w.add_tensor("q", DType::Q8_0, {2, 33}), std::invalid_argument);
  w.add_tensor("a", DType::F32, {2});
  w.begin();
  EXPECT_THROW(w.set("late", gguf::Value::u32(1)), std::logic_error);
  const float v[3] = {};
  EXPECT_THROW(w.write(v, 12), std::logic_error);
  EXPECT_THROW(w.finish(), std::logic_error);
}

}  // namespace
}  // namespace ninfer::models::testing
