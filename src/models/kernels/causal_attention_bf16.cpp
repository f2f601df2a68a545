// AVX512-BF16 instance of the causal attention kernel, for prompt positions of models that accept bf16
// products in attention (Qwen3ModelOptions::prompt_attention; by default Q8_0 weights, whose every
// matmul already rounds its activations to 8-bit blocks): both products of a key tile, the scores
// Q K^T and the weighted values P V, take VDPBF16PS, which multiplies pairs of bf16 into fp32 sums,
// 32 products an instruction against an FMA's 16. Long prompts spend most of their growth in these
// products, and the FMA kernel already runs them near the core's fp32 peak (docs/models.md, "bf16
// products for prompt positions").
//
// What is rounded: each query (times scale and log2(e)), key, value and softmax weight to bf16 (8
// significant bits, to nearest), once; the sums, the running max and sum of the softmax, and the
// output stay fp32. A score then moves by at most 2^-8 of scale * sum_c |q_c k_c|, and each output
// by at most twice that plus 2^-8 of the values' size (the weights' and the values' own roundings).
// The f16 cache's keys and values hold 11 bits, so this is a coarser contract than the FMA kernel's
// or AMX's (bf16x3, within a quarter of the cache's rounding), and a model chooses it (simd_kernels.h,
// bf16_prompt_attention).
//
// The layouts VDPBF16PS wants, pairs along the sum's index: a cache block's keys become
// [dim / 2][T][2] (a vector is 16 keys' values at two adjacent head dims), its values [T / 2][dim][2]
// (16 head dims of two adjacent keys), a query's bf16 row is already pairs of head dims, and its
// weights pairs of keys. A step takes two cache blocks: 3 queries' scores over its 128 keys fill 24
// registers, and each query's softmax step runs on them there, writing bf16 weights; then the values,
// 6 queries x 64 head dims at a time. Pairs start at even absolute positions and steps at multiples
// of 2T, every score is one chain over the head-dim pairs in order and every output one chain over
// the key pairs in order, and a weight past a query's keys is exactly 0: a query's output depends on
// its position and its inputs, bit for bit, however its block is cut, as the header promises. Head
// dims that are not a multiple of 32 take the AVX-512 FMA kernel.
//
// Int8 scores (causal_attention_int8_scores): each query (times scale and log2(e)) and each key
// rounded to int8 with one scale (its largest |value| / 127), the key offset by 128 into unsigned
// bytes, so that VPDPBUSD sums 64 products an instruction, exactly, in int32; the score is that sum
// times the two scales. Values and weights stay as above. A score moves by at most (max|q| sum|k| +
// max|k| sum|q|) / 254 plus the square term, several times the bf16 rounding's; the kernel runs
// ~15% faster at 2,048 context (docs/models.md, "Int8 scores for prompt positions").
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (see simd_kernels_avx512.cpp)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "models/kernels/causal_attention.h"
#include "models/kernels/causal_attention_vec_avx512.h"

#define NINFER_KERNEL_TARGET \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512bf16,avx512vnni,avx2,fma,f16c")))

namespace ninfer::models::kernels::avx512_bf16 {

using avx512::AV;
using avx512::first_lanes;

#include "models/kernels/causal_attention_shared.inc"

namespace {

constexpr int64_t T = kAttentionKeyTile;
// Keys per step: two cache blocks, so that each query's per-step work (its softmax's reductions and
// rescale, its outputs' load, rescale and store) is paid once per 128 keys.
constexpr int64_t ST = 2 * T;
constexpr int kKeyVecs = static_cast<int>(ST / 16);  // vectors of 16 keys in a step
constexpr int kBlockVecs = static_cast<int>(T / 16);  // in a cache block
constexpr int PR = 6, PC = 4;                      // queries x vectors of 16 head dims per value block
static_assert(T % 32 == 0);

// Positions of a pair interleave: element 2i of the result is a's i, element 2i + 1 is b's i.
constexpr std::array<uint16_t, 32> kInterleave = [] {
  std::array<uint16_t, 32> x{};
  for (int i = 0; i < 16; ++i) {
    x[static_cast<size_t>(2 * i)] = static_cast<uint16_t>(i);
    x[static_cast<size_t>(2 * i + 1)] = static_cast<uint16_t>(16 + i);
  }
  return x;
}();

// 16 floats a and 16 floats b rounded to bf16 and interleaved as pairs (a0, b0, a1, b1, ...).
NINFER_KERNEL_TARGET inline __m512i bf16_pairs(__m512 a, __m512 b, __m512i interleave) {
  return _mm512_permutexvar_epi16(interleave, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a)));
}

