// The fp32 "vector" operations of the portable kernels (matmul and attention): one float per
// register. Each kernel's struct derives from FloatVec and adds what only it needs.
#pragma once

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
  NINFER_SCALAR_OP float hsum(reg a) { return a; }
  NINFER_SCALAR_OP void in_register(reg& a) { (void)a; }
  NINFER_SCALAR_OP float fmadd1(float a, float b, float c) { return a * b + c; }
};

#undef NINFER_SCALAR_OP

}  // namespace ninfer::models::kernels::scalar
