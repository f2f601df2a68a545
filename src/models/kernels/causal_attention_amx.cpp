// AMX instance of the causal attention kernel: the two products of a key tile (scores Q K^T, and the
// weighted values P V) on the tile unit, with the online softmax between them on the vector unit, 16
// queries at a time: the queries come scaled (by log2(e) too, so the weights are powers of 2), so the
// scores need no pass of their own, the 16 rescales of a query tile take one exp, and the weights go
// from the registers straight into their bf16 parts.
//
// The tile products run two query tiles at a time against two column groups (four sums), and a key
// tile's scores go pair of query tiles by pair: the tiles' operands come from L1 and L2, and their
// loads, more than the products, set the pace (2,048-token context, one thread: 60.0 -> 57.8 us per
// token and layer for the 16-query softmax, then 73.7 -> 68.9 for the pairs, the 2^x and the order
// together, and 59-60 with 128-position blocks; docs/models.md).
//
// TDPBF16PS multiplies bf16 pairs into fp32 sums. The keys and values (f16 in the cache) are split
// exactly into two bf16 parts (an f16's 11 significant bits: hi has 8, lo the other 3); the queries
// and the softmax weights into two parts too (hi = x truncated to bf16, lo = the rest rounded to
// bf16), and each product takes three part products, hi x hi' + hi x lo' + lo x hi' (the "bf16x3"
// scheme): what it leaves out, lo x lo' and the rounding of lo, is under 2^-13 of each product, a
// quarter of the f16 rounding (2^-11) that the cache applies to every key and value (and that
// llama.cpp's attention applies to the queries as well). Three parts, exact to fp32 rounding, took
// five part products and 1.3x the time (docs/models.md, "Attention kernel").
//
// Every element of a tile product depends on its own row and column only, and each is reduced in one
// fixed order (head dims, or keys, 32 at a time; the part pairs in turn), so a query's output depends
// on its position and its inputs, bit for bit, whichever block computes it and however many queries
// share the tiles. A weight past a query's position is exactly 0 and adds an exact zero, so the keys
// a block spans beyond a query's own do not change its sums either. Head dims that are not a multiple
// of 32 take the AVX-512 kernel.
//
// This is KernelTable::prompt_attention: prompt positions only. Splitting a tile's keys and values
// pays when a block's 256 queries share it; a decode row's 2 queries per KV head would pay it for
// themselves (2.5x the FMA kernel's time per tile), so generated positions keep the AVX-512 kernel.
#include <algorithm>
#include <cstdint>
#include <cstring>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (see simd_kernels_avx512.cpp)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "models/kernels/amx_tile_config.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/causal_attention_vec_avx512.h"

#define NINFER_KERNEL_TARGET \
  __attribute__((target("amx-tile,amx-bf16,avx512f,avx512vl,avx512bw,avx512bf16,avx2,fma,f16c")))
#define NINFER_TILE_OP NINFER_KERNEL_TARGET __attribute__((always_inline)) inline

namespace ninfer::models::kernels::amx {

using avx512::AV;
using avx512::first_lanes;

#include "models/kernels/causal_attention_shared.inc"

namespace {

constexpr int64_t T = kAttentionKeyTile;
constexpr int kRows = 16;      // queries per tile
constexpr int kPair = 32;      // bf16 values per tile row: head dims of a score tile, keys of a value tile
constexpr int kCols = 16;      // keys per score tile, head dims per value tile
constexpr int kQueryParts = 2;  // of the queries and of the weights
constexpr int kCacheParts = 2;  // of the keys and values
static_assert(T % kPair == 0);

// tmm0-tmm3: fp32 sums, queries x 16 (keys, or head dims): tmm0 and tmm1 the first query tile's two
//            column groups, tmm2 and tmm3 the second query tile's
// tmm6:      a query part (or weight part), queries x 32 bf16
// tmm4, tmm5, tmm7: key parts (or value parts), 16 rows of 16 bf16 pairs
TileConfig attention_tile_config(int rows) {
  TileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.rows[t] = static_cast<uint8_t>(t == 4 || t == 5 || t == 7 ? kRows : rows);
    c.colsb[t] = 64;
  }
  return c;
}

// 32 floats (a: the first 16) as two rows of 32 bf16 parts, `stride` elements apart: hi, x truncated
// to bf16 (so x - hi is exact in fp32), and lo, x - hi rounded to bf16.
NINFER_TILE_OP void store_parts2(__m512 a, __m512 b, uint16_t* out, int64_t stride) {
  const __m512i top = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  const __m512 ha = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), top));
  const __m512 hb = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(b), top));
  _mm512_storeu_si512(out, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hb, ha)));  // exact: bf16 values
  _mm512_storeu_si512(out + stride,
                      reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(_mm512_sub_ps(b, hb), _mm512_sub_ps(a, ha))));
}