NINFER_KERNEL_TARGET inline __m512i load_interleave() {
  return _mm512_loadu_si512(kInterleave.data());
}

// A bf16 pair at p (two uint16) in every 32-bit lane.
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) __m512bh broadcast_pair(const uint16_t* p) {
  int32_t x;
  std::memcpy(&x, p, sizeof x);
  return reinterpret_cast<__m512bh>(_mm512_set1_epi32(x));
}

NINFER_KERNEL_TARGET inline __attribute__((always_inline)) __m512bh load_pairs(const uint16_t* p) {
  return reinterpret_cast<__m512bh>(_mm512_loadu_si512(p));
}

// The key block's first `vecs` vectors of 16 keys (src: [dim][T] f16) as [dim / 2][T][2] bf16.
NINFER_KERNEL_TARGET void pack_keys(const uint16_t* src, int vecs, int64_t dim, uint16_t* dst) {
  const __m512i il = load_interleave();
  for (int64_t p = 0; p < dim / 2; ++p) {
    for (int u = 0; u < vecs; ++u) {
      const __m512 a = AV::load_f16(src + 2 * p * T + 16 * u), b = AV::load_f16(src + (2 * p + 1) * T + 16 * u);
      _mm512_storeu_si512(dst + (p * T + 16 * u) * 2, bf16_pairs(a, b, il));
    }
  }
}

// Int8 scores: the key block's first `vecs` vectors of 16 keys (src: [dim][T] f16) rounded to int8
// with one scale per key (its largest |value| / 127, to ks), stored offset by 128 as unsigned bytes
// in [dim / 4][T][4] (a vector is 16 keys at four adjacent head dims: the unsigned operand of
// VPDPBUSD). A key's lane holds only its own values, so a lane past the block's keys (whatever the
// cache holds there) spoils only its own, never-used score.
NINFER_KERNEL_TARGET void pack_keys_int8(const uint16_t* src, int vecs, int64_t dim, uint8_t* dst, float* ks) {
  const __m512 zero = _mm512_setzero_ps(), offset = _mm512_set1_ps(128.0f);
  const __m256i magnitude = _mm256_set1_epi16(0x7fff);  // an f16's bits without its sign
  for (int u = 0; u < vecs; ++u) {
    // The largest |value| of each key, on the f16 bits: with the sign cleared, their order as
    // unsigned integers is the values' (NaN above inf), so only the result is widened.
    __m256i top = _mm256_setzero_si256();
    for (int64_t c = 0; c < dim; ++c) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + c * T + 16 * u));
      top = _mm256_max_epu16(top, _mm256_and_si256(h, magnitude));
    }
    const __m512 mx = _mm512_cvtph_ps(top);
    const __mmask16 nonzero = _mm512_cmp_ps_mask(mx, zero, _CMP_GT_OQ);
    _mm512_storeu_ps(ks + 16 * u, _mm512_div_ps(mx, _mm512_set1_ps(127.0f)));
    const __m512 inv = _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(127.0f), mx);
    for (int64_t p = 0; p < dim / 4; ++p) {
      __m512i quad = _mm512_setzero_si512();
#pragma GCC unroll 4
      for (int d = 0; d < 4; ++d) {
        // x * inv + 128 in one rounding, then to the nearest integer: in [1, 255].
        const __m512i b = _mm512_cvtps_epi32(_mm512_fmadd_ps(AV::load_f16(src + (4 * p + d) * T + 16 * u), inv, offset));
        quad = _mm512_or_si512(quad, _mm512_slli_epi32(b, 8 * d));
      }
      _mm512_storeu_si512(dst + (p * T + 16 * u) * 4, quad);
    }
  }
}

