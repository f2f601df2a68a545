// Corrupted model files: truncation at every header offset and many data offsets, flipped header
// bytes, and hand-made bad fields in safetensors and GGUF files. Each must end in a ModelError of
// the right kind naming the place, never a crash, a foreign exception or a huge allocation (the
// ASan build checks the last two).
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "models/gguf.h"
#include "models/model_format_test_support.h"
#include "models/safetensors.h"

namespace ninfer::models::testing {
namespace {

using json = nlohmann::json;

// A small valid safetensors image: three tensors of different dtypes.
std::vector<uint8_t> small_safetensors(const TempDir& tmp) {
  const std::string path = tmp.file("small.safetensors");
  safetensors::Writer w(path, {{"a", DType::F32, {4, 8}}, {"b", DType::BF16, {8}}, {"c", DType::F16, {2, 2}}}, {{"format", "pt"}});
  std::vector<uint8_t> data(4 * 8 * 4 + 8 * 2 + 4 * 2);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  w.write(data.data(), data.size());
  w.finish();
  return read_bytes(path);
}

// A small valid GGUF image: a few metadata kinds, three tensors (one Q8_0).
std::vector<uint8_t> small_gguf(const TempDir& tmp) {
  const std::string path = tmp.file("small.gguf");
  gguf::Writer w(path);
  w.set("general.architecture", gguf::Value::string("qwen3"));
  w.set("n", gguf::Value::u32(3));
  w.set("list", gguf::Value::string_array({"x", "yy"}));
  w.set("ids", gguf::Value::i32_array({1, 2, 3}));
  w.add_tensor("t.f32", DType::F32, {2, 4});
  w.add_tensor("t.q8", DType::Q8_0, {2, 32});
  w.add_tensor("t.bf16", DType::BF16, {3});
  w.begin();
  std::vector<uint8_t> data(2 * 4 * 4 + 2 * 34 + 3 * 2);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i);
  w.write(data.data(), data.size());
  w.finish();
  return read_bytes(path);
}

// Parses; returns the error kind, or nullopt on success. Anything but ModelError fails the test.
template <class Parse>
std::optional<ModelErrorKind> outcome(Parse parse, const std::vector<uint8_t>& bytes, const std::string& what) {
  try {
    parse(std::span<const uint8_t>(bytes.data(), bytes.size()), "mem");
    return std::nullopt;
  } catch (const ModelError& e) {
    EXPECT_FALSE(e.location().empty()) << what;
    EXPECT_NE(std::string(e.what()), "") << what;
    return e.kind();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": foreign exception " << e.what();
    return std::nullopt;
  }
}

std::vector<uint8_t> safetensors_with_header(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8 + header.size() + data_bytes, 0);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  return out;
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// ---- safetensors ----

TEST(ModelCorruption, SafetensorsTruncatedAnywhereIsTruncated) {
  TempDir tmp;
  const auto full = small_safetensors(tmp);
  ASSERT_FALSE(outcome(safetensors::parse, full, "full").has_value());
  for (size_t cut = 0; cut < full.size(); ++cut) {
    const std::vector<uint8_t> part(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut));
    const auto kind = outcome(safetensors::parse, part, "cut " + std::to_string(cut));
    ASSERT_TRUE(kind.has_value()) << "cut at " << cut << " parsed";
    EXPECT_EQ(*kind, ModelErrorKind::Truncated) << "cut at " << cut;
  }
}

TEST(ModelCorruption, SafetensorsFlippedHeaderBytesNeverCrash) {
  TempDir tmp;
  const auto full = small_safetensors(tmp);
  const uint64_t header_end = 8 + (full[0] | (full[1] << 8));
  size_t errors = 0, parsed = 0;
  for (size_t at = 0; at < header_end; ++at)
    for (uint8_t mask : {0x01, 0x20, 0x80, 0xFF}) {
      auto bytes = full;
      bytes[at] ^= mask;
      (outcome(safetensors::parse, bytes, "flip " + std::to_string(at)) ? errors : parsed)++;
    }
  EXPECT_GT(errors, 0u);
  std::printf("[ corrupt ] safetensors header flips: %zu errors, %zu still valid\n", errors, parsed);
}

