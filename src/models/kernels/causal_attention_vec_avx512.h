// The vector operations of the causal attention kernel on AVX-512 (AV, see causal_attention_body.inc),
// shared by the AVX-512 instance and the AMX one (whose softmax runs on the same vector unit). Include
// after <immintrin.h> (the including files wrap it in GCC 12's diagnostic workaround).
#pragma once

#include <cstdint>

#include "models/kernels/float_vec_avx512.h"

namespace ninfer::models::kernels::avx512 {

#define NINFER_VEC_OP __attribute__((target("avx512f,avx2,fma"), always_inline)) static inline

struct AV : FloatVec {
  static constexpr int kScoreRows = 6;
  static constexpr int kScoreVecs = 2;
  static constexpr int kValueRows = 4;
  static constexpr int kValueVecs = 4;
  NINFER_VEC_OP float first(reg a) { return _mm512_cvtss_f32(a); }
  NINFER_VEC_OP float hmax(reg a) {
    __m256 h = _mm256_max_ps(low(a), high(a));
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
};

#undef NINFER_VEC_OP

// Lanes [0, n) of a 16-lane vector (none for n <= 0, all for n >= 16): a mask of the keys a query
// sees, for the kernels whose scores stay in registers (AMX's and the bf16 one).
inline __mmask16 first_lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : static_cast<__mmask16>((1u << n) - 1);
}

}  // namespace ninfer::models::kernels::avx512