// Two rows of 16 f16-exact floats (e and o: adjacent head dims, or adjacent keys) as the tile unit's
// pairs: dword n holds (e[n], o[n]), as hi parts at hi and lo parts at lo. An f16 has 11 significant
// bits, so x - hi has at most 3 and is a bf16 value with zero low 16 bits.
NINFER_TILE_OP void store_pairs2(__m512 e, __m512 o, uint16_t* hi, uint16_t* lo) {
  const __m512i top = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  const __m512i he = _mm512_and_si512(_mm512_castps_si512(e), top);
  const __m512i ho = _mm512_and_si512(_mm512_castps_si512(o), top);
  const __m512i le = _mm512_castps_si512(_mm512_sub_ps(e, _mm512_castsi512_ps(he)));
  const __m512i lo_o = _mm512_castps_si512(_mm512_sub_ps(o, _mm512_castsi512_ps(ho)));
  _mm512_storeu_si512(hi, _mm512_or_si512(_mm512_srli_epi32(he, 16), ho));
  _mm512_storeu_si512(lo, _mm512_or_si512(_mm512_srli_epi32(le, 16), lo_o));
}

NINFER_TILE_OP __m512 load_f16(const uint16_t* p) { return AV::load_f16(p); }

// 2^x for x <= 0 (the scores come in units of log2, see the queries' scale): x = n + r with n an
// integer and |r| <= 1/2, 2^r = 1 + r q(r), q of degree 4 interpolated at Chebyshev nodes (relative
// error under 2^-22, below the 2^-17 that the weights' two bf16 parts keep; exactly 1 at 0), and
// 2^n applied by VSCALEFPS. Nine operations against the natural exp's sixteen. Below -125 it gives
// ~2^-125, not 0: a weight far under the sums' precision (the masked keys are zeroed apart).
NINFER_TILE_OP __m512 exp2_nonpositive(__m512 x) {
  const __m512 xc = _mm512_max_ps(x, _mm512_set1_ps(-125.0f));
  const __m512 n = _mm512_roundscale_ps(xc, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_sub_ps(xc, n);
  __m512 q = _mm512_set1_ps(1.3381302124e-03f);
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(9.6663683653e-03f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(5.5503811687e-02f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(2.4022349715e-01f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(6.9314718246e-01f));
  return _mm512_scalef_ps(_mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f)), n);
}


// One 32-deep step of C += A B in bf16x3 for Q query tiles (1 or 2) and G column groups (1 or 2):
// a is the first query tile's hi part (rows a_stride bytes apart, its lo part a_part elements on, the
// second tile a_tile on), b the first group's hi part (its lo part b_part on, the second group b_group
// on). Every sum takes hi x hi', hi x lo', lo x hi' in that order. Two query tiles against two groups
// take 9 tile loads for 12 products, where one tile against two takes 6 for 6: the tiles' operands
// come from L2 (a key tile's parts and a block's query parts outgrow L1), and their loads, not the
// products, set the pace.
template <int Q, int G>
NINFER_TILE_OP void product_step(const uint16_t* a, int64_t a_stride, int64_t a_part, int64_t a_tile,
                                 const uint16_t* b, int64_t b_part, int64_t b_group) {
  _tile_loadd(4, b, 64);
  if constexpr (G == 2) _tile_loadd(5, b + b_group, 64);
  _tile_loadd(6, a, a_stride);
  _tile_loadd(7, b + b_part, 64);
  _tile_dpbf16ps(0, 6, 4);
  if constexpr (G == 2) _tile_dpbf16ps(1, 6, 5);
  _tile_dpbf16ps(0, 6, 7);
  if constexpr (G == 2) {
    _tile_loadd(7, b + b_group + b_part, 64);
    _tile_dpbf16ps(1, 6, 7);
  }
  if constexpr (Q == 2) {
    _tile_loadd(6, a + a_tile, a_stride);
    _tile_dpbf16ps(2, 6, 4);
    if constexpr (G == 2) {
      _tile_dpbf16ps(3, 6, 5);
      _tile_dpbf16ps(3, 6, 7);
      _tile_loadd(7, b + b_part, 64);  // the first group's lo part again
    }
    _tile_dpbf16ps(2, 6, 7);
  }
  _tile_loadd(6, a + a_part, a_stride);
  _tile_dpbf16ps(0, 6, 4);
  if constexpr (G == 2) _tile_dpbf16ps(1, 6, 5);
  if constexpr (Q == 2) {
    _tile_loadd(6, a + a_tile + a_part, a_stride);
    _tile_dpbf16ps(2, 6, 4);
    if constexpr (G == 2) _tile_dpbf16ps(3, 6, 5);
  }
}

// Zeroes the sums of Q query tiles and G column groups.
template <int Q, int G>
NINFER_TILE_OP void zero_sums() {
  _tile_zero(0);
  if constexpr (G == 2) _tile_zero(1);
  if constexpr (Q == 2) {
    _tile_zero(2);
    if constexpr (G == 2) _tile_zero(3);
  }
}

// Stores the sums of Q query tiles and G column groups of 16 at out (rows `stride` bytes apart, the
// second group 16 floats on, the second query tile `tile` floats on).
template <int Q, int G>
NINFER_TILE_OP void store_sums(float* out, int64_t stride, int64_t tile) {
  _tile_stored(0, out, stride);
  if constexpr (G == 2) _tile_stored(1, out + kCols, stride);
  if constexpr (Q == 2) {
    _tile_stored(2, out + tile, stride);
    if constexpr (G == 2) _tile_stored(3, out + tile + kCols, stride);
  }
}

// Scores (scaled) of the queries from m (Q query tiles) against 16 keys (G = 2: 32) of the tile: qp is
// the queries' first part at row m (parts qs apart, rows dim apart), kp the keys' first part of this
// key group (parts ks apart, the second group kg apart), written at s (rows T apart).
template <int Q, int G>
NINFER_KERNEL_TARGET void score_tiles(const uint16_t* qp, int64_t qs, const uint16_t* kp, int64_t ks, int64_t kg,
                                      int64_t dim, float* s, TilePrefetch& prefetch) {
  zero_sums<Q, G>();
  for (int64_t c = 0; c < dim; c += kPair) {
    // Keys: rows of 16 pairs, 16 per 32 head dims.
    product_step<Q, G>(qp + c, dim * 2, qs, kRows * dim, kp + c * kCols, ks, kg);
    for (int i = 0; i < kQueryParts * Q; ++i) prefetch.step();
  }
  store_sums<Q, G>(s, T * 4, kRows * T);
}

// P V of the queries from m (Q query tiles) over `chunks` chunks of 32 keys, for head dims [n, n +
// 32): pp is the weights' first part at row m (parts ps apart, rows T apart), vp the values' parts of
// dims n (see causal_attention), written at out (16 x 32 floats per query tile, the second after the
// first).
template <int Q>
NINFER_KERNEL_TARGET void value_tiles(const uint16_t* pp, int64_t ps, const uint16_t* vp, int64_t vs_part,
                                      int64_t vs_chunk, int64_t chunks, float* out, TilePrefetch& prefetch) {
  zero_sums<Q, 2>();
  for (int64_t kc = 0; kc < chunks; ++kc) {
    product_step<Q, 2>(pp + kc * kPair, T * 2, ps, kRows * T, vp + kc * vs_chunk, vs_part, kRows * kPair);
    for (int i = 0; i < kQueryParts * Q; ++i) prefetch.step();
  }
  store_sums<Q, 2>(out, 2 * kCols * 4, kRows * 2 * kCols);
}

// Where one call's buffers lie in its scratch (causal_attention_scratch_floats counts them). Query
// rows are padded by 16: a tile of 16 rows may start at any query.
struct Scratch {
  float* o;       // [query][dim]: unnormalised outputs
  float* s;       // [query + 16][T]: this tile's scores, then weights
  float* mx;      // per query: running max of its scores
  float* l;       // running sum of exp(score - max)
  float* alpha;   // this tile's rescale of o and l
  uint16_t* kp;   // [part][T / 16 key groups][dim / 2][16 keys x 2 dims]: the tile's keys
  uint16_t* vp;   // [part][T / 32 key chunks][dim / 16][16 key pairs][16 dims x 2 keys]: its values
  uint16_t* qp;   // [part][query + 16][dim]: the queries
  uint16_t* pp;   // [part][query + 16][T]: their weights
  float* sums;    // 32 x 32: the value products of two query tiles
  Scratch(float* base, int64_t nq, int64_t dim) {
    auto aligned = [](float* p) {
      return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
    };
    const int64_t nqp = nq + kRows;
    o = base;
    s = aligned(o + nq * dim);
    mx = s + nqp * T;
    l = mx + nq;
    alpha = l + nq;
    kp = reinterpret_cast<uint16_t*>(aligned(alpha + nq));
    vp = kp + kCacheParts * T * dim;
    qp = vp + kCacheParts * T * dim;
    pp = qp + kQueryParts * nqp * dim;
    sums = aligned(reinterpret_cast<float*>(pp + kQueryParts * nqp * T));
  }
};

}  // namespace

