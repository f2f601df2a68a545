#include "models/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "models/mapped_file.h"
#include "models/model_error.h"

namespace ninfer::models::safetensors {
namespace {

using json = nlohmann::json;

// Per-dimension and total element limits: far beyond any real tensor, small enough that products
// and byte counts never overflow 64 bits.
constexpr uint64_t kMaxDim = uint64_t{1} << 40;
constexpr uint64_t kMaxElements = uint64_t{1} << 56;
constexpr size_t kMaxRank = 8;

[[noreturn]] void fail(ModelErrorKind kind, const std::string& message, const std::string& location) {
  throw ModelError(kind, message, location);
}

size_t element_size(DType d) { return d == DType::F32 ? 4 : 2; }

std::optional<DType> parse_dtype(const std::string& s) {
  if (s == "F32") return DType::F32;
  if (s == "F16") return DType::F16;
  if (s == "BF16") return DType::BF16;
  return std::nullopt;
}

uint64_t read_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t require_count(const json& v, const std::string& what, const std::string& where) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    fail(ModelErrorKind::BadHeader, what + " must be a non-negative integer", where);
  return v.get<uint64_t>();
}

}  // namespace

const TensorView* File::find(std::string_view name) const {
  for (const TensorView& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const char* dtype_tag(DType dtype) {
  switch (dtype) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::Q8_0: break;
  }
  throw std::invalid_argument("safetensors has no Q8_0 dtype");
}

File parse(std::span<const uint8_t> bytes, const std::string& label) {
  File file;
  file.path = label;
  if (bytes.size() < 8)
    fail(ModelErrorKind::Truncated, "file too short for a safetensors header (" + std::to_string(bytes.size()) + " bytes)",
         label + ":0");
  const uint64_t header_len = read_u64_le(bytes.data());
  if (header_len > kMaxHeaderBytes)
    fail(ModelErrorKind::BadHeader, "header length " + std::to_string(header_len) + " exceeds the 100 MiB limit", label + ":0");
  if (header_len > bytes.size() - 8)
    fail(ModelErrorKind::Truncated,
         "header of " + std::to_string(header_len) + " bytes extends past the end of the file (" +
             std::to_string(bytes.size()) + " bytes)",
         label + ":0");
  if (header_len < 2 || bytes[8] != '{')
    fail(ModelErrorKind::BadHeader, "header is not a JSON object", label + ":8");
  const auto* header_begin = reinterpret_cast<const char*>(bytes.data() + 8);
  json header;
  try {
    header = json::parse(header_begin, header_begin + header_len);
  } catch (const json::exception& e) {
    // parse_error carries the offset; out_of_range (a number beyond binary64, "1E400") does not.
    const auto* pe = dynamic_cast<const json::parse_error*>(&e);
    const size_t at = pe ? pe->byte : 0;
    fail(ModelErrorKind::BadHeader, std::string("header is not valid JSON: ") + e.what(), label + ":" + std::to_string(8 + at));
  }
  if (!header.is_object()) fail(ModelErrorKind::BadHeader, "header is not a JSON object", label + ":8");

  const uint64_t data_begin = 8 + header_len;
  const uint64_t data_size = bytes.size() - data_begin;
  struct Range {
    uint64_t begin, end;
    size_t index;
  };
  std::vector<Range> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const std::string where = label + ":" + name;
    const json& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object()) fail(ModelErrorKind::BadHeader, "__metadata__ must be an object", where);
      for (auto m = entry.begin(); m != entry.end(); ++m)
        if (m.value().is_string()) file.metadata[m.key()] = m.value().get<std::string>();
      continue;
    }
    if (!entry.is_object()) fail(ModelErrorKind::BadHeader, "tensor entry must be an object", where);
    const auto dt = entry.find("dtype");
    const auto sh = entry.find("shape");
    const auto off = entry.find("data_offsets");
    if (dt == entry.end() || sh == entry.end() || off == entry.end())
      fail(ModelErrorKind::BadHeader, "tensor entry needs dtype, shape and data_offsets", where);
    if (!dt->is_string()) fail(ModelErrorKind::BadHeader, "dtype must be a string", where);
    const std::optional<DType> dtype = parse_dtype(dt->get<std::string>());
    if (!dtype) fail(ModelErrorKind::UnknownDtype, "unsupported dtype " + dt->get<std::string>() + " (F32, F16, BF16 load)", where);
    if (!sh->is_array() || sh->size() > kMaxRank)
      fail(ModelErrorKind::BadHeader, "shape must be an array of at most 8 dimensions", where);
    TensorView t;
    t.name = name;
    t.dtype = *dtype;
    uint64_t elements = 1;
    for (const json& d : *sh) {
      const uint64_t n = require_count(d, "shape dimension", where);
      if (n > kMaxDim) fail(ModelErrorKind::BadHeader, "shape dimension " + std::to_string(n) + " is absurd", where);
      if (n != 0 && elements > kMaxElements / n) fail(ModelErrorKind::BadHeader, "tensor has too many elements", where);
      elements *= n;
      t.shape.push_back(static_cast<int64_t>(n));
    }
    if (!off->is_array() || off->size() != 2) fail(ModelErrorKind::BadHeader, "data_offsets must be [begin, end]", where);
    const uint64_t begin = require_count((*off)[0], "data offset", where);
    const uint64_t end = require_count((*off)[1], "data offset", where);
    if (begin > end) fail(ModelErrorKind::BadHeader, "data_offsets begin after they end", where);
    const uint64_t nbytes = elements * element_size(*dtype);
    if (end - begin != nbytes)
      fail(ModelErrorKind::BadHeader,
           "data_offsets span " + std::to_string(end - begin) + " bytes but the shape and dtype need " + std::to_string(nbytes),
           where);
    if (end > data_size)
      fail(ModelErrorKind::Truncated,
           "tensor data [" + std::to_string(begin) + ", " + std::to_string(end) + ") extends past the end of the data (" +
               std::to_string(data_size) + " bytes)",
           where);
    t.bytes = static_cast<size_t>(nbytes);
    t.data = bytes.data() + data_begin + begin;
    ranges.push_back({begin, end, file.tensors.size()});
    file.tensors.push_back(std::move(t));
  }

  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      fail(ModelErrorKind::BadHeader, "tensor data overlaps " + file.tensors[ranges[i - 1].index].name,
           label + ":" + file.tensors[ranges[i].index].name);

  // Order by offset; copy the (rare) tensors a writer left misaligned so kernels may load whole elements.
  std::vector<TensorView> ordered;
  ordered.reserve(ranges.size());
  for (const Range& r : ranges) {
    TensorView& t = file.tensors[r.index];
    const size_t align = element_size(t.dtype);
    if (t.bytes > 0 && reinterpret_cast<uintptr_t>(t.data) % align != 0) {
      std::shared_ptr<float[]> copy(new float[(t.bytes + 3) / 4]);
      std::memcpy(copy.get(), t.data, t.bytes);
      t.data = copy.get();
      file.storage.push_back(std::move(copy));
    }
    ordered.push_back(std::move(t));
  }
  file.tensors = std::move(ordered);
  return file;
}