TEST(ModelCorruption, SafetensorsBadFieldsHaveTypedErrors) {
  struct Case {
    const char* what;
    std::string header;
    size_t data;
    ModelErrorKind kind;
    const char* location;
  };
  const Case cases[] = {
      {"not JSON", "{\"a\": ", 0, ModelErrorKind::BadHeader, "mem:"},
      {"number overflow", R"({"w":{"dtype":"F32","shape":[1E400],"data_offsets":[0,4]}})", 4, ModelErrorKind::BadHeader, "mem:"},
      {"array header", "[1, 2]", 0, ModelErrorKind::BadHeader, "mem:8"},
      {"unknown dtype", R"({"w":{"dtype":"I8","shape":[2],"data_offsets":[0,2]}})", 2, ModelErrorKind::UnknownDtype, "mem:w"},
      {"F64 dtype", R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", 8, ModelErrorKind::UnknownDtype, "mem:w"},
      {"size mismatch", R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8, ModelErrorKind::BadHeader, "mem:w"},
      {"negative dim", R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4, ModelErrorKind::BadHeader, "mem:w"},
      {"float dim", R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", 4, ModelErrorKind::BadHeader, "mem:w"},
      {"huge dims", R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4, ModelErrorKind::BadHeader, "mem:w"},
      {"begin after end", R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", 8, ModelErrorKind::BadHeader, "mem:w"},
      {"past the end", R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8, ModelErrorKind::Truncated, "mem:w"},
      {"huge offsets", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,18446744073709551616]}})", 8,
       ModelErrorKind::BadHeader, "mem:w"},
      {"overlap", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12,
       ModelErrorKind::BadHeader, "mem:b"},
      {"missing offsets", R"({"w":{"dtype":"F32","shape":[1]}})", 4, ModelErrorKind::BadHeader, "mem:w"},
      {"entry not object", R"({"w":3})", 0, ModelErrorKind::BadHeader, "mem:w"},
      {"metadata not object", R"({"__metadata__":[]})", 0, ModelErrorKind::BadHeader, "mem:__metadata__"},
  };
  for (const Case& c : cases) {
    const auto bytes = safetensors_with_header(c.header, c.data);
    expect_model_error([&] { safetensors::parse(bytes, "mem"); }, c.kind, c.location, c.what);
  }
  // Header length beyond the cap and beyond the file.
  auto bytes = safetensors_with_header("{}", 0);
  put_u64(bytes, 0, uint64_t{1} << 40);
  expect_model_error([&] { safetensors::parse(bytes, "mem"); }, ModelErrorKind::BadHeader, "mem:0", "huge header length");
  put_u64(bytes, 0, 1000);
  expect_model_error([&] { safetensors::parse(bytes, "mem"); }, ModelErrorKind::Truncated, "mem:0", "header past end");
  // An empty header is a valid file with no tensors.
  EXPECT_TRUE(safetensors::parse(safetensors_with_header("{}", 0), "mem").tensors.empty());
}

// ---- GGUF ----

TEST(ModelCorruption, GgufTruncatedAnywhereIsTruncated) {
  TempDir tmp;
  const auto full = small_gguf(tmp);
  ASSERT_FALSE(outcome(gguf::parse, full, "full").has_value());
  for (size_t cut = 0; cut < full.size(); ++cut) {
    const std::vector<uint8_t> part(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut));
    const auto kind = outcome(gguf::parse, part, "cut " + std::to_string(cut));
    ASSERT_TRUE(kind.has_value()) << "cut at " << cut << " parsed";
    EXPECT_EQ(*kind, ModelErrorKind::Truncated) << "cut at " << cut;
  }
}

TEST(ModelCorruption, GgufFlippedHeaderBytesNeverCrash) {
  TempDir tmp;
  const auto full = small_gguf(tmp);
  const size_t header_end = gguf::parse(full, "mem").data_offset;
  size_t errors = 0, parsed = 0;
  for (size_t at = 0; at < header_end; ++at)
    for (uint8_t mask : {0x01, 0x10, 0x80, 0xFF}) {
      auto bytes = full;
      bytes[at] ^= mask;
      (outcome(gguf::parse, bytes, "flip " + std::to_string(at)) ? errors : parsed)++;
    }
  EXPECT_GT(errors, 0u);
  std::printf("[ corrupt ] gguf header flips: %zu errors, %zu still valid\n", errors, parsed);
}