NINFER_KERNEL_TARGET void causal_attention(const CausalAttentionArgs& a) {
  const int64_t heads = a.heads, dim = a.dim, nq = a.rows * heads, nqp = nq + kRows;
  if (dim % kPair != 0) {
    avx512::causal_attention(a);
    return;
  }
  Scratch sc(a.scratch, nq, dim);
  const int64_t ks = T * dim, kg = dim / 2 * kPair;  // key parts, key groups
  const int64_t vs_part = T * dim, vs_chunk = dim / kCols * kRows * kPair;
  for (int64_t m = 0; m < nq; ++m) {
    sc.mx[m] = -__builtin_inff();
    sc.l[m] = 0.0f;
  }
  std::memset(sc.o, 0, static_cast<size_t>(nq * dim) * sizeof(float));
  // The queries' parts, scaled first (so the tile unit's scores come out scaled); rows past the last
  // are zero, and so are their weights.
  const __m512 scale = _mm512_set1_ps(a.scale * 1.44269504088896341f);  // log2(e): scores in log2 units
  for (int64_t m = 0; m < nq; ++m) {
    const float* q = a.q + (m / heads) * a.q_stride + (m % heads) * dim;
    for (int64_t c = 0; c < dim; c += kPair) {
      store_parts2(_mm512_mul_ps(_mm512_loadu_ps(q + c), scale), _mm512_mul_ps(_mm512_loadu_ps(q + c + 16), scale),
                   sc.qp + m * dim + c, nqp * dim);
    }
  }
  for (int part = 0; part < kQueryParts; ++part) {
    std::memset(sc.qp + (part * nqp + nq) * dim, 0, static_cast<size_t>(kRows * dim) * sizeof(uint16_t));
    std::memset(sc.pp + (part * nqp + nq) * T, 0, static_cast<size_t>(kRows * T) * sizeof(uint16_t));
  }

  TilePrefetch prefetch;
  prefetch.stride = a.v_stride * static_cast<int64_t>(sizeof(uint16_t));
  prefetch.v_lines = dim * static_cast<int64_t>(sizeof(uint16_t)) / 64;
  prefetch.k_lines = dim * T * static_cast<int64_t>(sizeof(uint16_t)) / 64;
  const TileConfig config = attention_tile_config(static_cast<int>(std::min<int64_t>(kRows, nq)));
  _tile_loadconfig(&config);
  const int64_t last = a.pos0 + a.rows - 1;  // the block reads keys [0, last]
  for (int64_t t0 = 0; t0 <= last; t0 += T) {
    const int64_t kcount = std::min(T, last + 1 - t0);
    const int64_t r_first = std::max<int64_t>(0, t0 - a.pos0);  // rows that see this tile at all
    const uint16_t* kc = a.k + t0 / T * a.k_block_stride;
    const uint16_t* vc = a.v + t0 / T * a.v_block_stride;
    // The next tile's keys and values are asked for into L2 over this tile's work, one step per key
    // or value row pair converted and per tile product (a decode row's products would otherwise leave
    // memory idle while they run).
    const int64_t groups = (kcount + kCols - 1) / kCols, chunks_kv = (kcount + kPair - 1) / kPair;
    prefetch.stop();
    if (t0 + T <= last) {
      prefetch.start(reinterpret_cast<const char*>(kc + a.k_block_stride),
                     reinterpret_cast<const char*>(vc + a.v_block_stride),
                     prefetch.k_lines + std::min(T, last + 1 - (t0 + T)) * prefetch.v_lines);
      const int64_t query_tiles = (nq - r_first * heads + kRows - 1) / kRows;
      const int64_t products = (groups + 1) / 2 * dim / kPair + dim / (2 * kCols) * chunks_kv;
      const int64_t steps = dim / 2 + chunks_kv * kRows + kQueryParts * query_tiles * products;
      prefetch.per_call = (prefetch.end + steps - 1) / steps;
    }

    // The tile's keys and values as parts, once for every query of the block. Keys past kcount give
    // scores that the softmax masks; values past it are zero (weights of 0 times a NaN would not be).
    for (int64_t r = 0; r < dim / 2; ++r) {
      const uint16_t* ke = kc + 2 * r * T;  // head dims 2r and 2r + 1: T keys each
      for (int64_t g = 0; g < groups; ++g) {
        uint16_t* out = sc.kp + g * kg + r * kPair;
        store_pairs2(load_f16(ke + g * kCols), load_f16(ke + T + g * kCols), out, out + ks);
      }
      prefetch.step();
    }
    for (int64_t chunk = 0; chunk < chunks_kv; ++chunk) {
      for (int64_t r = 0; r < kRows; ++r) {
        const int64_t j = chunk * kPair + 2 * r;
        const uint16_t* ve = vc + j * a.v_stride;
        for (int64_t n = 0; n < dim; n += kCols) {
          const __m512 e = j < kcount ? load_f16(ve + n) : _mm512_setzero_ps();
          const __m512 o = j + 1 < kcount ? load_f16(ve + a.v_stride + n) : _mm512_setzero_ps();
          uint16_t* out = sc.vp + chunk * vs_chunk + n / kCols * kRows * kPair + r * kPair;
          store_pairs2(e, o, out, out + vs_part);
        }
        prefetch.step();
      }
    }

    // Scores of the query tiles from m (two, or the last one alone; the second tile's rows past the
    // last are zero padding) against the key groups from j0 (two, or the tile's last one alone).
    auto scores = [&](int64_t m, int64_t j0) {
      const uint16_t *q = sc.qp + m * dim, *k = sc.kp + j0 / kCols * kg;
      float* out = sc.s + m * T + j0;
      const bool pair = m + kRows < nq, two = j0 + kCols < kcount;
      if (pair && two) score_tiles<2, 2>(q, nqp * dim, k, ks, kg, dim, out, prefetch);
      if (pair && !two) score_tiles<2, 1>(q, nqp * dim, k, ks, kg, dim, out, prefetch);
      if (!pair && two) score_tiles<1, 2>(q, nqp * dim, k, ks, kg, dim, out, prefetch);
      if (!pair && !two) score_tiles<1, 1>(q, nqp * dim, k, ks, kg, dim, out, prefetch);
    };
    if (kcount == T && t0 + T - 1 <= a.pos0) {
      // Every query sees every key of the tile: each pair of query tiles against the tile's two key
      // halves in turn, so the pair's query parts stay in L1 between them.
      for (int64_t m = 0; m < nq; m += 2 * kRows) {
        for (int64_t j0 = 0; j0 < T; j0 += 2 * kCols) scores(m, j0);
      }
    } else {
      // A tile on the block's diagonal: each pair of key groups against the queries whose rows see
      // at least its first key.
      for (int64_t j0 = 0; j0 < kcount; j0 += 2 * kCols) {
        for (int64_t m = std::max(r_first, t0 + j0 - a.pos0) * heads; m < nq; m += 2 * kRows) scores(m, j0);
      }
    }

    // Online softmax, 16 queries at a time: their tile maxima, one exp for their 16 rescales, then
    // their weights, straight from the registers into parts.
    for (int64_t mb = r_first * heads; mb < nq; mb += kRows) {
      const int64_t me = std::min(mb + kRows, nq);
      alignas(64) float moved[kRows] = {};  // old max - new max, per query
      for (int64_t m = mb; m < me; ++m) {
        const float* sm = sc.s + m * T;
        const int64_t valid = std::min(T, a.pos0 + m / heads + 1 - t0);
        __m512 vmax = _mm512_set1_ps(-__builtin_inff());
        for (int64_t j = 0; j < valid; j += kCols) {
          vmax = _mm512_mask_max_ps(vmax, first_lanes(valid - j), vmax, _mm512_loadu_ps(sm + j));
        }
        const float tile_max = _mm512_reduce_max_ps(vmax);
        const float mx = tile_max > sc.mx[m] ? tile_max : sc.mx[m];
        moved[m - mb] = sc.mx[m] - mx;  // -inf on the first tile: a rescale of 0
        sc.mx[m] = mx;
      }
      alignas(64) float alpha[kRows];
      _mm512_store_ps(alpha, exp2_nonpositive(_mm512_load_ps(moved)));
      for (int64_t m = mb; m < me; ++m) {
        const float* sm = sc.s + m * T;
        const int64_t valid = std::min(T, a.pos0 + m / heads + 1 - t0);
        const __m512 mx = _mm512_set1_ps(sc.mx[m]);
        __m512 p[T / kCols];
        __m512 sum = _mm512_setzero_ps();
        for (int64_t j = 0; j < T; j += kCols) {
          // Keys past the query's own weigh exactly 0 (past kcount the scores are whatever the
          // tiles made of the block's unused positions, or an earlier tile left).
          p[j / kCols] = _mm512_maskz_mov_ps(first_lanes(valid - j),
                                             exp2_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(sm + j), mx)));
          sum = _mm512_add_ps(sum, p[j / kCols]);
        }
        sc.alpha[m] = alpha[m - mb];
        sc.l[m] = sc.l[m] * alpha[m - mb] + _mm512_reduce_add_ps(sum);
        for (int64_t j = 0; j < T; j += kPair) store_parts2(p[j / kCols], p[j / kCols + 1], sc.pp + m * T + j, nqp * T);
      }
    }

    // o = o * alpha + P V, two query tiles at a time over the key chunks the last of their queries sees.
    for (int64_t m = r_first * heads; m < nq; m += 2 * kRows) {
      const bool pair = m + kRows < nq;
      const int64_t n_rows = std::min<int64_t>(2 * kRows, nq - m);
      // Both query tiles take the key chunks the last query sees: the other queries' weights there are 0.
      const int64_t jcount = std::min(T, a.pos0 + (m + n_rows - 1) / heads + 1 - t0);
      const int64_t chunks = (jcount + kPair - 1) / kPair;
      for (int64_t n = 0; n < dim; n += 2 * kCols) {
        const uint16_t* vn = sc.vp + n / kCols * kRows * kPair;
        if (pair) {
          value_tiles<2>(sc.pp + m * T, nqp * T, vn, vs_part, vs_chunk, chunks, sc.sums, prefetch);
        } else {
          value_tiles<1>(sc.pp + m * T, nqp * T, vn, vs_part, vs_chunk, chunks, sc.sums, prefetch);
        }
        for (int64_t i = 0; i < n_rows; ++i) {
          float* om = sc.o + (m + i) * dim + n;
          const __m512 al = _mm512_set1_ps(sc.alpha[m + i]);
          for (int u = 0; u < 2; ++u) {
            const __m512 t = _mm512_loadu_ps(sc.sums + i * 2 * kCols + u * kCols);
            _mm512_storeu_ps(om + u * kCols, _mm512_fmadd_ps(_mm512_loadu_ps(om + u * kCols), al, t));
          }
        }
      }
    }
  }
  _tile_release();

  for (int64_t m = 0; m < nq; ++m) {
    const __m512 inv = _mm512_set1_ps(1.0f / sc.l[m]);
    const float* om = sc.o + m * dim;
    float* out = a.out + (m / heads) * a.out_stride + (m % heads) * dim;
    for (int64_t c = 0; c < dim; c += kCols) _mm512_storeu_ps(out + c, _mm512_mul_ps(_mm512_loadu_ps(om + c), inv));
  }
}

}  // namespace ninfer::models::kernels::amx

#pragma GCC diagnostic pop