// Value rows [0, count) (src: rows vs elements apart, f16) as [count / 2 rounded up][dim][2] bf16; the
// odd row out pairs with zeros, so that no row past count is read.
NINFER_KERNEL_TARGET void pack_values(const uint16_t* src, int64_t vs, int64_t count, int64_t dim, uint16_t* dst) {
  const __m512i il = load_interleave();
  for (int64_t jp = 0; 2 * jp < count; ++jp) {
    const uint16_t* r0 = src + 2 * jp * vs;
    const uint16_t* r1 = 2 * jp + 1 < count ? r0 + vs : nullptr;
    for (int64_t c = 0; c < dim; c += 16) {
      const __m512 b = r1 != nullptr ? AV::load_f16(r1 + c) : _mm512_setzero_ps();
      _mm512_storeu_si512(dst + (jp * dim + c) * 2, bf16_pairs(AV::load_f16(r0 + c), b, il));
    }
  }
}

// 2^x for x <= 0, on the lanes of `keep` (0 on the others): x = n + r with n an integer and |r| <=
// 1/2, 2^r = 1 + r q(r), q of degree 2 fitted for relative error (under 2^-13, a sixteenth of the
// bf16 rounding the weight takes next; exactly 1 at 0), and 2^n applied by VSCALEFPS, which takes
// weights far under the sums' precision to 0.
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) __m512 exp2_weights(__mmask16 keep, __m512 x) {
  const __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_sub_ps(x, n);
  __m512 q = _mm512_set1_ps(0.055008891969919205f);
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0.2422109693288803f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(0.693282961845398f));
  return _mm512_maskz_scalef_ps(keep, _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f)), n);
}

// The next step's lines (its first cache block's K block and V rows, then its second's), spread over
// this step's score and value blocks, as the FMA kernel's widened path spreads one tile's.
struct StepPrefetch {
  TilePrefetch first, second;
  NINFER_KERNEL_TARGET inline __attribute__((always_inline)) void step() {
    if (first.next < first.end) {
      first.step();
    } else {
      second.step();
    }
  }
};

// One query's online-softmax step on its scores in registers (x: the step's first NV vectors of
// keys, log2 units), of which it sees the first `valid`: the running max moves, the weights
// 2^(x - max) go to w as bf16 over the step's `vecs` vectors (exact zeros past `valid`), and the
// running sum takes their fp32 values, rescaled by alpha = 2^(old max - new max). Lanes past
// `valid` are never used. Full: the query sees every key of the vectors (all of a prompt's steps but
// its last few), and the masks are left out (all-ones masks give the same floats).
template <int NV, bool Full>
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) void softmax_in_registers(const __m512* x, int64_t valid,
                                                                                    int vecs, float& mx, float& l,
                                                                                    float& alpha, uint16_t* w) {
  const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
  __mmask16 keep[NV];
  __m512 vmax = ninf;
#pragma GCC unroll 8
  for (int u = 0; u < NV; ++u) {
    keep[u] = Full ? __mmask16(0xffff) : first_lanes(valid - 16 * u);
    vmax = Full ? _mm512_max_ps(vmax, x[u]) : _mm512_mask_max_ps(vmax, keep[u], vmax, x[u]);
  }
  const float tile_max = _mm512_reduce_max_ps(vmax);
  const float m = tile_max > mx ? tile_max : mx;
  const __m512 mv = _mm512_set1_ps(m);
  __m512 sum = _mm512_setzero_ps();
  __m512 e[NV];
#pragma GCC unroll 8
  for (int u = 0; u < NV; ++u) {
    e[u] = exp2_weights(keep[u], _mm512_sub_ps(x[u], mv));
    sum = _mm512_add_ps(sum, e[u]);
  }
#pragma GCC unroll 4
  for (int u = 0; u < NV; u += 2) {
    if constexpr (NV % 2 == 1) {
      if (u + 1 == NV) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(w + 16 * u), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(e[u])));
        break;
      }
    }
    _mm512_storeu_si512(w + 16 * u, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(e[u + 1], e[u])));
  }
  for (int u = NV; u < vecs; ++u) _mm256_storeu_si256(reinterpret_cast<__m256i*>(w + 16 * u), _mm256_setzero_si256());
  // 0 on the first step (mx = -inf); the sums start at +0.
  alpha = mx == -__builtin_inff() ? 0.0f : _mm512_cvtss_f32(exp2_weights(1, _mm512_set1_ps(mx - m)));
  l = l * alpha + _mm512_reduce_add_ps(sum);
  mx = m;
}

