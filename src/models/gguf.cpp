#include "models/gguf.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

#include "models/mapped_file.h"
#include "models/model_error.h"

namespace ninfer::models::gguf {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint64_t kMaxDim = uint64_t{1} << 40;
constexpr uint64_t kMaxElements = uint64_t{1} << 56;
constexpr uint64_t kMaxNameBytes = 4096;
constexpr uint64_t kMaxAlignment = uint64_t{1} << 30;

[[noreturn]] void fail(ModelErrorKind kind, const std::string& message, const std::string& location) {
  throw ModelError(kind, message, location);
}

size_t scalar_size(ValueType t) {
  switch (t) {
    case ValueType::U8:
    case ValueType::I8:
    case ValueType::Bool: return 1;
    case ValueType::U16:
    case ValueType::I16: return 2;
    case ValueType::U32:
    case ValueType::I32:
    case ValueType::F32: return 4;
    case ValueType::U64:
    case ValueType::I64:
    case ValueType::F64: return 8;
    case ValueType::String:
    case ValueType::Array: return 0;
  }
  return 0;
}

bool valid_type(uint32_t t) { return t <= static_cast<uint32_t>(ValueType::F64); }

// Reads little-endian fields; every read is checked against the end of the buffer.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, const std::string& label) : b_(bytes), label_(label) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return b_.size() - pos_; }
  std::string at(size_t offset) const { return label_ + ":" + std::to_string(offset); }

  void need(uint64_t n, const char* what) const {
    if (n > remaining())
      fail(ModelErrorKind::Truncated,
           std::string("file ends inside ") + what + " (" + std::to_string(n) + " bytes needed, " +
               std::to_string(remaining()) + " left)",
           at(pos_));
  }
  uint64_t uint(size_t n, const char* what) {
    need(n, what);
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | b_[pos_ + i];
    pos_ += n;
    return v;
  }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(uint(4, what)); }
  uint64_t u64(const char* what) { return uint(8, what); }
  std::string str(const char* what, uint64_t max_bytes = kMaxStringBytes) {
    const size_t start = pos_;
    const uint64_t len = u64(what);
    if (len > max_bytes)
      fail(ModelErrorKind::BadHeader, std::string(what) + " length " + std::to_string(len) + " is absurd", at(start));
    need(len, what);
    std::string s(reinterpret_cast<const char*>(b_.data() + pos_), static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return s;
  }

  // One scalar of type t into v (as a scalar value).
  void scalar(ValueType t, Value& v, const char* what) {
    v.type = t;
    const uint64_t raw = uint(scalar_size(t), what);
    switch (t) {
      case ValueType::U8:
      case ValueType::U16:
      case ValueType::U32:
      case ValueType::U64:
        v.u = raw;
        v.i = static_cast<int64_t>(std::min<uint64_t>(raw, static_cast<uint64_t>(INT64_MAX)));
        break;
      case ValueType::I8: v.i = static_cast<int8_t>(raw); break;
      case ValueType::I16: v.i = static_cast<int16_t>(raw); break;
      case ValueType::I32: v.i = static_cast<int32_t>(raw); break;
      case ValueType::I64: v.i = static_cast<int64_t>(raw); break;
      case ValueType::Bool: v.i = raw != 0; break;
      case ValueType::F32: {
        float f;
        const auto r32 = static_cast<uint32_t>(raw);
        std::memcpy(&f, &r32, 4);
        v.f = f;
        break;
      }
      case ValueType::F64: std::memcpy(&v.f, &raw, 8); break;
      case ValueType::String:
      case ValueType::Array: break;
    }
  }

  Value value(uint32_t type_code, const std::string& key) {
    const size_t start = pos_;
    if (!valid_type(type_code))
      fail(ModelErrorKind::BadHeader, "metadata " + key + " has unknown value type " + std::to_string(type_code), at(start));
    const auto type = static_cast<ValueType>(type_code);
    Value v;
    v.type = type;
    if (type == ValueType::String) {
      v.str = str("metadata string");
    } else if (type == ValueType::Array) {
      const size_t etype_at = pos_;
      const uint32_t et = u32("array element type");
      if (!valid_type(et))
        fail(ModelErrorKind::BadHeader, "metadata " + key + " has unknown array element type " + std::to_string(et), at(etype_at));
      v.element = static_cast<ValueType>(et);
      if (v.element == ValueType::Array)
        fail(ModelErrorKind::Unsupported, "metadata " + key + " is an array of arrays", at(etype_at));
      const size_t count_at = pos_;
      const uint64_t count = u64("array length");
      // Every element takes at least its fixed size (a string at least its 8-byte length), so a
      // count the remaining bytes cannot hold is a truncated or corrupt file: refuse before allocating.
      const uint64_t min_size = v.element == ValueType::String ? 8 : scalar_size(v.element);
      if (count > remaining() / min_size)
        fail(ModelErrorKind::Truncated,
             "metadata " + key + " declares " + std::to_string(count) + " elements but only " +
                 std::to_string(remaining()) + " bytes remain",
             at(count_at));
      const auto n = static_cast<size_t>(count);
      if (v.element == ValueType::String) {
        v.strings.reserve(n);
        for (size_t k = 0; k < n; ++k) v.strings.push_back(str("array string"));
      } else if (v.element == ValueType::F32 || v.element == ValueType::F64) {
        v.floats.reserve(n);
        Value e;
        for (size_t k = 0; k < n; ++k) {
          scalar(v.element, e, "array element");
          v.floats.push_back(e.f);
        }
      } else {
        v.ints.reserve(n);
        Value e;
        for (size_t k = 0; k < n; ++k) {
          scalar(v.element, e, "array element");
          v.ints.push_back(e.i);
        }
      }
    } else {
      scalar(type, v, "metadata value");
    }
    return v;
  }

 private:
  std::span<const uint8_t> b_;
  const std::string& label_;
  size_t pos_ = 0;
};

