// Portable instances of the kernels: one float per "register", for CPUs without AVX2 and as the
// baseline the SIMD versions are tested against.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "models/dtype_convert.h"
#include "models/kernels/q8_block_dot.h"
#include "models/kernels/simd_kernels.h"

#define NINFER_KERNEL_TARGET
#define NINFER_VEC_OP __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::scalar {

struct V {
  using reg = float;
  static constexpr int kWidth = 1;
  static constexpr int kBatchTile = 4;
  static constexpr int kPanelMinBatch = 3;
  static constexpr int kTileRows = 2;
  static constexpr int kTileBatch = 4;
  using Q8 = Q8Portable;  // Q8_0 weights: int8 dot products (q8_block_dot.h)
  static constexpr int kQ8TileRows = 2;
  static constexpr int kQ8TileBatch = 4;
  NINFER_VEC_OP reg zero() { return 0.0f; }
  NINFER_VEC_OP reg set1(float f) { return f; }
  NINFER_VEC_OP reg load(const float* p) {
    float f;  // weight rows of F32 files need not be 4-byte aligned
    std::memcpy(&f, p, 4);
    return f;
  }
  NINFER_VEC_OP void store(float* p, reg a) { *p = a; }
  NINFER_VEC_OP reg add(reg a, reg b) { return a + b; }
  NINFER_VEC_OP reg mul(reg a, reg b) { return a * b; }
  NINFER_VEC_OP reg fmadd(reg a, reg b, reg c) { return a * b + c; }
  NINFER_VEC_OP float hsum(reg a) { return a; }
  NINFER_VEC_OP reg load_bf16(const uint16_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16_to_f32(h);
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return f16_to_f32(h);
  }
  NINFER_VEC_OP reg load_i8(const int8_t* p) { return static_cast<float>(*p); }
  NINFER_VEC_OP void in_register(reg& a) { (void)a; }
  NINFER_VEC_OP float fmadd1(float a, float b, float c) { return a * b + c; }
  NINFER_VEC_OP float half(uint16_t h) { return f16_to_f32(h); }
};

#include "models/kernels/simd_kernels_body.inc"

const KernelTable kTable{Isa::Scalar, &matmul_rows, &dot, &quantize_q8, &causal_attention};

}  // namespace ninfer::models::kernels::scalar
