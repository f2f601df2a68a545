// safetensors: an 8-byte little-endian header length, a JSON header naming every tensor's dtype,
// shape and [begin, end) byte range in the data section, then the data. Reading checks every
// field against the file size and throws ModelError; the views point into the caller's bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/mapped_file.h"
#include "models/tensor.h"

namespace ninfer::models::safetensors {

// Headers larger than this are refused as corrupt (real ones are a few hundred KB at most).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

struct File {
  std::string path;
  std::vector<TensorView> tensors;  // in data-offset order
  std::map<std::string, std::string> metadata;  // "__metadata__"
  // Owners of the bytes behind the views: the mapping (open) and copies of misaligned tensors.
  std::vector<std::shared_ptr<const void>> storage;

  const TensorView* find(std::string_view name) const;
};

// Parses a whole file image; `label` names it in errors. Views point into `bytes` (or into copies
// held by File::storage when a tensor is not aligned for its element type).
File parse(std::span<const uint8_t> bytes, const std::string& label);
// Maps `path` (or copies it, Residency) and parses it; File::storage keeps the bytes alive.
File open(const std::string& path, Residency residency = Residency::Mapped);

// Element type name in safetensors headers ("F32", "F16", "BF16"); Q8_0 has none (throws).
const char* dtype_tag(DType dtype);

struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

// Streams a file: the header (from all specs) first, then each tensor's bytes in spec order, in as
// many write() calls as convenient. finish() checks the byte count and closes; a writer destroyed
// unfinished leaves a partial file (write to a temporary path and rename).
class Writer {
 public:
  Writer(const std::string& path, std::vector<TensorSpec> tensors, const std::map<std::string, std::string>& metadata = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void write(const void* data, size_t bytes);
  void finish();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t expected_ = 0;
  uint64_t written_ = 0;
};

}  // namespace ninfer::models::safetensors