std::optional<DType> dtype_of(uint32_t ggml_type) {
  switch (ggml_type) {
    case kGgmlF32: return DType::F32;
    case kGgmlF16: return DType::F16;
    case kGgmlQ8_0: return DType::Q8_0;
    case kGgmlBF16: return DType::BF16;
    default: return std::nullopt;
  }
}

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::U8: return "uint8";
    case ValueType::I8: return "int8";
    case ValueType::U16: return "uint16";
    case ValueType::I16: return "int16";
    case ValueType::U32: return "uint32";
    case ValueType::I32: return "int32";
    case ValueType::F32: return "float32";
    case ValueType::Bool: return "bool";
    case ValueType::String: return "string";
    case ValueType::Array: return "array";
    case ValueType::U64: return "uint64";
    case ValueType::I64: return "int64";
    case ValueType::F64: return "float64";
  }
  return "unknown";
}

uint32_t ggml_type_of(DType dtype) {
  switch (dtype) {
    case DType::F32: return kGgmlF32;
    case DType::F16: return kGgmlF16;
    case DType::BF16: return kGgmlBF16;
    case DType::Q8_0: return kGgmlQ8_0;
  }
  throw std::invalid_argument("ggml_type_of: unknown dtype");
}

bool Value::is_integer() const {
  switch (type) {
    case ValueType::U8:
    case ValueType::I8:
    case ValueType::U16:
    case ValueType::I16:
    case ValueType::U32:
    case ValueType::I32:
    case ValueType::U64:
    case ValueType::I64: return true;
    default: return false;
  }
}

