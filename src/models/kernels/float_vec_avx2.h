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
  NINFER_AVX2_OP reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
  NINFER_AVX2_OP reg div(reg a, reg b) { return _mm256_div_ps(a, b); }
  NINFER_AVX2_OP reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
  NINFER_AVX2_OP reg round(reg a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // 2^n for integral n in the normal range.
  NINFER_AVX2_OP reg pow2(reg n) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
  }
  // y where x >= bound, else 0 (and where x is NaN).
  NINFER_AVX2_OP reg keep_ge(reg x, reg bound, reg y) { return _mm256_and_ps(_mm256_cmp_ps(x, bound, _CMP_GE_OQ), y); }
  // a where x >= 0, else b.
  NINFER_AVX2_OP reg select_nonneg(reg x, reg a, reg b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
  }
  // Fixed order: the halves, then pairs, then the last two.
  NINFER_AVX2_OP float hsum(reg a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  NINFER_AVX2_OP void hsum8(const reg* v, float* out) {  // as AVX-512's, one by one
    for (int j = 0; j < 8; ++j) out[j] = hsum(v[j]);
  }
  // Keeps a loaded operand in a register: otherwise the compiler folds the load into every FMA that
  // uses it, and the loads, not the FMAs, set the pace.
  NINFER_AVX2_OP void in_register(reg& a) { asm("" : "+x"(a)); }
  NINFER_AVX2_OP float fmadd1(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
};

#undef NINFER_AVX2_OP

}  // namespace ninfer::models::kernels::avx2
