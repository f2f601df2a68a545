// Q8_0 weights meet activations quantised the same way (blocks of 32 int8 with an fp32 scale), and
// each block's dot product is summed exactly in integers, as llama.cpp does: four times the products
// per instruction of widening every weight to fp32 (the Q8_0 prefill and batched-decode limit).
//
// What every instruction set computes, bit for bit (so Q8_0 results are the same on all of them):
//   activation block: d = amax / 127, q = round_half_even(x * (1 / d)) (q = 0 when amax = 0)
//   block dot:        lane l (0..7) = sum of w[k] * q[k] for k = 4l .. 4l+3, exact in int32
//   accumulator:      one per output, of 8 fp32 lanes: acc_lane = fma(d_w * d_x, float(lane), acc_lane)
//                     over the row's blocks in order (the 8 lanes are already 8 independent chains)
//   result:           hsum8(acc) in the fixed order of the AVX2 halves
// The integer sums cannot saturate: |w| <= 128 and |q| <= 127, so a pair of products fits in int16.
//
// On the tile unit (Isa::Amx, simd_kernels_amx.cpp), which sums whole blocks, and on every instruction
// set for weights packed in lanes (q8_lanes.h, where AVX-512 runs):
//   block dot:        s = sum of the 32 products w[k] * q[k], exact in int32
//   accumulator:      one fp32 per output: acc = fma(d_w * d_x, float(s), acc) over the row's blocks in order
//   result:           acc
// The same activation blocks and the same exact integers; only the fp32 sums are grouped otherwise, so
// Q8_0 results of row-major weights on AVX-512 or AVX2 differ from those in their last bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ninfer::models::kernels {

constexpr int kQ8Lanes = 8;

// The reference spelling, for CPUs without AVX2 and as the oracle of the others.
struct Q8Portable {
  struct acc {
    float l[kQ8Lanes];
  };
  using weights = const int8_t*;

  using scale = float;
  static inline acc zero() { return acc{}; }
  static inline scale broadcast(float f) { return f; }
  static inline weights load_weights(const int8_t* w) { return w; }
  static inline acc fmadd(weights w, const int8_t* x, scale d, acc a) {
    for (int l = 0; l < kQ8Lanes; ++l) {
      int32_t s = 0;
      for (int k = 4 * l; k < 4 * l + 4; ++k) s += int32_t{w[k]} * int32_t{x[k]};
      a.l[l] = std::fma(d, static_cast<float>(s), a.l[l]);
    }
    return a;
  }
  static inline float hsum(acc a) {
    const float* t = a.l;
    const float u0 = t[0] + t[4], u1 = t[1] + t[5], u2 = t[2] + t[6], u3 = t[3] + t[7];
    return (u0 + u2) + (u1 + u3);
  }
  // One block of 32 activations.
  static inline void quantize(const float* x, int8_t* q, float* d) {
    float amax = 0.0f;
    for (int k = 0; k < 32; ++k) amax = std::fmax(amax, std::fabs(x[k]));
    *d = amax / 127.0f;
    const float id = *d != 0.0f ? 1.0f / *d : 0.0f;
    for (int k = 0; k < 32; ++k) {
      const float v = std::nearbyint(x[k] * id);  // the default rounding mode: half to even
      // NaN and out-of-range values saturate as the AVX2 packs do (only non-finite inputs get here).
      q[k] = std::isnan(v) ? int8_t{-128} : v >= 127.0f ? int8_t{127} : v <= -128.0f ? int8_t{-128}
                                                                                       : static_cast<int8_t>(v);
    }
  }
};

#if defined(__x86_64__) || defined(__i386__)
#define NINFER_Q8_AVX2_OP __attribute__((target("avx2,fma"), always_inline)) static inline

// AVX2 (used by the AVX-512 kernels too: a Q8_0 block is 256 bits).
struct Q8Avx2 {
  using acc = __m256;
  struct weights {
    __m256i abs;      // |w| as unsigned bytes, the unsigned operand of vpmaddubsw
    const int8_t* w;  // the signed weights, whose signs go onto the activations: loaded where used,
                      // so the compiler may keep them in a register or read them from L1
  };