Value Value::u32(uint32_t v) {
  Value x;
  x.type = ValueType::U32;
  x.i = v;
  x.u = v;
  return x;
}
Value Value::i32(int32_t v) {
  Value x;
  x.type = ValueType::I32;
  x.i = v;
  return x;
}
Value Value::u64(uint64_t v) {
  Value x;
  x.type = ValueType::U64;
  x.u = v;
  x.i = static_cast<int64_t>(std::min<uint64_t>(v, static_cast<uint64_t>(INT64_MAX)));
  return x;
}
Value Value::f32(float v) {
  Value x;
  x.type = ValueType::F32;
  x.f = v;
  return x;
}
Value Value::boolean(bool v) {
  Value x;
  x.type = ValueType::Bool;
  x.i = v;
  return x;
}
Value Value::string(std::string v) {
  Value x;
  x.type = ValueType::String;
  x.str = std::move(v);
  return x;
}
Value Value::string_array(std::vector<std::string> v) {
  Value x;
  x.type = ValueType::Array;
  x.element = ValueType::String;
  x.strings = std::move(v);
  return x;
}
Value Value::i32_array(std::vector<int32_t> v) {
  Value x;
  x.type = ValueType::Array;
  x.element = ValueType::I32;
  x.ints.assign(v.begin(), v.end());
  return x;
}

