// AVX-512F instances of the kernels: 16 floats per register, 32 registers, so tiles of one weight row
// against up to 8 batch rows (batches of 1-2), and of 3 weight rows x 8 batch rows (24 accumulators,
// 3 widened weights, 1 activation) for larger batches.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

// GCC 12's AVX-512 intrinsics start from `__m512 __Y = __Y;` (_mm512_undefined_*), which it then
// reports as uninitialized inside target-attribute functions (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // a GCC-only warning
#endif
#include <immintrin.h>

#include "models/dtype_convert.h"
#include "models/kernels/q8_block_dot.h"
#include "models/kernels/simd_kernels.h"

#define NINFER_KERNEL_TARGET __attribute__((target("avx512f,avx2,fma,f16c")))
#define NINFER_VEC_OP NINFER_KERNEL_TARGET __attribute__((always_inline)) static inline

namespace ninfer::models::kernels::avx512 {

struct V {
  using reg = __m512;
  static constexpr int kWidth = 16;
  static constexpr int kBatchTile = 8;
  static constexpr int kPanelMinBatch = 3;
  static constexpr int kTileRows = 3;
  static constexpr int kTileBatch = 8;
  using Q8 = Q8Avx2;  // Q8_0 weights: int8 dot products (q8_block_dot.h)
  static constexpr int kQ8TileRows = 4;
  static constexpr int kQ8TileBatch = 4;
  NINFER_VEC_OP reg zero() { return _mm512_setzero_ps(); }
  NINFER_VEC_OP reg set1(float f) { return _mm512_set1_ps(f); }
  NINFER_VEC_OP reg load(const float* p) { return _mm512_loadu_ps(p); }
  NINFER_VEC_OP void store(float* p, reg a) { _mm512_storeu_ps(p, a); }
  NINFER_VEC_OP reg add(reg a, reg b) { return _mm512_add_ps(a, b); }
  NINFER_VEC_OP reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
  NINFER_VEC_OP reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  NINFER_VEC_OP float hsum(reg a) {
    // Fixed pairwise order, same as the other widths' halves.
    const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(a),
                                   _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  NINFER_VEC_OP reg load_bf16(const uint16_t* p) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  NINFER_VEC_OP reg load_f16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  NINFER_VEC_OP reg load_i8(const int8_t* p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  NINFER_VEC_OP void in_register(reg& a) { asm("" : "+v"(a)); }
  NINFER_VEC_OP float fmadd1(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
  NINFER_VEC_OP float half(uint16_t h) { return _cvtsh_ss(h); }
};

#include "models/kernels/simd_kernels_body.inc"

const KernelTable kTable{Isa::Avx512, &matmul_rows, &dot, &quantize_q8, &causal_attention};

}  // namespace ninfer::models::kernels::avx512

#pragma GCC diagnostic pop
