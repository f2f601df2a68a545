// The tile configuration of the AMX kernels (matmuls in simd_kernels_amx.cpp, attention in
// causal_attention_amx.cpp): each loads its own with LDTILECFG at the start of a call.
#pragma once

#include <cstdint>

namespace ninfer::models::kernels::amx {

// LDTILECFG's 64-byte operand (palette 1): per tile, its rows and bytes per row.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

}  // namespace ninfer::models::kernels::amx
