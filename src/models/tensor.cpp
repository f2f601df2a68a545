#include "models/tensor.h"

#include <cstring>
#include <stdexcept>

#include "models/dtype_convert.h"

namespace ninfer::models {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::Q8_0: return "q8_0";
  }
  return "unknown";
}

size_t row_bytes(DType dtype, int64_t cols) {
  if (cols < 0) throw std::invalid_argument("row_bytes: negative column count");
  const auto n = static_cast<size_t>(cols);
  switch (dtype) {
    case DType::F32: return n * 4;
    case DType::F16:
    case DType::BF16: return n * 2;
    case DType::Q8_0:
      if (n % kQ8BlockValues != 0) throw std::invalid_argument("row_bytes: Q8_0 needs a multiple of 32 columns");
      return n / kQ8BlockValues * kQ8BlockBytes;
  }
  throw std::invalid_argument("row_bytes: unknown dtype");
}

float tensor_element(const TensorView& t, int64_t index) {
  if (index < 0 || index >= t.elements()) throw std::out_of_range("tensor_element: index out of range in " + t.name);
  const auto* p = static_cast<const uint8_t*>(t.data);
  const auto i = static_cast<size_t>(index);
  switch (t.dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      return f;
    }
    case DType::F16:
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return t.dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
    }
    case DType::Q8_0: {
      // Blocks run along a row; rows are whole blocks.
      const auto cols = static_cast<size_t>(t.cols());
      const size_t row = i / cols, col = i % cols;
      const uint8_t* block = p + row * row_bytes(DType::Q8_0, t.cols()) + (col / kQ8BlockValues) * kQ8BlockBytes;
      return q8_0_value(block, static_cast<int>(col % kQ8BlockValues));
    }
  }
  throw std::invalid_argument("tensor_element: unknown dtype");
}

}  // namespace ninfer::models
