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

namespace {

// Where block k of row r lies in a Q8_0 matrix of rb-byte rows, row-major or packed in tiles.
size_t q8_block_offset(bool tiles, size_t rb, size_t r, size_t k) {
  if (!tiles) return r * rb + k * kQ8BlockBytes;
  return r / kQ8TileRows * kQ8TileRows * rb + (k * kQ8TileRows + r % kQ8TileRows) * kQ8BlockBytes;
}

const uint8_t* q8_block(const TensorView& t, const uint8_t* p, size_t r, size_t k) {
  return p + q8_block_offset(t.q8_tiles, row_bytes(DType::Q8_0, t.cols()), r, k);
}

}  // namespace

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
      return q8_0_value(q8_block(t, p, row, col / kQ8BlockValues), static_cast<int>(col % kQ8BlockValues));
    }
  }
  throw std::invalid_argument("tensor_element: unknown dtype");
}

const uint8_t* row_data(const TensorView& t, int64_t r, std::vector<uint8_t>& scratch) {
  const size_t rb = row_bytes(t.dtype, t.cols());
  const auto* p = static_cast<const uint8_t*>(t.data);
  if (!t.q8_tiles) return p + static_cast<size_t>(r) * rb;
  scratch.resize(rb);
  for (size_t k = 0; k < rb / kQ8BlockBytes; ++k) {
    std::memcpy(scratch.data() + k * kQ8BlockBytes, q8_block(t, p, static_cast<size_t>(r), k), kQ8BlockBytes);
  }
  return scratch.data();
}

bool packs_q8_tiles(const TensorView& t) {
  return t.dtype == DType::Q8_0 && t.shape.size() == 2 && t.rows() > 0 && t.rows() % kQ8TileRows == 0 && !t.q8_tiles;
}

void pack_q8_tiles(TensorView& t, uint8_t* bytes) {
  if (!packs_q8_tiles(t)) throw std::invalid_argument("pack_q8_tiles: not a Q8_0 matrix of whole tiles: " + t.name);
  const size_t rb = row_bytes(DType::Q8_0, t.cols()), blocks = rb / kQ8BlockBytes;
  const size_t tile_bytes = rb * kQ8TileRows;
  std::vector<uint8_t> tile(tile_bytes);
  for (uint8_t* p = bytes; p < bytes + static_cast<size_t>(t.rows()) * rb; p += tile_bytes) {
    std::memcpy(tile.data(), p, tile_bytes);
    for (size_t k = 0; k < blocks; ++k)
      for (size_t m = 0; m < kQ8TileRows; ++m)
        std::memcpy(p + q8_block_offset(true, rb, m, k), tile.data() + q8_block_offset(false, rb, m, k), kQ8BlockBytes);
  }
  t.q8_tiles = true;
}

}  // namespace ninfer::models