const Value* File::find(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

const TensorView* File::find_tensor(std::string_view name) const {
  for (const TensorView& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string File::get_string(const std::string& key) const {
  const Value* v = find(key);
  if (!v) fail(ModelErrorKind::BadConfig, "missing metadata " + key, path + ":" + key);
  if (v->type != ValueType::String)
    fail(ModelErrorKind::BadConfig, "metadata " + key + " is a " + value_type_name(v->type) + ", not a string", path + ":" + key);
  return v->str;
}

std::optional<int64_t> File::get_int_or(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_integer())
    fail(ModelErrorKind::BadConfig, "metadata " + key + " is a " + value_type_name(v->type) + ", not an integer", path + ":" + key);
  if (v->type == ValueType::U64 && v->u > static_cast<uint64_t>(INT64_MAX))
    fail(ModelErrorKind::BadConfig, "metadata " + key + " is out of range", path + ":" + key);
  return v->i;
}

int64_t File::get_int(const std::string& key) const {
  auto v = get_int_or(key);
  if (!v) fail(ModelErrorKind::BadConfig, "missing metadata " + key, path + ":" + key);
  return *v;
}

std::optional<double> File::get_number_or(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (v->is_float()) return v->f;
  if (v->is_integer()) return static_cast<double>(v->i);
  fail(ModelErrorKind::BadConfig, "metadata " + key + " is a " + value_type_name(v->type) + ", not a number", path + ":" + key);
}

double File::get_number(const std::string& key) const {
  auto v = get_number_or(key);
  if (!v) fail(ModelErrorKind::BadConfig, "missing metadata " + key, path + ":" + key);
  return *v;
}

File parse(std::span<const uint8_t> bytes, const std::string& label) {
  File file;
  file.path = label;
  Cursor c(bytes, label);
  if (bytes.size() < 4) fail(ModelErrorKind::Truncated, "file too short for the GGUF magic", label + ":0");
  if (c.u32("magic") != kMagic) fail(ModelErrorKind::BadHeader, "not a GGUF file (bad magic)", label + ":0");
  file.version = c.u32("version");
  if (file.version != 2 && file.version != 3)
    fail(ModelErrorKind::BadHeader, "unsupported GGUF version " + std::to_string(file.version) + " (2 and 3 load)", label + ":4");
  const uint64_t n_tensors = c.u64("tensor count");
  const uint64_t n_kv = c.u64("metadata count");
  // Caps: absolute (beyond them the count is corrupt), and what the rest of the file could hold at
  // the smallest entry size (a tensor info is at least 24 bytes, a key/value at least 13).
  if (n_tensors > kMaxTensors) fail(ModelErrorKind::BadHeader, "absurd tensor count " + std::to_string(n_tensors), label + ":8");
  if (n_kv > kMaxMetadata) fail(ModelErrorKind::BadHeader, "absurd metadata count " + std::to_string(n_kv), label + ":16");
  if (n_tensors * 24 + n_kv * 13 > c.remaining())
    fail(ModelErrorKind::Truncated,
         std::to_string(n_tensors) + " tensors and " + std::to_string(n_kv) + " metadata entries cannot fit in the " +
             std::to_string(c.remaining()) + " bytes left",
         label + ":8");

  std::unordered_set<std::string> keys;
  file.metadata.reserve(static_cast<size_t>(n_kv));
  for (uint64_t k = 0; k < n_kv; ++k) {
    const size_t at = c.pos();
    std::string key = c.str("metadata key", kMaxNameBytes);
    if (!keys.insert(key).second) fail(ModelErrorKind::BadHeader, "duplicate metadata key " + key, c.at(at));
    const uint32_t type = c.u32("metadata type");
    Value v = c.value(type, key);
    file.metadata.emplace_back(std::move(key), std::move(v));
  }
  if (const Value* a = file.find("general.alignment")) {
    if (!a->is_integer() || a->i <= 0 || a->u > kMaxAlignment || (a->i & (a->i - 1)) != 0 || a->i > static_cast<int64_t>(kMaxAlignment))
      fail(ModelErrorKind::BadHeader, "general.alignment must be a power of two up to 2^30", label + ":general.alignment");
    file.alignment = static_cast<uint64_t>(a->i);
  }

  struct Info {
    uint64_t offset, bytes;
    size_t index;
  };
  std::vector<Info> infos;
  infos.reserve(static_cast<size_t>(n_tensors));
  file.tensors.reserve(static_cast<size_t>(n_tensors));
  std::unordered_set<std::string> names;
  for (uint64_t k = 0; k < n_tensors; ++k) {
    const size_t at = c.pos();
    TensorView t;
    t.name = c.str("tensor name", kMaxNameBytes);
    const std::string where = label + ":" + t.name;
    if (!names.insert(t.name).second) fail(ModelErrorKind::BadHeader, "duplicate tensor " + t.name, c.at(at));
    const uint32_t n_dims = c.u32("tensor dimension count");
    if (n_dims > kMaxDims)
      fail(ModelErrorKind::BadHeader, "tensor has " + std::to_string(n_dims) + " dimensions (at most 4)", where);
    std::vector<int64_t> ne;
    uint64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t n = c.u64("tensor dimension");
      if (n > kMaxDim) fail(ModelErrorKind::BadHeader, "tensor dimension " + std::to_string(n) + " is absurd", where);
      if (n != 0 && elements > kMaxElements / n) fail(ModelErrorKind::BadHeader, "tensor has too many elements", where);
      elements *= n;
      ne.push_back(static_cast<int64_t>(n));
    }
    const uint32_t ggml_type = c.u32("tensor type");
    const uint64_t offset = c.u64("tensor offset");
    const std::optional<DType> dtype = dtype_of(ggml_type);
    if (!dtype)
      fail(ModelErrorKind::UnknownDtype, "unsupported GGML type " + std::to_string(ggml_type) + " (F32, F16, BF16, Q8_0 load)", where);
    t.dtype = *dtype;
    t.shape.assign(ne.rbegin(), ne.rend());  // ne[0] (fastest) is the column count
    uint64_t nbytes;
    if (t.dtype == DType::Q8_0) {
      if (ne.empty() || ne[0] % 32 != 0)
        fail(ModelErrorKind::WrongShape, "Q8_0 tensor rows must be a multiple of 32 values", where);
      nbytes = elements / 32 * 34;
    } else {
      nbytes = elements * (t.dtype == DType::F32 ? 4 : 2);
    }
    t.bytes = static_cast<size_t>(nbytes);
    infos.push_back({offset, nbytes, file.tensors.size()});
    file.tensors.push_back(std::move(t));
  }

  file.data_offset = align_up(c.pos(), file.alignment);
  const uint64_t size = bytes.size();
  for (const Info& info : infos) {
    TensorView& t = file.tensors[info.index];
    const std::string where = label + ":" + t.name;
    if (info.offset % file.alignment != 0)
      fail(ModelErrorKind::BadHeader, "tensor offset " + std::to_string(info.offset) + " is not aligned to " + std::to_string(file.alignment), where);
    if (file.data_offset > size || info.offset > size - file.data_offset || info.bytes > size - file.data_offset - info.offset)
      fail(ModelErrorKind::Truncated,
           "tensor data [" + std::to_string(info.offset) + ", +" + std::to_string(info.bytes) + ") extends past the end of the file",
           where);
    t.data = bytes.data() + file.data_offset + info.offset;
  }
  std::sort(infos.begin(), infos.end(), [](const Info& a, const Info& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.bytes < b.bytes;
  });
  for (size_t k = 1; k < infos.size(); ++k)
    if (infos[k].offset < infos[k - 1].offset + infos[k - 1].bytes)
      fail(ModelErrorKind::BadHeader, "tensor data overlaps " + file.tensors[infos[k - 1].index].name,
           label + ":" + file.tensors[infos[k].index].name);
  return file;
}

File open(const std::string& path, Residency residency) { return open_mapped<File>(path, parse, residency); }

// ---- Writer ----

Writer::Writer(const std::string& path, uint32_t alignment) : path_(path), alignment_(alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) throw std::invalid_argument("GGUF alignment must be a power of two");
}

