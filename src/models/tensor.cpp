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

// Block k of row r of a q8_lanes matrix of rb-byte rows, as the row-major block it was (34 bytes
// into out).
void q8_lane_block(const uint8_t* p, size_t rb, size_t r, size_t k, uint8_t* out) {
  const uint8_t* b = p + r / kQ8LaneRows * kQ8LaneRows * rb + k * kQ8LaneBlockBytes;
  const size_t m = r % kQ8LaneRows;
  std::memcpy(out, b + 2 * m, 2);
  for (int i = 0; i < kQ8BlockValues; ++i) {
    out[2 + i] = b[q8_lane_value_offset(static_cast<int64_t>(m), i)] ^ 0x80;
  }
}

// Where element i (row-major) of a 16-bit tensor lies, in elements: i itself, or in its column tile.
size_t column_tile_index(const TensorView& t, size_t i) {
  if (!t.column_tiles) return i;
  const auto cols = static_cast<size_t>(t.cols());
  const size_t r = i / cols, c = i % cols;
  return static_cast<size_t>(column_tile_offset(t.rows(), t.cols(), static_cast<int64_t>(r), static_cast<int64_t>(c)));
}

// Whether t is a row-major matrix of `dtype` (one of `dtype2`) whose rows make whole tiles of tile_rows.
bool row_major_tiles(const TensorView& t, DType dtype, DType dtype2, int64_t tile_rows) {
  return (t.dtype == dtype || t.dtype == dtype2) && t.shape.size() == 2 && t.rows() > 0 && t.rows() % tile_rows == 0 &&
         !t.q8_tiles && !t.q8_lanes && !t.column_tiles;
}

// Rewrites t's bytes in place a tile of tile_rows rows at a time: fn(the tile's bytes, a copy of them
// as they were).
template <class Fn>
void rewrite_tiles(const TensorView& t, uint8_t* bytes, int64_t tile_rows, Fn&& fn) {
  const size_t tile_bytes = row_bytes(t.dtype, t.cols()) * static_cast<size_t>(tile_rows);
  std::vector<uint8_t> tile(tile_bytes);
  for (uint8_t* p = bytes; p < bytes + static_cast<size_t>(t.rows() / tile_rows) * tile_bytes; p += tile_bytes) {
    std::memcpy(tile.data(), p, tile_bytes);
    fn(p, tile.data());
  }
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
      std::memcpy(&h, p + 2 * column_tile_index(t, i), 2);
      return t.dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
    }
    case DType::Q8_0: {
      // Blocks run along a row; rows are whole blocks.
      const auto cols = static_cast<size_t>(t.cols());
      const size_t row = i / cols, col = i % cols;
      if (t.q8_lanes) {
        uint8_t block[kQ8BlockBytes];
        q8_lane_block(p, row_bytes(DType::Q8_0, t.cols()), row, col / kQ8BlockValues, block);
        return q8_0_value(block, static_cast<int>(col % kQ8BlockValues));
      }
      return q8_0_value(q8_block(t, p, row, col / kQ8BlockValues), static_cast<int>(col % kQ8BlockValues));
    }
  }
  throw std::invalid_argument("tensor_element: unknown dtype");
}

const uint8_t* row_data(const TensorView& t, int64_t r, std::vector<uint8_t>& scratch) {
  const size_t rb = row_bytes(t.dtype, t.cols());
  const auto* p = static_cast<const uint8_t*>(t.data);
  if (t.column_tiles) {  // row r of its pair of tiles: every 32nd value (16th in a lone tile)
    scratch.resize(rb);
    const auto first = static_cast<size_t>(column_tile_offset(t.rows(), t.cols(), r, 0));
    const auto stride = static_cast<size_t>(column_tile_width(t.rows(), r));
    for (size_t c = 0; c < rb / 2; ++c) std::memcpy(scratch.data() + 2 * c, p + 2 * (first + c * stride), 2);
    return scratch.data();
  }
  if (!t.q8_tiles && !t.q8_lanes) return p + static_cast<size_t>(r) * rb;
  scratch.resize(rb);
  for (size_t k = 0; k < rb / kQ8BlockBytes; ++k) {
    if (t.q8_lanes) {
      q8_lane_block(p, rb, static_cast<size_t>(r), k, scratch.data() + k * kQ8BlockBytes);
    } else {
      std::memcpy(scratch.data() + k * kQ8BlockBytes, q8_block(t, p, static_cast<size_t>(r), k), kQ8BlockBytes);
    }
  }
  return scratch.data();
}

