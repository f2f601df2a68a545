// AVX-512F instance of the causal attention kernel: 16 floats per register, 32 registers, so score
// blocks of 2 queries x 8 keys and value blocks of 4 queries x 64 dims.
#include <algorithm>
#include <cstdint>
#include <cstring>

// GCC 12's AVX-512 intrinsics start from `__m512 __Y = __Y;` (_mm512_undefined_*), which it then
// reports as uninitialized inside target-attribute functions (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // a GCC-only warning
#endif
#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/float_vec_avx512.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx512f,avx2,fma")))
#define NINFER_VEC_OP NINFER_KERNEL_TARGET __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::avx512 {

struct AV : FloatVec {
  static constexpr int kScoreRows = 2;
  static constexpr int kValueRows = 4;
  static constexpr int kValueVecs = 4;
  NINFER_VEC_OP reg sub(reg a, reg b) { return _mm512_sub_ps(a, b); }
  NINFER_VEC_OP reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
  NINFER_VEC_OP float first(reg a) { return _mm512_cvtss_f32(a); }
  NINFER_VEC_OP float hmax(reg a) {
    __m256 h = _mm256_max_ps(low(a), high(a));
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  // Eight 256-bit sums -> one vector of eight, lane i = the fixed tree over h[i] (as in AVX2).
  NINFER_VEC_OP __m256 reduce8(const __m256* h) {
    const __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(h[0], h[1]), _mm256_hadd_ps(h[2], h[3]));
    const __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(h[4], h[5]), _mm256_hadd_ps(h[6], h[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
  }
  // Lane i = the AVX2 tree over (low half + high half) of a[i], for every i.
  NINFER_VEC_OP reg reduce(const reg* a) {
    __m256 h[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) h[i] = _mm256_add_ps(low(a[i]), high(a[i]));
    const __m256 r0 = reduce8(h), r1 = reduce8(h + 8);
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(r0)), _mm256_castps_pd(r1), 1));
  }
  NINFER_VEC_OP reg round(reg a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  NINFER_VEC_OP reg pow2(reg n) {
    const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
  }
  NINFER_VEC_OP reg keep_ge(reg x, reg bound, reg y) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, bound, _CMP_GE_OQ), y);
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
};

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