// GGUF layout of a file with no metadata and one tensor, for patching fields at known offsets.
struct OneTensorGguf {
  std::vector<uint8_t> bytes;
  size_t name_len_at = 24, n_dims_at, dims_at, type_at, offset_at;
};
OneTensorGguf one_tensor_gguf(const TempDir& tmp, DType dtype = DType::F32, std::vector<int64_t> shape = {2, 32}) {
  gguf::Writer w(tmp.file("one.gguf"));
  w.add_tensor("w", dtype, shape);
  w.begin();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<uint8_t> data(static_cast<size_t>(dtype == DType::Q8_0 ? n / 32 * 34 : n * (dtype == DType::F32 ? 4 : 2)));
  w.write(data.data(), data.size());
  w.finish();
  OneTensorGguf g;
  g.bytes = read_bytes(tmp.file("one.gguf"));
  g.n_dims_at = 24 + 8 + 1;
  g.dims_at = g.n_dims_at + 4;
  g.type_at = g.dims_at + 8 * shape.size();
  g.offset_at = g.type_at + 4;
  return g;
}

TEST(ModelCorruption, GgufBadFieldsHaveTypedErrors) {
  TempDir tmp;
  const auto expect = [&](std::vector<uint8_t> bytes, ModelErrorKind kind, const std::string& loc, const std::string& what) {
    expect_model_error([&] { gguf::parse(bytes, "mem"); }, kind, loc, what);
  };
  const OneTensorGguf g = one_tensor_gguf(tmp);
  ASSERT_EQ(gguf::parse(g.bytes, "mem").tensors.at(0).shape, (std::vector<int64_t>{2, 32}));
  {
    auto b = g.bytes;
    b[0] = 'X';
    expect(b, ModelErrorKind::BadHeader, "mem:0", "bad magic");
  }
  {
    auto b = g.bytes;
    put_u32(b, 4, 4);
    expect(b, ModelErrorKind::BadHeader, "mem:4", "version 4");
    put_u32(b, 4, 1);
    expect(b, ModelErrorKind::BadHeader, "mem:4", "version 1");
  }
  {
    auto b = g.bytes;
    put_u64(b, 8, uint64_t{1} << 40);
    expect(b, ModelErrorKind::BadHeader, "mem:8", "absurd tensor count");
    b = g.bytes;
    put_u64(b, 8, 1000);
    expect(b, ModelErrorKind::Truncated, "mem:8", "tensor count the file cannot hold");
    b = g.bytes;
    put_u64(b, 16, uint64_t{1} << 62);
    expect(b, ModelErrorKind::BadHeader, "mem:16", "absurd metadata count");
  }
  {
    auto b = g.bytes;
    put_u64(b, g.name_len_at, uint64_t{1} << 62);
    expect(b, ModelErrorKind::BadHeader, "mem:24", "absurd name length");
    put_u64(b, g.name_len_at, 3000);
    expect(b, ModelErrorKind::Truncated, "mem:", "name past the end");
  }
  {
    auto b = g.bytes;
    put_u32(b, g.n_dims_at, 5);
    expect(b, ModelErrorKind::BadHeader, "mem:w", "5 dims");
  }
  {
    auto b = g.bytes;
    put_u64(b, g.dims_at, uint64_t{1} << 50);
    expect(b, ModelErrorKind::BadHeader, "mem:w", "absurd dim");
    put_u64(b, g.dims_at, 64);
    expect(b, ModelErrorKind::Truncated, "mem:w", "larger tensor than the data");
  }
  {
    auto b = g.bytes;
    put_u32(b, g.type_at, 2);  // Q4_0
    expect(b, ModelErrorKind::UnknownDtype, "mem:w", "Q4_0");
    put_u32(b, g.type_at, 12345);
    expect(b, ModelErrorKind::UnknownDtype, "mem:w", "nonsense type");
  }
  {
    auto b = g.bytes;
    put_u64(b, g.offset_at, 4);
    expect(b, ModelErrorKind::BadHeader, "mem:w", "misaligned offset");
    put_u64(b, g.offset_at, 1 << 20);
    expect(b, ModelErrorKind::Truncated, "mem:w", "offset past the end");
    put_u64(b, g.offset_at, ~uint64_t{0} - 31);
    expect(b, ModelErrorKind::Truncated, "mem:w", "offset near 2^64");
  }
  {
    const OneTensorGguf q = one_tensor_gguf(tmp, DType::Q8_0, {2, 32});
    auto b = q.bytes;
    put_u64(b, q.dims_at, 33);
    expect(b, ModelErrorKind::WrongShape, "mem:w", "q8_0 row of 33");
  }
  {
    // Two tensors sharing bytes.
    gguf::Writer w(tmp.file("two.gguf"));
    w.add_tensor("a", DType::F32, {8});
    w.add_tensor("b", DType::F32, {8});
    w.begin();
    std::vector<float> v(16);
    w.write(v.data(), 64);
    w.finish();
    auto b = read_bytes(tmp.file("two.gguf"));
    const gguf::File f = gguf::parse(b, "mem");
    // b's offset field is the last 8 bytes of the tensor infos.
    const size_t b_offset_at = 24 + (8 + 1 + 4 + 8 + 4 + 8) + (8 + 1 + 4 + 8 + 4);
    ASSERT_EQ(b[b_offset_at], 32);
    (void)f;
    put_u64(b, b_offset_at, 0);
    expect(b, ModelErrorKind::BadHeader, "mem:b", "overlap");
  }
}

