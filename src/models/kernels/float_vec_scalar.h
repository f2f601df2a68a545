// The fp32 "vector" operations of the portable kernels (matmul and attention): one float per
// register. Each kernel's struct derives from FloatVec and adds what only it needs.
#pragma once

#include <cstdint>
#include <cstring>

namespace ninfer::models::kernels::scalar {

#define NINFER_SCALAR_OP __attribute__((always_inline)) static inline

struct FloatVec {
  using reg = float;
  static constexpr int kWidth = 1;
  NINFER_SCALAR_OP reg zero() { return 0.0f; }
  NINFER_SCALAR_OP reg set1(float f) { return f; }
  NINFER_SCALAR_OP reg load(const float* p) {
    float f;  // weight rows of F32 files need not be 4-byte aligned
    std::memcpy(&f, p, 4);
    return f;
  }
  NINFER_SCALAR_OP void store(float* p, reg a) { *p = a; }
  NINFER_SCALAR_OP reg add(reg a, reg b) { return a + b; }
  NINFER_SCALAR_OP reg mul(reg a, reg b) { return a * b; }
  NINFER_SCALAR_OP reg fmadd(reg a, reg b, reg c) { return a * b + c; }
  NINFER_SCALAR_OP reg sub(reg a, reg b) { return a - b; }
  NINFER_SCALAR_OP reg div(reg a, reg b) { return a / b; }
  NINFER_SCALAR_OP reg max(reg a, reg b) { return a > b ? a : b; }
  // 1.5 * 2^23: adding it leaves no fraction bits, so the sum is rounded to an integer (to nearest
  // even, the default mode); exact for |a| < 2^22, far more than exp's exponents need.
  NINFER_SCALAR_OP reg round(reg a) { return (a + 12582912.0f) - 12582912.0f; }
  // 2^n for integral n in the normal range.
  NINFER_SCALAR_OP reg pow2(reg n) {
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  // y where x >= bound, else 0 (and where x is NaN).
  NINFER_SCALAR_OP reg keep_ge(reg x, reg bound, reg y) { return x >= bound ? y : 0.0f; }
  // a where x >= 0, else b.
  NINFER_SCALAR_OP reg select_nonneg(reg x, reg a, reg b) { return x >= 0.0f ? a : b; }
  NINFER_SCALAR_OP float hsum(reg a) { return a; }
  NINFER_SCALAR_OP void hsum8(const reg* v, float* out) {  // as AVX-512's, one by one
    for (int j = 0; j < 8; ++j) out[j] = hsum(v[j]);
  }
  NINFER_SCALAR_OP void in_register(reg& a) { (void)a; }
  NINFER_SCALAR_OP float fmadd1(float a, float b, float c) { return a * b + c; }
};

#undef NINFER_SCALAR_OP

}  // namespace ninfer::models::kernels::scalar