  using scale = __m256;  // a block scale in every lane
  NINFER_Q8_AVX2_OP acc zero() { return _mm256_setzero_ps(); }
  NINFER_Q8_AVX2_OP scale broadcast(float f) { return _mm256_set1_ps(f); }
  NINFER_Q8_AVX2_OP weights load_weights(const int8_t* w) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
    return {_mm256_sign_epi8(v, v), w};
  }
  NINFER_Q8_AVX2_OP acc fmadd(const weights& w, const int8_t* x, scale d, acc a) {
    const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i signs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.w));
    const __m256i pairs = _mm256_maddubs_epi16(w.abs, _mm256_sign_epi8(xv, signs));
    const __m256i quads = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
    return _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(quads), a);
  }
  NINFER_Q8_AVX2_OP float hsum(acc t) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
  NINFER_Q8_AVX2_OP void quantize(const float* x, int8_t* q, float* d) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 v[4];
    for (int i = 0; i < 4; ++i) v[i] = _mm256_loadu_ps(x + 8 * i);
    __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, v[0]), _mm256_andnot_ps(sign, v[1])),
                             _mm256_max_ps(_mm256_andnot_ps(sign, v[2]), _mm256_andnot_ps(sign, v[3])));
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    const float amax = _mm_cvtss_f32(h);
    *d = amax / 127.0f;
    const __m256 id = _mm256_set1_ps(*d != 0.0f ? 1.0f / *d : 0.0f);
    __m256i i32[4];
    for (int i = 0; i < 4; ++i) i32[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], id));
    // The packs work within 128-bit halves and leave the 4-byte groups in the order
    // 0 2 4 6 1 3 5 7; the permutation puts them back.
    const __m256i i16 = _mm256_packs_epi16(_mm256_packs_epi32(i32[0], i32[1]), _mm256_packs_epi32(i32[2], i32[3]));
    const __m256i ordered = _mm256_permutevar8x32_epi32(i16, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), ordered);
  }
};

#define NINFER_Q8_VNNI_OP __attribute__((target("avx2,fma,avx512f,avx512vl,avx512vnni"), always_inline)) static inline

