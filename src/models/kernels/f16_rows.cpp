#include "models/kernels/f16_rows.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (see simd_kernels_avx512.cpp)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstring>

#include "models/dtype_convert.h"

namespace ninfer::models::kernels {

namespace {

// W converted halves to their places; NaN lanes (bit w of `nans`) take f32_to_f16's canonical NaN,
// where the hardware keeps the payload.
template <int W>
inline void place(const float* x, const uint16_t* halves, unsigned nans, uint16_t* out, int64_t stride) {
  for (int w = 0; w < W; ++w) out[w * stride] = (nans >> w & 1u) ? f32_to_f16(x[w]) : halves[w];
}

}  // namespace

void f16_row_portable(const float* x, int64_t n, uint16_t* out, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) out[i * stride] = f32_to_f16(x[i]);
}

namespace avx2 {
__attribute__((target("avx2,fma,f16c"))) void f16_row(const float* x, int64_t n, uint16_t* out, int64_t stride) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const auto nans = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
    if (stride == 1 && nans == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
    } else {
      alignas(16) uint16_t halves[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(halves), h);
      place<8>(x + i, halves, nans, out + i * stride, stride);
    }
  }
  for (; i < n; ++i) out[i * stride] = f32_to_f16(x[i]);
}
}  // namespace avx2

namespace avx512 {
__attribute__((target("avx512f,avx2,fma,f16c"))) void f16_row(const float* x, int64_t n, uint16_t* out, int64_t stride) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    const __m256i h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const auto nans = static_cast<unsigned>(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
    if (stride == 1 && nans == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), h);
    } else {
      alignas(32) uint16_t halves[16];
      _mm256_store_si256(reinterpret_cast<__m256i*>(halves), h);
      place<16>(x + i, halves, nans, out + i * stride, stride);
    }
  }
  for (; i < n; ++i) out[i * stride] = f32_to_f16(x[i]);
}
}  // namespace avx512

}  // namespace ninfer::models::kernels

#pragma GCC diagnostic pop
