// GGUF (version 3, also reads 2), little-endian: magic "GGUF", version, tensor count, metadata count,
// metadata key/values, tensor infos (name, dims with ne[0] fastest, GGML type, offset), padding to
// `general.alignment`, tensor data. Reading bounds-checks every field and caps every count and
// length against the bytes that remain, so a corrupt file is a ModelError, never a crash or a huge
// allocation. Tensor views point into the caller's bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/mapped_file.h"
#include "models/tensor.h"

namespace ninfer::models::gguf {

enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};
const char* value_type_name(ValueType t);

// GGML tensor types we load.
constexpr uint32_t kGgmlF32 = 0, kGgmlF16 = 1, kGgmlQ8_0 = 8, kGgmlBF16 = 30;
uint32_t ggml_type_of(DType dtype);

// One metadata value. Scalars: integers in `i` (unsigned values above INT64_MAX in `u`), floats in
// `f`, bools in `i` (0/1), strings in `str`. Arrays (of scalars or strings, not of arrays): the
// element type in `element`, integers/bools in `ints`, floats in `floats`, strings in `strings`.
struct Value {
  ValueType type = ValueType::U32;
  ValueType element = ValueType::U32;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string str;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;

  bool is_integer() const;  // any integer scalar type
  bool is_float() const { return type == ValueType::F32 || type == ValueType::F64; }

  static Value u32(uint32_t v);
  static Value i32(int32_t v);
  static Value u64(uint64_t v);
  static Value f32(float v);
  static Value boolean(bool v);
  static Value string(std::string v);
  static Value string_array(std::vector<std::string> v);
  static Value i32_array(std::vector<int32_t> v);
};

struct File {
  std::string path;
  uint32_t version = 3;
  uint64_t alignment = 32;
  uint64_t data_offset = 0;  // file offset of the data section
  std::vector<std::pair<std::string, Value>> metadata;  // in file order
  std::vector<TensorView> tensors;                      // in file order
  std::vector<std::shared_ptr<const void>> storage;     // the mapping (open)

  const Value* find(std::string_view key) const;
  const TensorView* find_tensor(std::string_view name) const;

  // Typed metadata access; a missing key or a value of the wrong type is ModelError BadConfig
  // located at "path:key".
  std::string get_string(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
  double get_number(const std::string& key) const;  // integer or float
  std::optional<int64_t> get_int_or(const std::string& key) const;
  std::optional<double> get_number_or(const std::string& key) const;
};

// Limits on what a header may declare (beyond them the file is refused as corrupt).
constexpr uint64_t kMaxTensors = 1u << 20;
constexpr uint64_t kMaxMetadata = 1u << 20;
constexpr uint64_t kMaxStringBytes = 1u << 30;
constexpr uint32_t kMaxDims = 4;

File parse(std::span<const uint8_t> bytes, const std::string& label);
File open(const std::string& path, Residency residency = Residency::Mapped);

// Streams a GGUF file: declare metadata and tensors (TensorView order: shape {rows, cols}), then
// begin() writes the header and each tensor's bytes follow in declaration order through write(),
// in any number of pieces (alignment padding is inserted between tensors). finish() checks the
// counts and closes.
class Writer {
 public:
  explicit Writer(const std::string& path, uint32_t alignment = 32);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void set(const std::string& key, Value value);
  void add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape);
  void begin();
  void write(const void* data, size_t bytes);
  void finish();

 private:
  struct Pending {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t offset = 0;
    uint64_t bytes = 0;
  };
  void put(const void* p, size_t n);
  void pad_to(uint64_t position);
  void advance();

  std::string path_;
  uint32_t alignment_;
  std::FILE* file_ = nullptr;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::vector<Pending> tensors_;
  uint64_t position_ = 0;     // bytes written to the file
  uint64_t data_start_ = 0;
  size_t current_ = 0;        // tensor being written
  uint64_t current_written_ = 0;
  bool begun_ = false;
};

}  // namespace ninfer::models::gguf
