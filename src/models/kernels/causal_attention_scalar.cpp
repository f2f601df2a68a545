// Portable instance of the causal attention kernel: one float per "register", for CPUs without AVX2
// and as the baseline the SIMD versions are tested against.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "models/kernels/causal_attention.h"

#define NINFER_KERNEL_TARGET
#define NINFER_VEC_OP __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::scalar {

struct AV {
  using reg = float;
  static constexpr int kWidth = 1;
  static constexpr int kScoreRows = 1;
  static constexpr int kValueRows = 2;
  static constexpr int kValueVecs = 2;
  NINFER_VEC_OP reg zero() { return 0.0f; }
  NINFER_VEC_OP reg set1(float f) { return f; }
  NINFER_VEC_OP reg load(const float* p) { return *p; }
  NINFER_VEC_OP void store(float* p, reg a) { *p = a; }
  NINFER_VEC_OP reg add(reg a, reg b) { return a + b; }
  NINFER_VEC_OP reg sub(reg a, reg b) { return a - b; }
  NINFER_VEC_OP reg mul(reg a, reg b) { return a * b; }
  NINFER_VEC_OP reg fmadd(reg a, reg b, reg c) { return a * b + c; }
  NINFER_VEC_OP reg max(reg a, reg b) { return a > b ? a : b; }
  NINFER_VEC_OP float first(reg a) { return a; }
  NINFER_VEC_OP float hmax(reg a) { return a; }
  NINFER_VEC_OP float hsum(reg a) { return a; }
  NINFER_VEC_OP reg reduce(const reg* a) { return a[0]; }
  // 1.5 * 2^23: adding it leaves no fraction bits, so the sum is rounded to an integer (to nearest
  // even, the default mode); exact for |a| < 2^22, far more than exp's exponents need.
  NINFER_VEC_OP reg round(reg a) { return (a + 12582912.0f) - 12582912.0f; }
  NINFER_VEC_OP reg pow2(reg n) {
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  NINFER_VEC_OP reg keep_ge(reg x, reg bound, reg y) { return x >= bound ? y : 0.0f; }
  NINFER_VEC_OP void in_register(reg& a) { (void)a; }
  NINFER_VEC_OP float fmadd1(float a, float b, float c) { return a * b + c; }
};

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::scalar