File open(const std::string& path, Residency residency) { return open_mapped<File>(path, parse, residency); }

Writer::Writer(const std::string& path, std::vector<TensorSpec> tensors, const std::map<std::string, std::string>& metadata)
    : path_(path) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const TensorSpec& t : tensors) {
    uint64_t n = 1;
    for (int64_t d : t.shape) {
      if (d < 0) throw std::invalid_argument("safetensors writer: negative dimension in " + t.name);
      n *= static_cast<uint64_t>(d);
    }
    const uint64_t nbytes = n * (t.dtype == DType::F32 ? 4 : 2);
    nlohmann::ordered_json entry;
    entry["dtype"] = dtype_tag(t.dtype);
    entry["shape"] = t.shape;
    entry["data_offsets"] = {offset, offset + nbytes};
    if (header.contains(t.name)) throw std::invalid_argument("safetensors writer: duplicate tensor " + t.name);
    header[t.name] = std::move(entry);
    offset += nbytes;
  }
  expected_ = offset;
  std::string text = header.dump();
  // Pad with spaces so the data section starts 8-byte aligned (as the reference writer does).
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw ModelError(ModelErrorKind::NotFound, "cannot create " + path + ": " + std::strerror(errno), path);
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(static_cast<uint64_t>(text.size()) >> (8 * i));
  if (std::fwrite(len, 1, 8, file_) != 8 || std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw std::runtime_error("cannot write " + path);
}

Writer::~Writer() {
  if (file_) std::fclose(file_);
}

void Writer::write(const void* data, size_t bytes) {
  if (!file_) throw std::logic_error("safetensors writer: write after finish");
  if (bytes > expected_ - written_) throw std::logic_error("safetensors writer: more data than the header declares");
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  written_ += bytes;
}

void Writer::finish() {
  if (!file_) return;
  if (written_ != expected_)
    throw std::logic_error("safetensors writer: " + std::to_string(written_) + " of " + std::to_string(expected_) + " data bytes written");
  const bool ok = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
}

}  // namespace ninfer::models::safetensors
