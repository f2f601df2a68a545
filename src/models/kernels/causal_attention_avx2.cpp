// AVX2+FMA instance of the causal attention kernel: 8 floats per register, 16 registers, so score
// blocks of 3 queries x 32 keys (12 accumulators, the keys read from L1 by the FMAs) and value blocks
// of 2 queries x 32 dims.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/float_vec_avx2.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx2,fma,f16c")))
#define NINFER_VEC_OP NINFER_KERNEL_TARGET __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::avx2 {

struct AV : FloatVec {
  static constexpr int kScoreRows = 3;
  static constexpr int kScoreVecs = 4;
  static constexpr int kValueRows = 2;
  static constexpr int kValueVecs = 4;
  NINFER_VEC_OP reg sub(reg a, reg b) { return _mm256_sub_ps(a, b); }
  NINFER_VEC_OP reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
  NINFER_VEC_OP float first(reg a) { return _mm256_cvtss_f32(a); }
  NINFER_VEC_OP float hmax(reg a) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  NINFER_VEC_OP reg round(reg a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  NINFER_VEC_OP reg pow2(reg n) {
    const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
  }
  NINFER_VEC_OP reg keep_ge(reg x, reg bound, reg y) { return _mm256_and_ps(_mm256_cmp_ps(x, bound, _CMP_GE_OQ), y); }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
};

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::avx2