Writer::~Writer() {
  if (file_) std::fclose(file_);
}

void Writer::set(const std::string& key, Value value) {
  if (begun_) throw std::logic_error("GGUF writer: metadata after begin()");
  for (auto& [k, v] : metadata_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  metadata_.emplace_back(key, std::move(value));
}

void Writer::add_tensor(const std::string& name, DType dtype, std::vector<int64_t> shape) {
  if (begun_) throw std::logic_error("GGUF writer: tensor after begin()");
  if (shape.empty() || shape.size() > kMaxDims) throw std::invalid_argument("GGUF writer: bad rank for " + name);
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("GGUF writer: negative dimension in " + name);
    elements *= static_cast<uint64_t>(d);
  }
  const uint64_t nbytes = dtype == DType::Q8_0 ? elements / 32 * 34 : elements * (dtype == DType::F32 ? 4 : 2);
  if (dtype == DType::Q8_0 && shape.back() % 32 != 0) throw std::invalid_argument("GGUF writer: Q8_0 needs cols % 32 == 0 in " + name);
  uint64_t offset = 0;
  if (!tensors_.empty()) offset = (tensors_.back().offset + tensors_.back().bytes + alignment_ - 1) / alignment_ * alignment_;
  tensors_.push_back({name, dtype, std::move(shape), offset, nbytes});
}

void Writer::put(const void* p, size_t n) {
  if (n && std::fwrite(p, 1, n, file_) != n) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
  position_ += n;
}

void Writer::pad_to(uint64_t position) {
  static const uint8_t zeros[64] = {};
  while (position_ < position) put(zeros, static_cast<size_t>(std::min<uint64_t>(64, position - position_)));
}

