// The tiled causal attention kernel (causal_attention.h) on its own: against an FP64 softmax over odd
// shapes at every instruction set this CPU has, with its prompt kernel where it has one (over the f16
// keys and values the cache holds), and bit for bit
// against itself however the queries of a sequence are grouped into calls.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "models/dtype_convert.h"
#include "models/kernels/causal_attention.h"
#include "models/kernels/simd_kernels.h"

namespace ninfer::models::testing {
namespace {

using kernels::CausalAttentionArgs;
using kernels::Isa;

// Outputs against the oracle: fp32 rounding of the sums of weights and values, plus the score error
// (see Sequence::reference), which dominates for long heads and sharp scales.
double tolerance(double magnitude) { return 1e-6 + 8.0 * std::ldexp(magnitude, -24); }

// The AMX prompt kernel's bf16x3 products (causal_attention_amx.cpp) leave out under 2^-13 of each
// product: a score moves by at most 2^-13 of `magnitude`, which moves the softmax-weighted mean of
// values in [-1, 1] by at most twice that; the weights' own parts by 2^-13 of the output's scale.
double bf16x3_tolerance(double magnitude) {
  return tolerance(magnitude) + std::ldexp(magnitude, -12) + std::ldexp(1.0, -13);
}

// The bf16 prompt kernel (causal_attention_bf16.cpp) rounds each query and key to bf16 (2^-9 of
// each, relative): a score moves by at most 2^-8 of `magnitude`, the output by twice that; the
// weights' and the values' own roundings move it by at most 2^-9 of the values' size (1) each.
double bf16_tolerance(double magnitude) {
  return tolerance(magnitude) + std::ldexp(magnitude, -7) + std::ldexp(1.0, -8);
}

// The int8-score prompt kernel rounds each query and key to int8 with one scale per head (its largest
// |value| / 127): an element moves by up to 1/254 of its row's largest, so a score by up to
// scale * dim / 127 on these inputs (values within 1), which is within 2^-5 of `magnitude` (the
// largest scale * sum_c |q_c k_c|, about scale * dim / 4 or more at these lengths); the output by
// twice that, and by the values' and weights' bf16 roundings as above.
double int8_tolerance(double magnitude) {
  return tolerance(magnitude) + std::ldexp(magnitude, -4) + std::ldexp(1.0, -8);
}

// What the oracle rounds as a prompt kernel does before its exact sums (Sequence::reference).
enum class Rounding { None, Bf16, Int8 };

// Values in [-1, 1) from a hash of (seed, index): unrelated to any structure of the kernel's tiles.
float noise(uint64_t seed, uint64_t i) {
  uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (i + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 31;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 29;
  return static_cast<float>(static_cast<double>(x >> 40) / static_cast<double>(1ull << 23) - 1.0);
}

struct Kernel {
  std::string name;
  void (*run)(const CausalAttentionArgs& args);
  double (*tolerance)(double magnitude) = ::ninfer::models::testing::tolerance;
};

// One KV head's cache of `length` positions and the queries of `heads` heads at every position, laid out
// like the forward pass lays them out: rows of kv_stride channels (keys transposed per block of T
// positions, as the cache keeps them) and of q_stride elements, with the head's data inside. k and v
// are kept in f32 rows for the tests to edit; the kernel gets them as the f16 cache holds them, and
// the oracle reads those same f16 values.
struct Sequence {
  int64_t length, heads, dim, kv_stride, q_stride;
  std::vector<float> k, v, q;
  Sequence(int64_t length_, int64_t heads_, int64_t dim_, uint64_t seed)
      : length(length_), heads(heads_), dim(dim_), kv_stride(3 * dim_ + 5), q_stride(heads_ * dim_ + 7) {
    k.resize(static_cast<size_t>(length * kv_stride));
    v.resize(k.size());
    q.resize(static_cast<size_t>(length * q_stride));
    for (size_t i = 0; i < k.size(); ++i) {
      k[i] = noise(seed, i);
      v[i] = noise(seed + 100, i);
    }
    for (size_t i = 0; i < q.size(); ++i) q[i] = noise(seed + 200, i);
  }
  // Output rows [pos0, pos0 + rows) into out (rows of q_stride floats, head h at h*dim).
  void attend(const Kernel& kt, int64_t pos0, int64_t rows, float scale, std::vector<float>& out) const {
    std::vector<float> scratch(static_cast<size_t>(kernels::causal_attention_scratch_floats(rows, heads, dim)));
    // The cache's layouts: values as rows, keys transposed in whole blocks of T positions. The rest of
    // the last block holds NaN (a cache block is written a position at a time).
    const int64_t T = kernels::kAttentionKeyTile, blocks = (length + T - 1) / T;
    std::vector<uint16_t> kh(static_cast<size_t>(blocks * T * kv_stride), f32_to_f16(NAN)), vh(v.size());
    for (int64_t j = 0; j < length; ++j) {
      for (int64_t c = 0; c < kv_stride; ++c) kh[(j / T * kv_stride + c) * T + j % T] = f32_to_f16(k[j * kv_stride + c]);
    }
    for (size_t i = 0; i < v.size(); ++i) vh[i] = f32_to_f16(v[i]);
    CausalAttentionArgs a;
    a.q = q.data() + pos0 * q_stride;
    a.q_stride = q_stride;
    a.k = kh.data() + dim * T;  // the KV head sits one head into each position's channels
    a.k_block_stride = kv_stride * T;
    a.v = vh.data() + dim;
    a.v_block_stride = kv_stride * T;
    a.v_stride = kv_stride;
    a.out = out.data() + pos0 * q_stride;
    a.out_stride = q_stride;
    a.pos0 = pos0;
    a.rows = rows;
    a.heads = heads;
    a.dim = dim;
    a.scale = scale;
    a.scratch = scratch.data();
    kt.run(a);
  }
  // softmax(scale * q.k_j, j <= pos) . v in double. `magnitude` gets the largest scale * sum_c |q_c k_jc|:
  // fp32 scores are only good to a few ulps of that, and each output moves by at most twice the
  // worst score error (the values are at most 1 in size).
  static double cached(float x) { return f16_to_f32(f32_to_f16(x)); }
  // With Rounding::Bf16, the cached keys and values rounded to bf16 first, and the query rounded as the
  // bf16 prompt kernel rounds it: times the fp32 scale * log2(e), to bf16. With Rounding::Int8, the
  // values so, and the query and each cached key rounded to int8 as the int8-score kernel rounds
  // them (causal_attention_bf16.cpp): by the reciprocal of their scale (largest |value| / 127), the
  // key's offset by 128 in the same rounding, each to the nearest integer.
  std::vector<double> reference(int64_t pos, int64_t head, double scale, double& magnitude,
                                Rounding rounding = Rounding::None) const {
    auto round = [&](double x) {
      return rounding != Rounding::None ? double{bf16_to_f32(f32_to_bf16(static_cast<float>(x)))} : x;
    };
    const float log2_scale = static_cast<float>(scale) * 1.44269504088896341f;
    // Rounds x (one head's row, in place) to int8 times its scale, as the kernel does.
    auto int8_row = [](std::vector<float>& x, bool key) {
      float largest = 0.0f;
      for (float e : x) largest = std::max(largest, std::fabs(e));
      const float inv = largest > 0.0f ? 127.0f / largest : 0.0f, step = largest / 127.0f;
      for (float& e : x) {
        e = key ? (std::nearbyint(std::fma(e, inv, 128.0f)) - 128.0f) * step : std::nearbyint(e * inv) * step;
      }
    };
    std::vector<double> qh(static_cast<size_t>(dim));
    std::vector<float> row(static_cast<size_t>(dim));
    for (int64_t c = 0; c < dim; ++c) row[c] = q[pos * q_stride + head * dim + c] * log2_scale;
    if (rounding == Rounding::Int8) int8_row(row, false);
    for (int64_t c = 0; c < dim; ++c) {
      const float x = q[pos * q_stride + head * dim + c];
      qh[c] = rounding == Rounding::None ? x : (rounding == Rounding::Bf16 ? round(row[c]) : row[c]) / double{log2_scale};
    }
    std::vector<double> s(static_cast<size_t>(pos + 1));
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j <= pos; ++j) {
      double d = 0.0, m = 0.0;
      for (int64_t c = 0; c < dim; ++c) row[c] = static_cast<float>(cached(k[j * kv_stride + dim + c]));
      if (rounding == Rounding::Int8) int8_row(row, true);
      for (int64_t c = 0; c < dim; ++c) {
        const double kc = rounding == Rounding::Bf16 ? round(row[c]) : row[c];
        d += qh[c] * kc;
        m += std::fabs(qh[c] * kc);
      }
      s[j] = scale * d;
      mx = std::max(mx, s[j]);
      magnitude = std::max(magnitude, scale * m);
    }
    for (double& e : s) sum += (e = std::exp(e - mx));
    std::vector<double> o(static_cast<size_t>(dim), 0.0);
    for (int64_t j = 0; j <= pos; ++j) {
      for (int64_t c = 0; c < dim; ++c) o[c] += s[j] / sum * round(cached(v[j * kv_stride + dim + c]));
    }
    return o;
  }
};

// Every attention kernel this CPU has: per instruction set, that of generated positions, where it
// differs (AMX) that of prompt positions, and where it has them the bf16 and int8-score prompt kernels.
std::vector<Kernel> supported_kernels() {
  std::vector<Kernel> out;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    const kernels::KernelTable& kt = kernels::kernel_table(isa);
    out.push_back({std::string(kernels::isa_name(isa)) + " generated", kt.attention(false)});
    if (kt.attention(true) != kt.attention(false)) {
      out.push_back(
          {std::string(kernels::isa_name(isa)) + " prompt", kt.attention(true), bf16x3_tolerance});
    }
    if (auto* bf16 = kernels::bf16_prompt_attention(isa)) {
      out.push_back({std::string(kernels::isa_name(isa)) + " prompt bf16", bf16, bf16_tolerance});
    }
    if (auto* int8 = kernels::int8_score_prompt_attention(isa)) {
      out.push_back({std::string(kernels::isa_name(isa)) + " prompt int8 scores", int8, int8_tolerance});
    }
  }
  return out;
}

struct Shape {
  int64_t heads, dim, pos0, rows;
};

// The largest |output - oracle| over a block's rows (those of long blocks by sample: the oracle
// costs a pass over the context per row), infinite where an output is not a number; `magnitude` as
// Sequence::reference gives it.
double worst_error(const Sequence& seq, const std::vector<float>& out, const Shape& sh, double scale,
                   double& magnitude, Rounding rounding = Rounding::None) {
  double worst = 0.0;
  for (int64_t r = 0; r < sh.rows; ++r) {
    if (sh.rows > 8 && r % 5 != 0 && r != sh.rows - 1) continue;
    const int64_t pos = sh.pos0 + r;
    for (int64_t h = 0; h < sh.heads; ++h) {
      const std::vector<double> want = seq.reference(pos, h, scale, magnitude, rounding);
      for (int64_t c = 0; c < sh.dim; ++c) {
        const double e = std::fabs(out[pos * seq.q_stride + h * sh.dim + c] - want[c]);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
      }
    }
  }
  return worst;
}

// A block of sh.rows queries at sh.pos0 over a fresh sequence (seeded), through one kernel call,
// against the oracle: worst_error of it.
double block_error(const Kernel& kt, const Shape& sh, double scale, uint64_t seed, double& magnitude,
                   Rounding rounding = Rounding::None) {
  const Sequence seq(sh.pos0 + sh.rows, sh.heads, sh.dim, seed);
  std::vector<float> out(seq.q.size(), NAN);
  seq.attend(kt, sh.pos0, sh.rows, static_cast<float>(scale), out);
  return worst_error(seq, out, sh, scale, magnitude, rounding);
}

TEST(CausalAttention, MatchesDoubleOverOddShapes) {
  // Block ends that fall inside, at and just past key tiles; 1 to 64 query rows; GQA groups of 1 to 8;
  // head dims of the vector widths and not; contexts up to 8k. The outputs are convex combinations of
  // values in [-1, 1], so an absolute bound fits every shape.
  const int64_t T = kernels::kAttentionKeyTile;
  const Shape shapes[] = {
      {1, 64, 0, 1},       {2, 128, 0, 64},     {8, 128, 0, 37},      {3, 20, 5, 60},
      {4, 64, T - 1, 2},   {2, 128, T, 1},      {1, 128, 2 * T - 3, 64}, {5, 6, 100, 9},
      {8, 64, 1000, 17},   {2, 128, 2047, 3},   {1, 64, 3 * T + 1, 33},  {2, 128, 8190, 2},
      {7, 24, 4095, 5},    {2, 16, 300, 48},
  };
  for (const Kernel& kt : supported_kernels()) {
    for (const Shape& sh : shapes) {
      for (double scale : {1.0 / std::sqrt(static_cast<double>(sh.dim)), 1.5}) {
        double magnitude = 0.0;
        const double worst = block_error(kt, sh, scale, static_cast<uint64_t>(sh.dim * 31 + sh.pos0), magnitude);
        EXPECT_LE(worst, kt.tolerance(magnitude)) << kt.name << " heads " << sh.heads << " dim " << sh.dim << " pos0 "
                               << sh.pos0 << " rows " << sh.rows << " scale " << scale;
      }
    }
  }
}

TEST(CausalAttention, PromptKernelsAreExactButForTheirRoundings) {
  // Against the oracle fed the same bf16 (or int8) queries and keys and bf16 values, what is left is
  // the weights' rounding to bf16 (2^-9 of each, so of the output's scale: values within 1; with the
  // exp's 2^-13) and fp32's: a bound 10-20x tighter than bf16_tolerance's (and ~100x than
  // int8_tolerance's), which a key or value paired with the wrong partner, a key's or query's wrong
  // scale, or a weight of the wrong key, would break.
  const int64_t T = kernels::kAttentionKeyTile;
  const Shape shapes[] = {{2, 128, 0, 64}, {8, 128, 0, 37}, {1, 128, 2 * T - 3, 64}, {8, 64, 1000, 17},
                          {2, 128, 2047, 3}, {2, 96, 300, 48}, {2, 128, 8190, 2}};
  int checked = 0;
  for (Isa isa : {Isa::Avx512, Isa::Amx}) {
    for (const auto& [kernel, rounding, name] :
         {std::tuple{kernels::bf16_prompt_attention(isa), Rounding::Bf16, " prompt bf16"},
          std::tuple{kernels::int8_score_prompt_attention(isa), Rounding::Int8, " prompt int8 scores"}}) {
      if (kernel == nullptr) continue;
      const Kernel kt{std::string(kernels::isa_name(isa)) + name, kernel};
      for (const Shape& sh : shapes) {
        for (double scale : {1.0 / std::sqrt(static_cast<double>(sh.dim)), 1.5}) {
          double magnitude = 0.0;
          const double worst = block_error(kt, sh, scale, static_cast<uint64_t>(sh.dim * 17 + sh.pos0), magnitude, rounding);
          EXPECT_LE(worst, tolerance(magnitude) + std::ldexp(1.0, -8))
              << kt.name << " heads " << sh.heads << " dim " << sh.dim << " pos0 " << sh.pos0 << " rows " << sh.rows
              << " scale " << scale;
          ++checked;
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "no bf16 prompt attention on this CPU (AVX512_BF16)";
}

TEST(CausalAttention, SharpScoresStayFinite) {
  // Scores hundreds apart: most weights underflow to exactly zero, and the running max moves by far
  // more than exp's range between tiles (the first keys lose to later ones).
  for (const Kernel& kt : supported_kernels()) {
    Sequence seq(200, 2, 32, 5);
    for (int64_t j = 0; j < seq.length; ++j) {
      for (int64_t c = 0; c < seq.dim; ++c) seq.k[j * seq.kv_stride + seq.dim + c] *= static_cast<float>(j % 97);
    }
    std::vector<float> out(seq.q.size(), NAN);
    seq.attend(kt, 0, seq.length, 3.0f, out);
    double magnitude = 0.0;
    const double worst = worst_error(seq, out, {seq.heads, seq.dim, 0, seq.length}, 3.0, magnitude);
    EXPECT_LE(worst, kt.tolerance(magnitude)) << kt.name << " magnitude " << magnitude;
  }
}

TEST(CausalAttention, AQueryGivesTheSameBitsHoweverTheQueriesAreGrouped) {
  // A sequence attended whole, in blocks of every size that the forward pass or a verification row
  // can make (including blocks that straddle tile edges), and one query at a time: every output
  // bit-identical.
  for (const Kernel& kt : supported_kernels()) {
    for (const auto& [heads, dim] : {std::pair<int64_t, int64_t>{2, 128}, {1, 64}, {3, 20}, {8, 16}}) {
      const Sequence seq(2 * kernels::kAttentionKeyTile + 75, heads, dim, 77);
      std::vector<float> whole(seq.q.size(), 0.0f);
      seq.attend(kt, 0, seq.length, 0.3f, whole);
      for (int64_t block : {1, 2, 3, 5, 8, 16, 33, 64, 65, 100}) {
        std::vector<float> parts(seq.q.size(), 0.0f);
        for (int64_t p = 0; p < seq.length; p += block) seq.attend(kt, p, std::min(block, seq.length - p), 0.3f, parts);
        ASSERT_EQ(std::memcmp(parts.data(), whole.data(), whole.size() * sizeof(float)), 0)
            << kt.name << " heads " << heads << " dim " << dim << " blocks of " << block;
      }
      // Uneven cuts, as chunked prefill followed by decode and verification rows makes them.
      std::vector<float> uneven(seq.q.size(), 0.0f);
      const int64_t cuts[] = {0, 7, 70, 71, 128, 130, 131, 135, seq.length};
      for (size_t i = 0; i + 1 < std::size(cuts); ++i) seq.attend(kt, cuts[i], cuts[i + 1] - cuts[i], 0.3f, uneven);
      EXPECT_EQ(std::memcmp(uneven.data(), whole.data(), whole.size() * sizeof(float)), 0)
          << kt.name << " heads " << heads << " dim " << dim << " uneven cuts";
    }
  }
}

TEST(CausalAttention, AQueryOutOfRangeSpoilsOnlyItsOwnOutput) {
  // Activations past their range (inf, NaN) reach a query: every other query's output keeps its bits.
  for (const Kernel& kt : supported_kernels()) {
    for (float bad : {INFINITY, -INFINITY, NAN}) {
      Sequence clean(150, 2, 64, 11), dirty = clean;
      const int64_t pos = 97, head = 1;
      dirty.q[pos * dirty.q_stride + head * dirty.dim + 5] = bad;
      std::vector<float> a(clean.q.size(), 0.0f), b(clean.q.size(), 0.0f);
      clean.attend(kt, 0, clean.length, 0.2f, a);
      dirty.attend(kt, 0, dirty.length, 0.2f, b);
      const int64_t spoilt = pos * clean.q_stride + head * clean.dim;  // the bad query's own output
      for (int64_t c = 0; c < clean.dim; ++c) a[spoilt + c] = b[spoilt + c] = 0.0f;
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << kt.name << " " << bad;
    }
  }
}

TEST(CausalAttention, KeysPastTheBlockAreNeverRead) {
  // The cache past the block's last position may hold anything (a truncated draft, nothing yet):
  // NaN there must not reach any output.
  for (const Kernel& kt : supported_kernels()) {
    Sequence clean(150, 2, 64, 9), dirty = clean;
    for (int64_t j = 100; j < dirty.length; ++j) {
      for (int64_t c = 0; c < dirty.kv_stride; ++c) {
        dirty.k[j * dirty.kv_stride + c] = NAN;
        dirty.v[j * dirty.kv_stride + c] = NAN;
      }
    }
    // A prefill block (widened tiles), and one decode row (its two heads read the f16 cache in place).
    for (const auto& [first, rows] : {std::pair<int64_t, int64_t>{60, 40}, {99, 1}}) {
      std::vector<float> a(clean.q.size(), 0.0f), b(clean.q.size(), 0.0f);
      clean.attend(kt, first, rows, 0.2f, a);
      dirty.attend(kt, first, rows, 0.2f, b);
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << kt.name << " rows " << first << ".." << first + rows;
    }
  }
}

}  // namespace
}  // namespace ninfer::models::testing