// softmax_in_registers, without masks where the query sees every key of the NV vectors.
template <int NV>
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) void softmax_step(const __m512* x, int64_t valid, int vecs,
                                                                            float& mx, float& l, float& alpha,
                                                                            uint16_t* w) {
  if (valid >= 16 * NV) {
    softmax_in_registers<NV, true>(x, valid, vecs, mx, l, alpha, w);
  } else {
    softmax_in_registers<NV, false>(x, valid, vecs, mx, l, alpha, w);
  }
}

// Scores of NR queries (bf16 rows qp, scaled) against the step's first NV vectors of keys (kp: its
// packed blocks, T * dim apart), each one chain over the head-dim pairs in order, then each query's
// softmax step on them while they are in registers (mx, l, alpha, valid and wp: the queries' own).
constexpr int FR = 3;  // queries per fused block: 3 x 8 sums, the 3 queries' pairs and one key vector
template <int NR, int NV>
NINFER_KERNEL_TARGET void score_softmax_block(const uint16_t* const* qp, const uint16_t* kp, int64_t dim,
                                              const int64_t* valid, int vecs, float* mx, float* l, float* alpha,
                                              uint16_t* const* wp, StepPrefetch& prefetch) {
  __m512 acc[NR][NV];
#pragma GCC unroll 4
  for (int i = 0; i < NR; ++i)
#pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) acc[i][u] = _mm512_setzero_ps();
  const int64_t pairs = dim / 2;
  for (int64_t p = 0; p < pairs; ++p) {
    __m512bh q[NR];
#pragma GCC unroll 4
    for (int i = 0; i < NR; ++i) q[i] = broadcast_pair(qp[i] + 2 * p);
#pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) {
      const __m512bh kv = load_pairs(kp + (u / kBlockVecs) * T * dim + (p * T + 16 * (u % kBlockVecs)) * 2);
#pragma GCC unroll 4
      for (int i = 0; i < NR; ++i) acc[i][u] = _mm512_dpbf16_ps(acc[i][u], q[i], kv);
    }
  }
  prefetch.step();
#pragma GCC unroll 4
  for (int i = 0; i < NR; ++i) softmax_step<NV>(acc[i], valid[i], vecs, mx[i], l[i], alpha[i], wp[i]);
}

// VPDPBUSD acc += unsigned bytes a . signed bytes b, four to a lane. In asm: GCC 12 compiles the
// intrinsic in this loop with a register copy per product and spills of the sums (the whole kernel
// 30% slower at 2,048 context).
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) void dot_bytes(__m512i& acc, __m512i a, __m512i b) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
}