// AVX-512 VNNI (the AVX-512 kernels): vpdpbusd sums the four byte products of each lane into int32
// in one instruction, where AVX2 needs vpmaddubsw then vpmaddwd. The sums are the same integers (no
// pair can saturate int16, see above), so the results are Q8Avx2's bit for bit. 256-bit, like a
// block: a 512-bit register would hold two blocks with different scales.
struct Q8Vnni : Q8Avx2 {
  NINFER_Q8_VNNI_OP acc fmadd(const weights& w, const int8_t* x, scale d, acc a) {
    const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i signs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.w));
    const __m256i quads = _mm256_dpbusd_epi32(_mm256_setzero_si256(), w.abs, _mm256_sign_epi8(xv, signs));
    return _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(quads), a);
  }

  // Two weight rows' blocks in one 512-bit register, their 4-byte groups interleaved (lane 2l holds
  // row i's lane l, lane 2l + 1 row i + 1's), against one activation block with each group twice:
  // each row's lanes compute Q8Avx2's lanes and chain, so the results are the same bits, with a
  // quarter of the instructions per block product. Interleaved, each product's scale pair
  // (d_w(i) d_x, d_w(i + 1) d_x) is one 64-bit broadcast of a pair computed for 8 activation rows at
  // once (with the rows side by side, a multiplication per product).
  // vpdpbusd multiplies unsigned by signed bytes; rather than moving the weights' signs onto the
  // activations per product (vpsignb, which has no 512-bit form), the activations are stored offset
  // by 128 (x + 128, unsigned) and each lane starts from -128 times its four weights' sum, computed
  // once per weight pair and block: sum (x + 128) w - 128 sum w = sum x w, exactly.
  struct Pair {
    using acc = __m512;
    struct weights {
      __m512i w;      // the two rows' signed weights, interleaved
      __m512i start;  // -128 * the sum of each lane's four weights
    };
    static constexpr int kOffsetBlockBytes = 64;  // an offset activation block, each group twice

    NINFER_Q8_VNNI_OP __m512i interleave_index() {
      return _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    }
    NINFER_Q8_VNNI_OP acc zero() { return _mm512_setzero_ps(); }
    // The pair's accumulator from the rows' own (Q8Avx2::acc), and back.
    NINFER_Q8_VNNI_OP acc join(Q8Avx2::acc lo, Q8Avx2::acc hi) {
      return _mm512_permutex2var_ps(_mm512_castps256_ps512(lo), interleave_index(), _mm512_castps256_ps512(hi));
    }
    NINFER_Q8_VNNI_OP Q8Avx2::acc low(acc a) {
      const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14);
      return _mm512_castps512_ps256(_mm512_permutexvar_ps(even, a));
    }
    NINFER_Q8_VNNI_OP Q8Avx2::acc high(acc a) {
      const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 1, 3, 5, 7, 9, 11, 13, 15);
      return _mm512_castps512_ps256(_mm512_permutexvar_ps(odd, a));
    }
    // One block of 32 activations, offset, each 4-byte group twice: out[8g + k] = out[8g + 4 + k] =
    // x[4g + k] + 128 (kOffsetBlockBytes).
    NINFER_Q8_VNNI_OP void offset(const int8_t* x, uint8_t* out) {
      const __m256i v =
          _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), _mm256_set1_epi8(-128));
      const __m512i twice = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
      _mm512_storeu_si512(out, _mm512_permutexvar_epi32(twice, _mm512_castsi256_si512(v)));
    }
    // Two Q8_0 blocks (scale, then 32 values), of rows i and i + 1.
    NINFER_Q8_VNNI_OP weights load_weights(const uint8_t* block0, const uint8_t* block1) {
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block0 + 2));
      const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block1 + 2));
      const __m512i w =
          _mm512_permutex2var_epi32(_mm512_castsi256_si512(lo), interleave_index(), _mm512_castsi256_si512(hi));
      const __m512i sum128 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(-128), w);
      return {w, _mm512_sub_epi32(_mm512_setzero_si512(), sum128)};
    }
    // The scale pairs of 8 activation rows against the blocks of rows i and i + 1: out[2j], out[2j + 1]
    // = d_w(i) dx[2j], d_w(i + 1) dx[2j + 1], for dx holding each activation row's scale twice.
    NINFER_Q8_VNNI_OP void products(const uint8_t* block0, const uint8_t* block1, const float* dx, float* out) {
      uint16_t h0, h1;
      std::memcpy(&h0, block0, 2);
      std::memcpy(&h1, block1, 2);
      const __m512 scale = _mm512_cvtph_ps(_mm256_set1_epi32(static_cast<int>(h0 | uint32_t{h1} << 16)));
      _mm512_storeu_ps(out, _mm512_mul_ps(scale, _mm512_loadu_ps(dx)));
    }
    NINFER_Q8_VNNI_OP __m512i load_activations(const uint8_t* xu) {
      return _mm512_loadu_si512(xu);
    }
    // acc + d * lanes, d the scale pair at `d` (products()) in every lane pair.
    NINFER_Q8_VNNI_OP acc fmadd(const weights& w, __m512i xu, const float* d, acc a) {
      // A broadcast from memory, a load only: left to itself, GCC keeps products() in a register and
      // takes each pair out with two shuffles, on the ports that the products need.
      __m512d pair;
      asm("vbroadcastsd %1, %0" : "=v"(pair) : "m"(*reinterpret_cast<const double(*)[1]>(d)));
      const __m512i lanes = _mm512_dpbusd_epi32(w.start, xu, w.w);
      return _mm512_fmadd_ps(_mm512_castpd_ps(pair), _mm512_cvtepi32_ps(lanes), a);
    }
  };
};

#undef NINFER_Q8_VNNI_OP
#undef NINFER_Q8_AVX2_OP
#endif

}  // namespace ninfer::models::kernels
