// A read-only view of one weight tensor as it lies in the file (memory-mapped) or in an owned buffer.
// Matrices are row-major [rows, cols] with rows = output features, cols = input features: the layout
// of a safetensors Linear weight [out, in] and of a GGUF tensor with ne = {in, out} alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ninfer::models {

enum class DType : uint8_t {
  F32,
  F16,
  BF16,
  Q8_0,  // GGML Q8_0: blocks of 32 values along a row, each an f16 scale + 32 int8 (34 bytes)
};

const char* dtype_name(DType dtype);
// Bytes of one row of `cols` values (Q8_0 needs cols % 32 == 0).
size_t row_bytes(DType dtype, int64_t cols);

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // 1-D [n] or 2-D [rows, cols]
  const void* data = nullptr;
  size_t bytes = 0;

  int64_t rows() const { return shape.size() == 2 ? shape[0] : 1; }
  int64_t cols() const { return shape.empty() ? 0 : shape.back(); }
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

// Converts element i of a tensor to float (slow path, for references and tests).
float tensor_element(const TensorView& t, int64_t index);

}  // namespace ninfer::models