// Int8 scores of NR queries (int8 rows qp: 4 head dims a broadcast; qs their scales, q0 their sums'
// starts: see attend) against the step's first NV vectors of keys (kp: pack_keys_int8's blocks, T *
// dim bytes apart; ks: the step's key scales): each an exact integer sum over the head dims, times
// the query's scale, then the key's; then each query's softmax step on them in registers, as
// score_softmax_block.
template <int NR, int NV>
NINFER_KERNEL_TARGET void score_softmax_block_int8(const int8_t* const* qp, const float* qs, const int32_t* q0,
                                                   const uint8_t* kp, const float* ks, int64_t dim,
                                                   const int64_t* valid, int vecs, float* mx, float* l, float* alpha,
                                                   uint16_t* const* wp, StepPrefetch& prefetch) {
  __m512i sums[NR][NV];
#pragma GCC unroll 4
  for (int i = 0; i < NR; ++i)
#pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) sums[i][u] = _mm512_set1_epi32(q0[i]);
  for (int64_t p = 0; p < dim / 4; ++p) {
    __m512i q[NR];
#pragma GCC unroll 4
    for (int i = 0; i < NR; ++i) {
      int32_t x;
      std::memcpy(&x, qp[i] + 4 * p, sizeof x);
      q[i] = _mm512_set1_epi32(x);
    }
#pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) {
      const __m512i kv = _mm512_loadu_si512(kp + (u / kBlockVecs) * T * dim + (p * T + 16 * (u % kBlockVecs)) * 4);
#pragma GCC unroll 4
      for (int i = 0; i < NR; ++i) dot_bytes(sums[i][u], kv, q[i]);
    }
  }
  prefetch.step();
  // The sums are exact and at most 127 * 127 * dim in size, under 2^24 (causal_attention_int8_scores
  // keeps dim within 1,024), so their floats are too.
#pragma GCC unroll 4
  for (int i = 0; i < NR; ++i) {
    const __m512 scale = _mm512_set1_ps(qs[i]);
    __m512 x[NV];
#pragma GCC unroll 8
    for (int u = 0; u < NV; ++u) {
      x[u] = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(sums[i][u]), scale), _mm512_loadu_ps(ks + 16 * u));
    }
    softmax_step<NV>(x, valid[i], vecs, mx[i], l[i], alpha[i], wp[i]);
  }
}

// Runs f.template operator()<R, V>() for a block of R = nr queries (1 to NR) over V = v vectors of a
// step's keys (1 to 8), the shapes the score blocks are compiled for.
template <int NR, class F>
NINFER_KERNEL_TARGET inline __attribute__((always_inline)) void for_block_shape(int nr, int v, F& f) {
  if constexpr (NR > 1) {
    if (nr < NR) {
      for_block_shape<NR - 1>(nr, v, f);
      return;
    }
  }
  switch (v) {
#define NINFER_CASE(n)        \
  case n:                     \
    f.template operator()<NR, n>(); \
    break;
    NINFER_CASE(1)
    NINFER_CASE(2)
    NINFER_CASE(3)
    NINFER_CASE(4)
    NINFER_CASE(5)
    NINFER_CASE(6)
    NINFER_CASE(7)
    default:
      f.template operator()<NR, 8>();
      break;
#undef NINFER_CASE
  }
}
static_assert(kKeyVecs == 8, "for_block_shape dispatches 1 to 8 vectors of a step's keys");