TEST(ModelCorruption, GgufBadMetadataHasTypedErrors) {
  TempDir tmp;
  // Build "GGUF v3, 0 tensors, 1 kv" by hand around one key/value.
  const auto append = [](std::vector<uint8_t>& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const auto file_with_kv = [&](uint32_t type, const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> b = {'G', 'G', 'U', 'F'};
    append(b, 3, 4);  // version
    append(b, 0, 8);  // tensors
    append(b, 1, 8);  // metadata entries
    append(b, 1, 8);  // key length
    b.push_back('k');
    append(b, type, 4);
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
  };
  const auto u64_bytes = [&](uint64_t v) {
    std::vector<uint8_t> b;
    append(b, v, 8);
    return b;
  };
  const auto expect = [&](const std::vector<uint8_t>& b, ModelErrorKind kind, const std::string& what) {
    expect_model_error([&] { gguf::parse(b, "mem"); }, kind, "mem:", what);
  };
  EXPECT_EQ(gguf::parse(file_with_kv(4, {1, 0, 0, 0}), "mem").get_int("k"), 1);
  expect(file_with_kv(13, {}), ModelErrorKind::BadHeader, "unknown value type");
  expect(file_with_kv(8, u64_bytes(uint64_t{1} << 40)), ModelErrorKind::BadHeader, "absurd string length");
  expect(file_with_kv(8, u64_bytes(100)), ModelErrorKind::Truncated, "string past the end");
  {
    std::vector<uint8_t> p = {9, 0, 0, 0};  // array of arrays
    auto c = u64_bytes(1);
    p.insert(p.end(), c.begin(), c.end());
    expect(file_with_kv(9, p), ModelErrorKind::Unsupported, "nested array");
  }
  {
    std::vector<uint8_t> p = {8, 0, 0, 0};  // array of 2^40 strings
    auto c = u64_bytes(uint64_t{1} << 40);
    p.insert(p.end(), c.begin(), c.end());
    expect(file_with_kv(9, p), ModelErrorKind::Truncated, "huge string array");
  }
  {
    std::vector<uint8_t> p = {20, 0, 0, 0};  // array of an unknown type
    auto c = u64_bytes(1);
    p.insert(p.end(), c.begin(), c.end());
    expect(file_with_kv(9, p), ModelErrorKind::BadHeader, "unknown element type");
  }
  {
    // Duplicate keys.
    auto b = file_with_kv(4, {1, 0, 0, 0});
    put_u64(b, 16, 2);
    const std::vector<uint8_t> again(b.begin() + 24, b.end());
    b.insert(b.end(), again.begin(), again.end());
    expect(b, ModelErrorKind::BadHeader, "duplicate key");
  }
  {
    // general.alignment that is not a power of two.
    gguf::Writer w(tmp.file("align.gguf"));
    w.set("general.alignment", gguf::Value::u32(48));
    w.begin();
    w.finish();
    expect_model_error([&] { gguf::open(tmp.file("align.gguf")); }, ModelErrorKind::BadHeader, "general.alignment", "alignment 48");
  }
}

}  // namespace
}  // namespace ninfer::models::testing