void Writer::begin() {
  if (begun_) throw std::logic_error("GGUF writer: begin() twice");
  if (alignment_ != 32 && std::none_of(metadata_.begin(), metadata_.end(), [](const auto& kv) { return kv.first == "general.alignment"; }))
    metadata_.emplace_back("general.alignment", Value::u32(alignment_));
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw ModelError(ModelErrorKind::NotFound, "cannot create " + path_ + ": " + std::strerror(errno), path_);
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
  begun_ = true;
  const auto u32 = [&](uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    put(b, 4);
  };
  const auto u64 = [&](uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    put(b, 8);
  };
  const auto str = [&](const std::string& s) {
    u64(s.size());
    put(s.data(), s.size());
  };
  const auto scalar = [&](ValueType t, int64_t i, double f) {
    switch (t) {
      case ValueType::U8:
      case ValueType::I8:
      case ValueType::Bool: {
        const auto b = static_cast<uint8_t>(i);
        put(&b, 1);
        break;
      }
      case ValueType::U16:
      case ValueType::I16: {
        const uint8_t b[2] = {static_cast<uint8_t>(i), static_cast<uint8_t>(i >> 8)};
        put(b, 2);
        break;
      }
      case ValueType::U32:
      case ValueType::I32: u32(static_cast<uint32_t>(i)); break;
      case ValueType::U64:
      case ValueType::I64: u64(static_cast<uint64_t>(i)); break;
      case ValueType::F32: {
        const auto ff = static_cast<float>(f);
        uint32_t bits;
        std::memcpy(&bits, &ff, 4);
        u32(bits);
        break;
      }
      case ValueType::F64: {
        uint64_t bits;
        std::memcpy(&bits, &f, 8);
        u64(bits);
        break;
      }
      case ValueType::String:
      case ValueType::Array: throw std::logic_error("GGUF writer: not a scalar");
    }
  };

  const uint32_t magic = 0x46554747;
  u32(magic);
  u32(3);
  u64(tensors_.size());
  u64(metadata_.size());
  for (const auto& [key, v] : metadata_) {
    str(key);
    u32(static_cast<uint32_t>(v.type));
    if (v.type == ValueType::String) {
      str(v.str);
    } else if (v.type == ValueType::Array) {
      u32(static_cast<uint32_t>(v.element));
      if (v.element == ValueType::String) {
        u64(v.strings.size());
        for (const std::string& s : v.strings) str(s);
      } else if (v.element == ValueType::F32 || v.element == ValueType::F64) {
        u64(v.floats.size());
        for (double f : v.floats) scalar(v.element, 0, f);
      } else if (v.element == ValueType::Array) {
        throw std::invalid_argument("GGUF writer: arrays of arrays are not written");
      } else {
        u64(v.ints.size());
        for (int64_t i : v.ints) scalar(v.element, i, 0);
      }
    } else if (v.type == ValueType::U64) {
      u64(v.u ? v.u : static_cast<uint64_t>(v.i));
    } else {
      scalar(v.type, v.i, v.f);
    }
  }
  for (const Pending& t : tensors_) {
    str(t.name);
    u32(static_cast<uint32_t>(t.shape.size()));
    for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) u64(static_cast<uint64_t>(*it));
    u32(ggml_type_of(t.dtype));
    u64(t.offset);
  }
  data_start_ = (position_ + alignment_ - 1) / alignment_ * alignment_;
  pad_to(data_start_);
}

void Writer::advance() {
  while (current_ < tensors_.size() && current_written_ == tensors_[current_].bytes) {
    ++current_;
    current_written_ = 0;
    if (current_ < tensors_.size()) pad_to(data_start_ + tensors_[current_].offset);
  }
}

void Writer::write(const void* data, size_t bytes) {
  if (!begun_ || !file_) throw std::logic_error("GGUF writer: write outside begin()/finish()");
  uint64_t left = tensors_.empty() || current_ >= tensors_.size() ? 0 : tensors_[current_].bytes - current_written_;
  for (size_t k = current_ + 1; k < tensors_.size(); ++k) left += tensors_[k].bytes;
  if (bytes > left) throw std::logic_error("GGUF writer: more data than the tensors declare");
  const auto* p = static_cast<const uint8_t*>(data);
  while (bytes > 0) {
    advance();
    if (current_ >= tensors_.size()) throw std::logic_error("GGUF writer: more data than the tensors declare");
    const size_t take = static_cast<size_t>(std::min<uint64_t>(bytes, tensors_[current_].bytes - current_written_));
    put(p, take);
    p += take;
    bytes -= take;
    current_written_ += take;
  }
}

void Writer::finish() {
  if (!begun_) begin();
  if (!file_) return;
  advance();
  if (current_ != tensors_.size()) throw std::logic_error("GGUF writer: tensor " + tensors_[current_].name + " is incomplete");
  const bool ok = std::fflush(file_) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed) throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
}

}  // namespace ninfer::models::gguf