// o = o * alpha + P V for NR queries (bf16 weight rows pp) over `pairs` key pairs, NC vectors of head
// dims from c (vp: packed values, dim per pair): each element scaled once, then one chain over the
// key pairs in order.
template <int NR, int NC>
NINFER_KERNEL_TARGET void value_block(const uint16_t* const* pp, const float* alpha, float* const* op,
                                      const uint16_t* vp, int64_t dim, int64_t pairs, int64_t c) {
  __m512 acc[NR][NC];
#pragma GCC unroll 8
  for (int i = 0; i < NR; ++i) {
    const __m512 al = _mm512_set1_ps(alpha[i]);
#pragma GCC unroll 4
    for (int u = 0; u < NC; ++u) acc[i][u] = _mm512_mul_ps(_mm512_loadu_ps(op[i] + c + 16 * u), al);
  }
  for (int64_t jp = 0; jp < pairs; ++jp) {
    __m512bh vv[NC];
#pragma GCC unroll 4
    for (int u = 0; u < NC; ++u) vv[u] = load_pairs(vp + (jp * dim + c + 16 * u) * 2);
#pragma GCC unroll 8
    for (int i = 0; i < NR; ++i) {
      const __m512bh w = broadcast_pair(pp[i] + 2 * jp);
#pragma GCC unroll 4
      for (int u = 0; u < NC; ++u) acc[i][u] = _mm512_dpbf16_ps(acc[i][u], w, vv[u]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < NR; ++i)
#pragma GCC unroll 4
    for (int u = 0; u < NC; ++u) _mm512_storeu_ps(op[i] + c + 16 * u, acc[i][u]);
}

template <int NR>
NINFER_KERNEL_TARGET void value_rows(const uint16_t* const* pp, const float* alpha, float* const* op, int nr,
                                     const uint16_t* vp, int64_t dim, int64_t pairs, StepPrefetch& prefetch) {
  if constexpr (NR > 1) {
    if (nr < NR) {
      value_rows<NR - 1>(pp, alpha, op, nr, vp, dim, pairs, prefetch);
      return;
    }
  }
  int64_t c = 0;
  for (; c + 16 * PC <= dim; c += 16 * PC) value_block<NR, PC>(pp, alpha, op, vp, dim, pairs, c);
  for (; c < dim; c += 32) value_block<NR, 2>(pp, alpha, op, vp, dim, pairs, c);
  prefetch.step();
}

// Int8Scores: the scores from int8 queries and keys (pack_keys_int8, one scale per query and per key)
// by VPDPBUSD, 64 products an instruction; values and weights stay bf16.
template <bool Int8Scores>
NINFER_KERNEL_TARGET void attend(const CausalAttentionArgs& a) {
  const int64_t heads = a.heads, dim = a.dim, nq = a.rows * heads;
  // Scratch (causal_attention_scratch_floats): fp32 outputs and softmax state, then the step's
  // packed keys and values and the bf16 queries and weights.
  float* o = a.scratch;     // [query][dim]: unnormalised outputs
  float* mx = o + nq * dim;
  float* l = mx + nq;
  float* alpha = l + nq;
  // [block][dim / 2][T][2]: the step's keys, a cache block at a time
  auto* kp = reinterpret_cast<uint16_t*>((reinterpret_cast<uintptr_t>(alpha + nq) + 63) & ~uintptr_t{63});
  uint16_t* vp = kp + ST * dim;  // [ST / 2][dim][2]: its values
  uint16_t* qb = vp + ST * dim;  // [query][dim]
  uint16_t* pb = qb + nq * dim;  // [query][ST]: its weights
  // Int8 scores take half of the keys' and the queries' room: the step's keys as bytes, then their
  // scales; the queries as bytes, then their scales and their sums' starts.
  auto* kp8 = reinterpret_cast<uint8_t*>(kp);
  auto* ks = reinterpret_cast<float*>(kp8 + ST * dim);
  auto* q8 = reinterpret_cast<int8_t*>(qb);
  auto* q8_scale = reinterpret_cast<float*>(q8 + nq * dim);
  auto* q8_start = reinterpret_cast<int32_t*>(q8_scale + nq);
  // The queries times scale and log2(e), so that the scores come in log2 units (the weights are powers
  // of 2), rounded to bf16, or to int8 with one scale (the largest |value| / 127). A key's bytes are
  // offset by 128 (VPDPBUSD's unsigned operand), which adds 128 times the query's byte sum to each of
  // its sums: they start at minus that, and end exact.
  const __m512 qs = _mm512_set1_ps(a.scale * 1.44269504088896341f);
  for (int64_t m = 0; m < nq; ++m) {
    mx[m] = -__builtin_inff();
    l[m] = 0.0f;
    const float* q = a.q + (m / heads) * a.q_stride + (m % heads) * dim;
    if constexpr (Int8Scores) {
      __m512 big = _mm512_setzero_ps();
      for (int64_t c = 0; c < dim; c += 16) big = _mm512_max_ps(big, _mm512_abs_ps(_mm512_mul_ps(_mm512_loadu_ps(q + c), qs)));
      const float largest = _mm512_reduce_max_ps(big);
      const __m512 inv = _mm512_set1_ps(largest > 0.0f ? 127.0f / largest : 0.0f);
      __m512i sum = _mm512_setzero_si512();
      for (int64_t c = 0; c < dim; c += 16) {
        const __m512i x = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(q + c), qs), inv));
        sum = _mm512_add_epi32(sum, x);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q8 + m * dim + c), _mm512_cvtsepi32_epi8(x));
      }
      q8_scale[m] = largest / 127.0f;
      // In int64: a query holding inf or NaN (activations already out of range) takes bytes of -128
      // there, and its start must not overflow.
      q8_start[m] = static_cast<int32_t>(-128 * static_cast<int64_t>(_mm512_reduce_add_epi32(sum)));
    } else {
      for (int64_t c = 0; c < dim; c += 32) {
        const __m512 lo = _mm512_mul_ps(_mm512_loadu_ps(q + c), qs), hi = _mm512_mul_ps(_mm512_loadu_ps(q + c + 16), qs);
        _mm512_storeu_si512(qb + m * dim + c, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
      }
    }
  }
  for (int64_t i = 0; i < nq * dim; ++i) o[i] = 0.0f;

  StepPrefetch prefetch;
  for (TilePrefetch* p : {&prefetch.first, &prefetch.second}) {
    p->stride = a.v_stride * static_cast<int64_t>(sizeof(uint16_t));
    p->v_lines = (dim * static_cast<int64_t>(sizeof(uint16_t)) + 63) / 64;
    p->k_lines = (dim * T * static_cast<int64_t>(sizeof(uint16_t)) + 63) / 64;
  }
  auto block_k = [&](int64_t t) { return reinterpret_cast<const char*>(a.k + t / T * a.k_block_stride); };
  auto block_v = [&](int64_t t) { return reinterpret_cast<const char*>(a.v + t / T * a.v_block_stride); };
  const int64_t last = a.pos0 + a.rows - 1;  // the block reads keys [0, last]
  for (int64_t t0 = 0; t0 <= last; t0 += ST) {
    const int64_t kcount = std::min(ST, last + 1 - t0);
    const int64_t m_first = std::max<int64_t>(0, t0 - a.pos0) * heads;  // queries that see this step
    const int vecs = static_cast<int>((kcount + 15) / 16);
    for (int64_t b = 0; b * T < kcount; ++b) {
      const int64_t count = std::min(T, kcount - b * T);
      const int key_vecs = static_cast<int>((count + 15) / 16);
      if constexpr (Int8Scores) {
        pack_keys_int8(a.k + (t0 / T + b) * a.k_block_stride, key_vecs, dim, kp8 + b * T * dim, ks + b * T);
      } else {
        pack_keys(a.k + (t0 / T + b) * a.k_block_stride, key_vecs, dim, kp + b * T * dim);
      }
      pack_values(a.v + (t0 / T + b) * a.v_block_stride, a.v_stride, count, dim, vp + b * T * dim);
    }

    prefetch.first.stop();
    prefetch.second.stop();
    if (t0 + ST <= last) {
      for (int64_t b = 0; b < 2 && t0 + ST + b * T <= last; ++b) {
        const int64_t t = t0 + ST + b * T, count = std::min(T, last + 1 - t);
        TilePrefetch& p = b == 0 ? prefetch.first : prefetch.second;
        p.start(block_k(t), block_v(t), p.k_lines + count * p.v_lines);
      }
    } else if (a.next_k != nullptr) {
      prefetch.first.start(reinterpret_cast<const char*>(a.next_k), reinterpret_cast<const char*>(a.next_v),
                           prefetch.first.k_lines + std::min(T, a.next_count) * prefetch.first.v_lines);
    }
    const int64_t calls = (nq - m_first + FR - 1) / FR + (nq - m_first + PR - 1) / PR;
    const int64_t per_call = (prefetch.first.end + prefetch.second.end + calls - 1) / calls;
    prefetch.first.per_call = prefetch.second.per_call = per_call;

    // Keys the query m sees in this step; a block of queries computes the vectors its last sees, a
    // cache block at a time.
    auto sees = [&](int64_t m) { return std::min(kcount, a.pos0 + m / heads + 1 - t0); };
    for (int64_t m = m_first; m < nq; m += FR) {
      const int n = static_cast<int>(std::min<int64_t>(FR, nq - m));
      const uint16_t* qp[FR];
      const int8_t* qp8[FR];
      uint16_t* wp[FR];
      int64_t valid[FR];
      for (int i = 0; i < FR; ++i) {
        const int64_t mi = std::min(m + i, nq - 1);
        qp[i] = qb + mi * dim;
        qp8[i] = q8 + mi * dim;
        wp[i] = pb + mi * ST;
        valid[i] = sees(mi);
      }
      auto block = [&]<int R, int V>() {
        if constexpr (Int8Scores) {
          score_softmax_block_int8<R, V>(qp8, q8_scale + m, q8_start + m, kp8, ks, dim, valid, vecs, mx + m, l + m,
                                         alpha + m, wp, prefetch);
        } else {
          score_softmax_block<R, V>(qp, kp, dim, valid, vecs, mx + m, l + m, alpha + m, wp, prefetch);
        }
      };
      for_block_shape<FR>(n, static_cast<int>((sees(m + n - 1) + 15) / 16), block);
    }
    // o = o * alpha + P V, PR queries at a time over the key pairs the last of them sees.
    for (int64_t m = m_first; m < nq; m += PR) {
      const int n = static_cast<int>(std::min<int64_t>(PR, nq - m));
      const uint16_t* pp[PR];
      float* op[PR];
      for (int i = 0; i < PR; ++i) {
        const int64_t mi = std::min(m + i, nq - 1);
        pp[i] = pb + mi * ST;
        op[i] = o + mi * dim;
      }
      value_rows<PR>(pp, alpha + m, op, n, vp, dim, (sees(m + n - 1) + 1) / 2, prefetch);
    }
  }

  for (int64_t m = 0; m < nq; ++m) {
    const __m512 inv = _mm512_set1_ps(1.0f / l[m]);
    const float* om = o + m * dim;
    float* out = a.out + (m / heads) * a.out_stride + (m % heads) * dim;
    for (int64_t c = 0; c < dim; c += 16) _mm512_storeu_ps(out + c, _mm512_mul_ps(_mm512_loadu_ps(om + c), inv));
  }
}

}  // namespace

NINFER_KERNEL_TARGET void causal_attention(const CausalAttentionArgs& a) {
  if (a.dim % 32 != 0) {
    avx512::causal_attention(a);
  } else {
    attend<false>(a);
  }
}

// Head dims past 1,024 would take int8 sums past 2^24 (127 * 127 * dim), which floats no longer hold
// exactly: those keep bf16 scores.
NINFER_KERNEL_TARGET void causal_attention_int8_scores(const CausalAttentionArgs& a) {
  if (a.dim % 32 != 0) {
    avx512::causal_attention(a);
  } else if (a.dim > 1024) {
    attend<false>(a);
  } else {
    attend<true>(a);
  }
}

}  // namespace ninfer::models::kernels::avx512_bf16

#pragma GCC diagnostic pop
