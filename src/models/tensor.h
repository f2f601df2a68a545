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

// How a Q8_0 matrix's blocks lie: as the file has them, or packed (TensorView::q8_tiles, q8_lanes).
enum class Q8Packing : uint8_t { RowMajor, Tiles, Lanes };

// How a loader packs the matrices of its own copy of the weights, for the kernels that will read them.
struct WeightPacking {
  Q8Packing q8 = Q8Packing::RowMajor;
  bool column_tiles = false;  // F16 and BF16 matrices in column tiles (TensorView::column_tiles)
  WeightPacking(Q8Packing q8_packing = Q8Packing::RowMajor, bool columns = false)
      : q8(q8_packing), column_tiles(columns) {}
  bool any() const { return q8 != Q8Packing::RowMajor || column_tiles; }
};

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  // 1-D [n] or 2-D [rows, cols]
  const void* data = nullptr;
  size_t bytes = 0;
  // A Q8_0 matrix packed for the AMX tile unit (pack_q8_tiles): rows in tiles of kQ8TileRows, a tile's
  // blocks in column order, each block as its rows' blocks in turn, so that the tile unit's loads and
  // the kernels' prefetches read one contiguous stream instead of 16 rows side by side.
  bool q8_tiles = false;
  // A Q8_0 matrix packed for the vector kernels' int8 dot products (pack_q8_lanes): rows in tiles of
  // kQ8LaneRows, a tile's blocks in column order, each block its 16 rows' scales, then its 4-byte
  // groups of values one group at a time for all 16 rows (one 512-bit vector a group), each byte
  // stored + 128, so that one vpdpbusd takes a group of 16 rows against 4 activations.
  bool q8_lanes = false;
  // An F16 or BF16 matrix packed in column tiles for the vector kernels (pack_column_tiles): rows in tiles of
  // kColumnTileRows, tiles in pairs (kColumnPairRows), a pair's columns in order, each column its 32
  // rows' values (64 bytes, one line: the first tile's 16, then the second's), so that one 512-bit
  // vector of a column's 16 rows meets one activation broadcast from memory, and a pair of tiles is one
  // sequential stream that feeds two independent sums per activation row. Where the rows end on an
  // odd tile, that tile stands alone: each column its 16 rows' values.
  bool column_tiles = false;

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

// Row r's bytes as stored row-major: straight from the tensor, or for a packed one (q8_tiles,
// q8_lanes or column_tiles) gathered into scratch (one row's bytes).
const uint8_t* row_data(const TensorView& t, int64_t r, std::vector<uint8_t>& scratch);

// TensorView::q8_tiles: rows per tile. Row r's block k lies at (r / 16) * 16 * row_bytes +
// (k * 16 + r % 16) * kQ8BlockBytes.
constexpr int64_t kQ8TileRows = 16;
// Whether pack_q8_tiles takes t: Q8_0, two dimensions, rows a multiple of kQ8TileRows.
bool packs_q8_tiles(const TensorView& t);
// Packs t (packs_q8_tiles(t)) in place: `bytes` is t's data, writable. Sets t.q8_tiles.
void pack_q8_tiles(TensorView& t, uint8_t* bytes);

// TensorView::q8_lanes: rows per tile, and the bytes of one block of a tile: 16 f16 scales (row m's at
// 2m), then group g (values 4g .. 4g + 3) of row m at 32 + 64g + 4m, each value v stored as v + 128
// (v ^ 0x80). Tile t's block k lies at t * 16 * row_bytes + k * kQ8LaneBlockBytes: the same bytes as
// 16 rows' blocks, so a matrix keeps its size.
constexpr int64_t kQ8LaneRows = 16;
constexpr int64_t kQ8LaneScaleBytes = 2 * kQ8LaneRows;
constexpr int64_t kQ8LaneGroupBytes = 4 * kQ8LaneRows;
constexpr int64_t kQ8LaneBlockBytes = kQ8LaneScaleBytes + 8 * kQ8LaneGroupBytes;
// Where value i of row m's block lies in its lane block (as above).
constexpr int64_t q8_lane_value_offset(int64_t m, int64_t i) {
  return kQ8LaneScaleBytes + kQ8LaneGroupBytes * (i / 4) + 4 * m + i % 4;
}
// Whether pack_q8_lanes takes t: Q8_0, two dimensions, rows a multiple of kQ8LaneRows, not packed.
bool packs_q8_lanes(const TensorView& t);
// Packs t (packs_q8_lanes(t)) in place: `bytes` is t's data, writable. Sets t.q8_lanes.
void pack_q8_lanes(TensorView& t, uint8_t* bytes);

// TensorView::column_tiles: rows per tile, and per pair of tiles (the stride of a pair's columns).
constexpr int64_t kColumnTileRows = 16;
constexpr int64_t kColumnPairRows = 2 * kColumnTileRows;
// The values in each column of the group of tiles that holds row r, in a matrix of `rows` rows
// packed in column tiles: the pair from row p = r / 32 * 32, min(32, rows - p) (16: the odd last tile).
constexpr int64_t column_tile_width(int64_t rows, int64_t r) {
  const int64_t p = r / kColumnPairRows * kColumnPairRows;
  return rows - p < kColumnPairRows ? rows - p : kColumnPairRows;
}
// Where row r's column c of such a matrix lies, in elements. The matrix keeps its size.
constexpr int64_t column_tile_offset(int64_t rows, int64_t cols, int64_t r, int64_t c) {
  const int64_t p = r / kColumnPairRows * kColumnPairRows;
  return p * cols + c * column_tile_width(rows, r) + (r - p);
}
// Whether pack_column_tiles takes t: F16 or BF16, two dimensions, rows a multiple of kColumnTileRows, not packed.
bool packs_column_tiles(const TensorView& t);
// Packs t (packs_column_tiles(t)) in place: `bytes` is t's data, writable. Sets t.column_tiles.
void pack_column_tiles(TensorView& t, uint8_t* bytes);

}  // namespace ninfer::models
