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
  NINFER_VEC_OP float first(reg a) { return _mm256_cvtss_f32(a); }
  NINFER_VEC_OP float hmax(reg a) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
};

#include "models/kernels/causal_attention_body.inc"

}  // namespace ninfer::models::kernels::avx2
