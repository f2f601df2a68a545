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
  // hsum of v[0..7] into out[0..7], the same additions in the same pairs as hsum's (so the same bits),
  // done for the eight at once: each level adds the halves of two vectors packed side by side, 3
  // instructions per two vectors instead of 2 per vector, and no extraction until the end.
  NINFER_AVX512_OP void hsum8(const reg* v, float* out) {
    reg h[4];  // v[2p]'s lanes i + i+8 in lanes 0-7, v[2p+1]'s in 8-15
    for (int p = 0; p < 4; ++p) {
      h[p] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0x44),
                           _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0xee));
    }
    reg q[2];  // quarter k: v[4p + k]'s lanes i + i+4 of the above
    for (int p = 0; p < 2; ++p) {
      q[p] = _mm512_add_ps(_mm512_shuffle_f32x4(h[2 * p], h[2 * p + 1], 0x88),
                           _mm512_shuffle_f32x4(h[2 * p], h[2 * p + 1], 0xdd));
    }
    // Quarter k: lanes 0-1 of v[k]'s sums i + i+2, lanes 2-3 of v[k + 4]'s; then their two lanes.
    const reg t = _mm512_add_ps(_mm512_shuffle_ps(q[0], q[1], 0x44), _mm512_shuffle_ps(q[0], q[1], 0xee));
    const reg u = _mm512_add_ps(_mm512_shuffle_ps(t, t, 0x88), _mm512_shuffle_ps(t, t, 0xdd));
    // Quarter k now holds v[k]'s sum in lane 0 and v[k + 4]'s in lane 1.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
    _mm256_storeu_ps(out, _mm512_castps512_ps256(_mm512_permutexvar_ps(order, u)));
  }
  // Keeps a loaded operand in a register (see the AVX2 one).
  NINFER_AVX512_OP void in_register(reg& a) { asm("" : "+v"(a)); }
  NINFER_AVX512_OP float fmadd1(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
};

#undef NINFER_AVX512_OP

}  // namespace ninfer::models::kernels::avx512
