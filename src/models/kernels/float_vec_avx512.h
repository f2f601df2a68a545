// The fp32 vector operations of the AVX-512 kernels (matmul and attention): 16 floats per register.
// Each kernel's struct derives from FloatVec and adds what only it needs. Include after
// <immintrin.h> (the including files wrap it in GCC 12's diagnostic workaround).
#pragma once

#include <immintrin.h>

namespace ninfer::models::kernels::avx512 {

#define NINFER_AVX512_OP __attribute__((target("avx512f,avx2,fma"), always_inline)) static inline

struct FloatVec {
  using reg = __m512;
  static constexpr int kWidth = 16;
  NINFER_AVX512_OP reg zero() { return _mm512_setzero_ps(); }
  NINFER_AVX512_OP reg set1(float f) { return _mm512_set1_ps(f); }
  NINFER_AVX512_OP reg load(const float* p) { return _mm512_loadu_ps(p); }
  NINFER_AVX512_OP void store(float* p, reg a) { _mm512_storeu_ps(p, a); }
  NINFER_AVX512_OP reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  NINFER_AVX512_OP reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  NINFER_AVX512_OP reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  NINFER_AVX512_OP reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
  NINFER_AVX512_OP reg div(reg a, reg b) { return _mm512_div_ps(a, b); }
  NINFER_AVX512_OP reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
  NINFER_AVX512_OP reg round(reg a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // 2^n for integral n in the normal range.
  NINFER_AVX512_OP reg pow2(reg n) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }
  // y where x >= bound, else 0 (and where x is NaN).
  NINFER_AVX512_OP reg keep_ge(reg x, reg bound, reg y) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, bound, _CMP_GE_OQ), y);
  }
  // a where x >= 0, else b.
  NINFER_AVX512_OP reg select_nonneg(reg x, reg a, reg b) {
    return _mm512_mask_mov_ps(b, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), a);
  }
  NINFER_AVX512_OP __m256 low(reg a) { return _mm512_castps512_ps256(a); }
  NINFER_AVX512_OP __m256 high(reg a) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)); }
  // Fixed pairwise order, the same as the AVX2 one after adding the halves.
  NINFER_AVX512_OP float hsum(reg a) {
    const __m256 h = _mm256_add_ps(low(a), high(a));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  // Keeps a loaded operand in a register (see the AVX2 one).
  NINFER_AVX512_OP void in_register(reg& a) { asm("" : "+v"(a)); }
  NINFER_AVX512_OP float fmadd1(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
};

#undef NINFER_AVX512_OP

}  // namespace ninfer::models::kernels::avx512