bool packs_q8_tiles(const TensorView& t) { return row_major_tiles(t, DType::Q8_0, DType::Q8_0, kQ8TileRows); }

void pack_q8_tiles(TensorView& t, uint8_t* bytes) {
  if (!packs_q8_tiles(t)) throw std::invalid_argument("pack_q8_tiles: not a Q8_0 matrix of whole tiles: " + t.name);
  const size_t rb = row_bytes(DType::Q8_0, t.cols()), blocks = rb / kQ8BlockBytes;
  rewrite_tiles(t, bytes, kQ8TileRows, [&](uint8_t* p, const uint8_t* tile) {
    for (size_t k = 0; k < blocks; ++k)
      for (size_t m = 0; m < kQ8TileRows; ++m)
        std::memcpy(p + q8_block_offset(true, rb, m, k), tile + q8_block_offset(false, rb, m, k), kQ8BlockBytes);
  });
  t.q8_tiles = true;
}

bool packs_q8_lanes(const TensorView& t) { return row_major_tiles(t, DType::Q8_0, DType::Q8_0, kQ8LaneRows); }

void pack_q8_lanes(TensorView& t, uint8_t* bytes) {
  if (!packs_q8_lanes(t)) throw std::invalid_argument("pack_q8_lanes: not a Q8_0 matrix of whole tiles: " + t.name);
  const size_t rb = row_bytes(DType::Q8_0, t.cols()), blocks = rb / kQ8BlockBytes;
  rewrite_tiles(t, bytes, kQ8LaneRows, [&](uint8_t* p, const uint8_t* tile) {
    for (size_t k = 0; k < blocks; ++k) {
      uint8_t* out = p + k * kQ8LaneBlockBytes;
      for (size_t m = 0; m < kQ8LaneRows; ++m) {
        const uint8_t* in = tile + m * rb + k * kQ8BlockBytes;
        std::memcpy(out + 2 * m, in, 2);
        for (int g = 0; g < kQ8BlockValues / 4; ++g) {  // a group's 4 bytes + 128 each
          uint32_t four;
          std::memcpy(&four, in + 2 + 4 * g, 4);
          four ^= 0x80808080u;
          std::memcpy(out + q8_lane_value_offset(static_cast<int64_t>(m), 4 * g), &four, 4);
        }
      }
    }
  });
  t.q8_lanes = true;
}

bool packs_column_tiles(const TensorView& t) { return row_major_tiles(t, DType::F16, DType::BF16, kColumnTileRows); }

void pack_column_tiles(TensorView& t, uint8_t* bytes) {
  if (!packs_column_tiles(t)) {
    throw std::invalid_argument("pack_column_tiles: not an F16 or BF16 matrix of whole tiles: " + t.name);
  }
  const int64_t rows = t.rows(), cols = t.cols();
  const size_t rb = row_bytes(t.dtype, cols);
  std::vector<uint8_t> pair(rb * kColumnPairRows);
  for (int64_t p0 = 0; p0 < rows; p0 += kColumnPairRows) {  // a pair of tiles (or the odd last tile) at a time
    const int64_t width = column_tile_width(rows, p0);
    uint8_t* out = bytes + static_cast<size_t>(p0) * rb;
    std::memcpy(pair.data(), out, static_cast<size_t>(width) * rb);
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t m = 0; m < width; ++m) {
        std::memcpy(out + 2 * (column_tile_offset(rows, cols, p0 + m, c) - p0 * cols), pair.data() + 2 * (m * cols + c), 2);
      }
    }
  }
  t.column_tiles = true;
}

}  // namespace ninfer::models
