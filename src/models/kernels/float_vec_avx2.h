// The fp32 vector operations of the AVX2 kernels (matmul and attention): 8 floats per register.
// Each kernel's struct derives from FloatVec and adds what only it needs.
#pragma once

#include <immintrin.h>

namespace ninfer::models::kernels::avx2 {

#define NINFER_AVX2_OP __attribute__((target("avx2,fma"), always_inline)) static inline

struct FloatVec {
  using reg = __m256;
  static constexpr int kWidth = 8;
  NINFER_AVX2_OP reg zero() { return _mm256_setzero_ps(); }
  NINFER_AVX2_OP reg set1(float f) { return _mm256_set1_ps(f); }
  NINFER_AVX2_OP reg load(const float* p) { return _mm256_loadu_ps(p); }
  NINFER_AVX2_OP void store(float* p, reg a) { _mm256_storeu_ps(p, a); }
  NINFER_AVX2_OP reg add(reg a, reg b) { return _mm256_add_ps(a, b); }
  NINFER_AVX2_OP reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
  NINFER_AVX2_OP reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  // Fixed order: the halves, then pairs, then the last two.
  NINFER_AVX2_OP float hsum(reg a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  // Keeps a loaded operand in a register: otherwise the compiler folds the load into every FMA that
  // uses it, and the loads, not the FMAs, set the pace.
  NINFER_AVX2_OP void in_register(reg& a) { asm("" : "+x"(a)); }
  NINFER_AVX2_OP float fmadd1(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
};

#undef NINFER_AVX2_OP

}  // namespace ninfer::models::kernels::avx2
