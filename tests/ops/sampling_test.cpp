// The sampling pipeline against the independent FP64/long-double oracle (sampling_oracle.h): random
// small vocabularies with random masks and parameters, the edge cases DESIGN.md section 7 names, and
// a chi-square test that sample_token's draws follow the oracle distribution.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ops/sampling.h"
#include "ops/sampling_oracle.h"

namespace ninfer::ops {
namespace {

using testing::oracle_distribution;
using testing::OracleResult;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<uint32_t> mask_of(int32_t domain, const std::vector<int32_t>& legal) {
  std::vector<uint32_t> m(static_cast<size_t>((domain + 31) / 32), 0u);
  for (int32_t id : legal) m[static_cast<size_t>(id / 32)] |= 1u << (id % 32);
  return m;
}

std::vector<uint32_t> all_ones(int32_t domain) {
  std::vector<uint32_t> m(static_cast<size_t>((domain + 31) / 32), 0xffffffffu);
  return m;
}

struct Case {
  std::vector<float> logits;
  bool constrained = false;
  std::vector<uint32_t> mask;
  int32_t domain = 0;
  SamplingParams params;
  std::vector<TokenCount> penalties;

  MaskRow row() const { return MaskRow{constrained ? mask.data() : nullptr, domain}; }
  OracleResult oracle() const { return oracle_distribution(logits, constrained ? &mask : nullptr, domain, params, penalties); }
  std::string describe() const {
    std::string s = "V=" + std::to_string(domain) + " width=" + std::to_string(logits.size()) +
                    (constrained ? " masked" : " unconstrained") + " T=" + std::to_string(params.temperature) +
                    " k=" + std::to_string(params.top_k) + " top_p=" + std::to_string(params.top_p) +
                    " min_p=" + std::to_string(params.min_p) + " presence=" + std::to_string(params.presence_penalty) +
                    " frequency=" + std::to_string(params.frequency_penalty) +
                    " penalties=" + std::to_string(penalties.size());
    return s;
  }
};

// transformed_distribution must match the oracle: same status, same support, probabilities to 1e-5
// relative (the absolute floor only matters for weights that underflow float).
void expect_matches_oracle(const Case& c) {
  SCOPED_TRACE(c.describe());
  const OracleResult want = c.oracle();
  SparseDistribution got;
  const SampleStatus st = transformed_distribution(c.logits, c.row(), c.params, c.penalties, got);
  ASSERT_EQ(st, want.status);
  if (st != SampleStatus::Ok) {
    const SampleResult r = sample_token(c.logits, c.row(), c.params, c.penalties, RngKey{1, 2, RngPurpose::Sample});
    EXPECT_EQ(r.status, want.status);
    EXPECT_EQ(r.token, -1);
    return;
  }
  ASSERT_EQ(got.tokens, want.tokens);
  ASSERT_EQ(got.probs.size(), want.probs.size());
  double mass = 0;
  for (size_t i = 0; i < want.probs.size(); ++i) {
    const double w = static_cast<double>(want.probs[i]);
    EXPECT_NEAR(got.probs[i], w, 1e-5 * w + 1e-37) << "token " << want.tokens[i];
    mass += got.probs[i];
  }
  EXPECT_NEAR(mass, 1.0, 1e-5);
}

// sample_token follows the documented draw: the first token (ascending id) whose cumulative
// probability exceeds u. Checked against the oracle wherever u is not within 1e-7 of a boundary.
void expect_draw_follows_inverse_cdf(const Case& c, const OracleResult& want, const RngKey& key) {
  const SampleResult r = sample_token(c.logits, c.row(), c.params, c.penalties, key);
  ASSERT_EQ(r.status, want.status) << c.describe();
  if (r.status != SampleStatus::Ok) return;
  const long double u = rng_uniform(key, 0);
  long double cum = 0;
  for (size_t i = 0; i < want.tokens.size(); ++i) {
    const long double next = cum + want.probs[i];
    if (std::fabs(static_cast<double>(u - cum)) < 1e-7 || std::fabs(static_cast<double>(u - next)) < 1e-7) return;
    if (u < next) {
      EXPECT_EQ(r.token, want.tokens[i]) << c.describe() << " u=" << static_cast<double>(u);
      return;
    }
    cum = next;
  }
}

Case random_case(std::mt19937_64& g) {
  auto uni = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(g); };
  auto coin = [&](double p) { return uni(0, 1) < p; };
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  Case c;
  c.domain = pick(7, 300);
  const int width = c.domain + (coin(0.3) ? pick(1, 40) : 0);
  c.logits.resize(static_cast<size_t>(width));
  const int style = pick(0, 2);
  const double scale = std::vector<double>{0.5, 2.0, 8.0}[static_cast<size_t>(pick(0, 2))];
  std::normal_distribution<double> normal(0, scale);
  for (float& x : c.logits) {
    x = style == 2 ? static_cast<float>(pick(-3, 3)) : static_cast<float>(normal(g));  // style 2: many ties
  }
  // Padding past the domain holds values that would win or poison the row if it were read.
  for (int i = c.domain; i < width; ++i) c.logits[static_cast<size_t>(i)] = coin(0.5) ? 1e6f : (coin(0.5) ? kNaN : kInf);
  if (coin(0.1)) {  // a non-finite logit somewhere in the domain: an error only if it is legal
    const float bad = std::vector<float>{kNaN, kInf, -kInf}[static_cast<size_t>(pick(0, 2))];
    c.logits[static_cast<size_t>(pick(0, c.domain - 1))] = bad;
  }
  c.constrained = coin(0.7);
  if (c.constrained) {
    const double density = std::vector<double>{0.0, 0.01, 0.05, 0.3, 0.9, 1.0}[static_cast<size_t>(pick(0, 5))];
    std::vector<int32_t> legal;
    for (int32_t id = 0; id < c.domain; ++id) {
      if (coin(density)) legal.push_back(id);
    }
    c.mask = mask_of(c.domain, legal);
    // Junk bits past the domain in the last word must be ignored.
    const int tail = c.domain % 32;
    if (tail != 0 && coin(0.5)) c.mask.back() |= ~((1u << tail) - 1u);
  }
  SamplingParams& p = c.params;
  p.temperature = coin(0.1) ? 0.0f : static_cast<float>(uni(0.1, 2.0));
  p.top_k = coin(0.4) ? 0 : pick(1, c.domain + 10);
  p.top_p = coin(0.4) ? 1.0f : static_cast<float>(uni(0.05, 1.0));
  p.min_p = coin(0.5) ? 0.0f : static_cast<float>(uni(0.0, 0.5));
  if (coin(0.5)) {
    p.presence_penalty = coin(0.5) ? 0.0f : static_cast<float>(uni(-1.0, 2.0));
    p.frequency_penalty = coin(0.5) ? 0.0f : static_cast<float>(uni(-0.5, 1.0));
    const int count = pick(1, 12);
    for (int i = 0; i < count; ++i) c.penalties.push_back(TokenCount{pick(-2, width + 2), pick(0, 6)});
  }
  return c;
}

TEST(SamplingOracle, RandomSmallVocabularies) {
  std::mt19937_64 g(20240611);
  int ok = 0, empty = 0, nonfinite = 0;
  for (int i = 0; i < 4000; ++i) {
    const Case c = random_case(g);
    expect_matches_oracle(c);
    const OracleResult want = c.oracle();
    ok += want.status == SampleStatus::Ok;
    empty += want.status == SampleStatus::EmptyMask;
    nonfinite += want.status == SampleStatus::NonFiniteLogits;
    expect_draw_follows_inverse_cdf(c, want, RngKey{7, static_cast<uint64_t>(i), RngPurpose::Sample});
    // Greedy on the same case: the maximum penalised logit over A, ties to the lower id.
    Case greedy = c;
    greedy.params.temperature = 0.0f;
    const OracleResult gw = greedy.oracle();
    const SampleResult gr = sample_token(greedy.logits, greedy.row(), greedy.params, greedy.penalties, RngKey{});
    ASSERT_EQ(gr.status, gw.status) << greedy.describe();
    if (gw.status == SampleStatus::Ok) {
      EXPECT_EQ(gr.token, gw.tokens[0]) << greedy.describe();
    }
    if (::testing::Test::HasFailure()) break;
  }
  // The generator really covers all three outcomes.
  EXPECT_GT(ok, 2500);
  EXPECT_GT(empty, 50);
  EXPECT_GT(nonfinite, 50);
}

TEST(SamplingOracle, WiderVocabulariesAndLogitOrders) {
  // Top-k below and above the point where the survivors are sorted back rather than filtered
  // (16k >= n), with the candidate buffer refilling many times (ascending logits put every token
  // into it); top-p over supports wide enough for the weight-bin path, flat (one huge boundary bin)
  // and peaked; ties everywhere in the all-equal row.
  std::mt19937_64 g(99);
  std::normal_distribution<double> normal(0, 3);
  constexpr int kDomain = 3000;
  for (int order = 0; order < 4; ++order) {
    Case c;
    c.domain = kDomain;
    for (int i = 0; i < kDomain; ++i) {
      float v = static_cast<float>(std::round(normal(g) * 4) / 4);  // quarter steps: many ties
      if (order == 1) v = static_cast<float>(i) * 0.01f;            // ascending
      if (order == 2) v = static_cast<float>(kDomain - i) * 0.01f;  // descending
      if (order == 3) v = 1.5f;                                     // all equal
      c.logits.push_back(v);
    }
    for (bool masked : {false, true}) {
      c.constrained = masked;
      if (masked) {
        std::vector<int32_t> legal;
        for (int32_t id = 0; id < kDomain; ++id) {
          if (id % 3 != 0) legal.push_back(id);  // 2000 legal
        }
        c.mask = mask_of(kDomain, legal);
      }
      for (int k : {0, 1, 2, 20, 124, 125, 187, 188, 500, 1000, 1999, 2000, 2001, 2999, 3000, 5000}) {
        for (float t : {0.05f, 0.8f, 50.0f}) {
          c.params = SamplingParams{};
          c.params.top_k = k;
          c.params.temperature = t;
          expect_matches_oracle(c);
          c.params.top_p = 0.9f;
          expect_matches_oracle(c);
          c.params.top_p = 0.3f + static_cast<float>(k) / 20000.0f;
          c.params.min_p = 0.001f;
          expect_matches_oracle(c);
        }
      }
      c.params = SamplingParams{};
      const OracleResult want = c.oracle();
      for (uint64_t pos = 0; pos < 300; ++pos) expect_draw_follows_inverse_cdf(c, want, RngKey{5, pos, RngPurpose::Sample});
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(SamplingOracle, FullQwenWidthRow) {
  // A real-width row: the defaults (softmax + one draw over ~600 blocks), Qwen3's recommended
  // parameters, top-p alone over the whole vocabulary, and everything at once with penalties.
  std::mt19937_64 g(5);
  std::normal_distribution<double> normal(0, 2.5);
  Case c;
  c.domain = 151669;
  for (int i = 0; i < 151936; ++i) c.logits.push_back(static_cast<float>(normal(g)));
  const std::vector<SamplingParams> params = {SamplingParams{}, SamplingParams{0.6f, 20, 0.95f, 0.0f, 0.0f, 0.0f},
                                              SamplingParams{1.3f, 0, 0.7f, 0.0f, 0.0f, 0.0f},
                                              SamplingParams{0.9f, 0, 0.9f, 0.05f, 0.5f, 0.2f}};
  for (const SamplingParams& p : params) {
    c.params = p;
    c.penalties = p.presence_penalty != 0.0f ? std::vector<TokenCount>{{3, 1}, {151668, 4}, {151700, 2}, {77, 9}}
                                              : std::vector<TokenCount>{};
    expect_matches_oracle(c);
    const OracleResult want = c.oracle();
    for (uint64_t pos = 0; pos < 200; ++pos) expect_draw_follows_inverse_cdf(c, want, RngKey{8, pos, RngPurpose::Sample});
  }
}

TEST(SamplingEdges, LegalTokenRankedPast20th) {
  // Only tokens ranked 25th and lower in the raw logits are legal: the distribution lives on them
  // alone, whatever top-k says about the unmasked row.
  std::vector<float> logits(100);
  for (int i = 0; i < 100; ++i) logits[static_cast<size_t>(i)] = 10.0f - 0.1f * static_cast<float>(i);
  Case c;
  c.logits = logits;
  c.domain = 100;
  c.constrained = true;
  c.mask = mask_of(100, {31, 60, 99});
  c.params.top_k = 20;
  expect_matches_oracle(c);
  SparseDistribution d;
  ASSERT_EQ(transformed_distribution(c.logits, c.row(), c.params, c.penalties, d), SampleStatus::Ok);
  EXPECT_EQ(d.tokens, (std::vector<int32_t>{31, 60, 99}));
  c.params.temperature = 0.0f;
  EXPECT_EQ(sample_token(c.logits, c.row(), c.params, c.penalties, RngKey{}).token, 31);
}

TEST(SamplingEdges, SupportSmallerThanKUsesTheRealSupport) {
  Case c;
  c.logits = {0.5f, 3.0f, -1.0f, 2.0f, 7.0f, 0.0f, 1.0f};
  c.domain = 7;
  c.constrained = true;
  c.mask = mask_of(7, {0, 2, 5});
  c.params.top_k = 5;
  expect_matches_oracle(c);
  SparseDistribution d;
  ASSERT_EQ(transformed_distribution(c.logits, c.row(), c.params, c.penalties, d), SampleStatus::Ok);
  ASSERT_EQ(d.tokens, (std::vector<int32_t>{0, 2, 5}));
  const double s = std::exp(0.5) + std::exp(-1.0) + std::exp(0.0);
  EXPECT_NEAR(d.probs[0], std::exp(0.5) / s, 1e-6);
  EXPECT_NEAR(d.probs[1], std::exp(-1.0) / s, 1e-6);
  EXPECT_NEAR(d.probs[2], 1.0 / s, 1e-6);
}

TEST(SamplingEdges, SingleLegalToken) {
  Case c;
  c.logits = {5.0f, -3.0f, 9.0f, 1.0f, 0.0f, 2.0f, 4.0f, 8.0f};
  c.domain = 8;
  c.constrained = true;
  c.mask = mask_of(8, {1});
  c.params = SamplingParams{1.5f, 3, 0.2f, 0.3f, 1.0f, 1.0f};
  c.penalties = {{1, 3}};
  SparseDistribution d;
  ASSERT_EQ(transformed_distribution(c.logits, c.row(), c.params, c.penalties, d), SampleStatus::Ok);
  EXPECT_EQ(d.tokens, (std::vector<int32_t>{1}));
  EXPECT_EQ(d.probs, (std::vector<float>{1.0f}));
  for (uint64_t pos = 0; pos < 50; ++pos) {
    EXPECT_EQ(sample_token(c.logits, c.row(), c.params, c.penalties, RngKey{3, pos, RngPurpose::Sample}).token, 1);
  }
}

TEST(SamplingEdges, EmptyLegalSet) {
  const std::vector<float> logits(70, 1.0f);
  const std::vector<uint32_t> zero(3, 0u);
  SparseDistribution d{{1}, {1.0f}};
  for (float t : {1.0f, 0.0f}) {
    SamplingParams p;
    p.temperature = t;
    EXPECT_EQ(transformed_distribution(logits, MaskRow{zero.data(), 70}, p, {}, d), SampleStatus::EmptyMask);
    EXPECT_TRUE(d.tokens.empty());
    const SampleResult r = sample_token(logits, MaskRow{zero.data(), 70}, p, {}, RngKey{});
    EXPECT_EQ(r.status, SampleStatus::EmptyMask);
    EXPECT_EQ(r.token, -1);
    // Bits only past the domain are no tokens.
    std::vector<uint32_t> tail(3, 0u);
    tail[2] = ~0x3fu;  // ids 70..95, domain is 70
    EXPECT_EQ(sample_token(logits, MaskRow{tail.data(), 70}, p, {}, RngKey{}).status, SampleStatus::EmptyMask);
    // A domain of size 0, and a mask that only allows ids the logits do not have.
    EXPECT_EQ(sample_token(logits, MaskRow{nullptr, 0}, p, {}, RngKey{}).status, SampleStatus::EmptyMask);
    const std::vector<uint32_t> past = mask_of(96, {80, 90});
    EXPECT_EQ(sample_token(logits, MaskRow{past.data(), 96}, p, {}, RngKey{}).status, SampleStatus::EmptyMask);
    // An empty legal set wins over a non-finite logit: no legal logit is non-finite.
    std::vector<float> poisoned = logits;
    poisoned[5] = kNaN;
    EXPECT_EQ(sample_token(poisoned, MaskRow{zero.data(), 70}, p, {}, RngKey{}).status, SampleStatus::EmptyMask);
  }
}

TEST(SamplingEdges, NonFiniteInsideVersusOutsideTheLegalSet) {
  for (float bad : {kNaN, kInf, -kInf}) {
    for (float t : {1.0f, 0.0f}) {
      std::vector<float> logits = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f};
      logits[4] = bad;
      SamplingParams p;
      p.temperature = t;
      p.top_k = 2;  // the error does not depend on whether top-k would have dropped the token
      SparseDistribution d;
      // Inside A (unconstrained, then masked): error.
      EXPECT_EQ(transformed_distribution(logits, MaskRow{nullptr, 9}, p, {}, d), SampleStatus::NonFiniteLogits);
      EXPECT_EQ(sample_token(logits, MaskRow{nullptr, 9}, p, {}, RngKey{}).status, SampleStatus::NonFiniteLogits);
      const std::vector<uint32_t> with = mask_of(9, {0, 4, 8});
      EXPECT_EQ(sample_token(logits, MaskRow{with.data(), 9}, p, {}, RngKey{}).status, SampleStatus::NonFiniteLogits);
      // Outside A: fine, and the row samples among the legal tokens.
      const std::vector<uint32_t> without = mask_of(9, {0, 3, 8});
      ASSERT_EQ(transformed_distribution(logits, MaskRow{without.data(), 9}, p, {}, d), SampleStatus::Ok);
      EXPECT_EQ(d.tokens, (t == 0.0f ? std::vector<int32_t>{8} : std::vector<int32_t>{3, 8}));
      const SampleResult r = sample_token(logits, MaskRow{without.data(), 9}, p, {}, RngKey{});
      EXPECT_EQ(r.status, SampleStatus::Ok);
      // Past the domain (padding of a wider logits row): fine too.
      std::vector<float> wide = {1.0f, 2.0f, 3.0f, bad, bad};
      EXPECT_EQ(sample_token(wide, MaskRow{nullptr, 3}, p, {}, RngKey{}).status, SampleStatus::Ok);
    }
  }
  // A penalty can make a legal logit non-finite only through non-finite parameters.
  std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  SamplingParams p;
  p.frequency_penalty = kInf;
  const std::vector<TokenCount> pen = {{1, 1}};
  EXPECT_EQ(sample_token(logits, MaskRow{nullptr, 3}, p, pen, RngKey{}).status, SampleStatus::NonFiniteLogits);
  const std::vector<uint32_t> skip1 = mask_of(3, {0, 2});
  EXPECT_EQ(sample_token(logits, MaskRow{skip1.data(), 3}, p, pen, RngKey{}).status, SampleStatus::Ok);
}

TEST(SamplingEdges, GreedyTiesGoToTheLowerId) {
  const std::vector<float> logits = {1.0f, 4.0f, 2.0f, 4.0f, 4.0f, -1.0f};
  SamplingParams greedy;
  greedy.temperature = 0.0f;
  SamplingParams k1;
  k1.top_k = 1;
  for (const SamplingParams& p : {greedy, k1}) {
    EXPECT_EQ(sample_token(logits, MaskRow{nullptr, 6}, p, {}, RngKey{}).token, 1);
    const std::vector<uint32_t> m = mask_of(6, {0, 3, 4, 5});
    EXPECT_EQ(sample_token(logits, MaskRow{m.data(), 6}, p, {}, RngKey{}).token, 3);
    SparseDistribution d;
    ASSERT_EQ(transformed_distribution(logits, MaskRow{m.data(), 6}, p, {}, d), SampleStatus::Ok);
    EXPECT_EQ(d.tokens, (std::vector<int32_t>{3}));
    EXPECT_EQ(d.probs, (std::vector<float>{1.0f}));
  }
  // Ties at the top-k boundary also go to the lower id.
  SamplingParams k2;
  k2.top_k = 2;
  SparseDistribution d;
  ASSERT_EQ(transformed_distribution(logits, MaskRow{nullptr, 6}, k2, {}, d), SampleStatus::Ok);
  EXPECT_EQ(d.tokens, (std::vector<int32_t>{1, 3}));
}

TEST(SamplingEdges, PenaltiesFollowOpenAiSemantics) {
  // logit -= presence × (count > 0) + frequency × count, before top-k and greedy.
  const std::vector<float> logits = {3.0f, 2.0f, 1.0f, 0.0f};
  SamplingParams p;
  p.presence_penalty = 0.5f;
  p.frequency_penalty = 0.25f;
  const std::vector<TokenCount> pen = {{0, 4}, {2, 0}, {3, 1}, {9, 5}, {-1, 2}};  // out-of-range ids are ignored
  // z = {3 - 0.5 - 1, 2, 1 - 0, 0 - 0.5 - 0.25} = {1.5, 2, 1, -0.75}
  SparseDistribution d;
  ASSERT_EQ(transformed_distribution(logits, MaskRow{nullptr, 4}, p, pen, d), SampleStatus::Ok);
  const double z[4] = {1.5, 2.0, 1.0, -0.75};
  double s = 0;
  for (double x : z) s += std::exp(x);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(d.probs[static_cast<size_t>(i)], std::exp(z[i]) / s, 1e-6);
  p.temperature = 0.0f;
  EXPECT_EQ(sample_token(logits, MaskRow{nullptr, 4}, p, pen, RngKey{}).token, 1);
  p.temperature = 1.0f;
  p.top_k = 1;
  EXPECT_EQ(sample_token(logits, MaskRow{nullptr, 4}, p, pen, RngKey{}).token, 1);
  // Masked rows apply the same penalties (the penalised token is found inside the support).
  const std::vector<uint32_t> m = mask_of(4, {0, 2});
  EXPECT_EQ(sample_token(logits, MaskRow{m.data(), 4}, p, pen, RngKey{}).token, 0);
  p.frequency_penalty = 0.6f;  // z0 = 3 - 0.5 - 2.4 = 0.1 < z2 = 1
  EXPECT_EQ(sample_token(logits, MaskRow{m.data(), 4}, p, pen, RngKey{}).token, 2);
}

TEST(SamplingEdges, LogitsWiderThanTheDomain) {
  // Qwen3 pads 151,669 tokens to 151,936 logits: the padding never takes part, masked or not.
  std::vector<float> logits(45, 0.0f);
  for (int i = 0; i < 40; ++i) logits[static_cast<size_t>(i)] = static_cast<float>(i % 7) * 0.3f;
  for (int i = 40; i < 45; ++i) logits[static_cast<size_t>(i)] = 100.0f;
  for (bool masked : {false, true}) {
    const std::vector<uint32_t> ones = all_ones(40);
    const MaskRow row{masked ? ones.data() : nullptr, 40};
    SparseDistribution d;
    ASSERT_EQ(transformed_distribution(logits, row, SamplingParams{}, {}, d), SampleStatus::Ok);
    EXPECT_EQ(d.tokens.size(), 40u);
    EXPECT_EQ(d.tokens.back(), 39);
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    EXPECT_EQ(sample_token(logits, row, greedy, {}, RngKey{}).token, 6);
    for (uint64_t pos = 0; pos < 200; ++pos) {
      EXPECT_LT(sample_token(logits, row, SamplingParams{}, {}, RngKey{1, pos, RngPurpose::Sample}).token, 40);
    }
  }
}

TEST(SamplingEdges, ParameterExtremes) {
  const std::vector<float> logits = {1.0f, 3.0f, 3.0f, 2.0f, -5.0f, 0.5f, 2.5f};
  auto dist = [&](SamplingParams p) {
    SparseDistribution d;
    EXPECT_EQ(transformed_distribution(logits, MaskRow{nullptr, 7}, p, {}, d), SampleStatus::Ok);
    return d;
  };
  SamplingParams p;
  p.top_p = 0.0f;  // at least one token: the best, ties to the lower id
  EXPECT_EQ(dist(p).tokens, (std::vector<int32_t>{1}));
  p = SamplingParams{};
  p.min_p = 1.0f;  // only the tokens tied with the maximum
  EXPECT_EQ(dist(p).tokens, (std::vector<int32_t>{1, 2}));
  p.min_p = 5.0f;  // clamped to 1
  EXPECT_EQ(dist(p).tokens, (std::vector<int32_t>{1, 2}));
  p = SamplingParams{};
  p.temperature = 1e-30f;  // arguments far past the exp kernel's range: the guarded loop
  SparseDistribution d = dist(p);
  ASSERT_EQ(d.tokens.size(), 7u);
  EXPECT_EQ(d.probs[1], 0.5f);
  EXPECT_EQ(d.probs[2], 0.5f);
  EXPECT_EQ(d.probs[0], 0.0f);
  p.temperature = 1e30f;  // uniform
  d = dist(p);
  for (float x : d.probs) EXPECT_NEAR(x, 1.0f / 7.0f, 1e-6);
  p = SamplingParams{};
  p.top_k = -3;  // negative top-k is off
  EXPECT_EQ(dist(p).tokens.size(), 7u);
  p = SamplingParams{};
  p.temperature = -1.0f;  // not positive: greedy
  EXPECT_EQ(dist(p).tokens, (std::vector<int32_t>{1}));
}

TEST(SamplingEdges, UnconstrainedEquivalentMasksChangeNothing) {
  // An all-ones mask (and one with junk past the domain) gives bit-identical distributions and the
  // same token as the unconstrained fast path under the same key: masks never consume randomness.
  std::mt19937_64 g(11);
  std::normal_distribution<double> normal(0, 2);
  for (int domain : {7, 32, 33, 1000, 4099}) {
    std::vector<float> logits;
    for (int i = 0; i < domain + 13; ++i) logits.push_back(static_cast<float>(normal(g)));
    std::vector<uint32_t> ones = all_ones(domain);
    for (const SamplingParams& p : {SamplingParams{}, SamplingParams{0.7f, 40, 0.9f, 0.01f, 0.3f, 0.1f},
                                    SamplingParams{1.0f, 0, 0.8f, 0.0f, 0.0f, 0.0f}}) {
      const std::vector<TokenCount> pen = {{2, 1}, {5, 3}};
      SparseDistribution a, b;
      ASSERT_EQ(transformed_distribution(logits, MaskRow{nullptr, domain}, p, pen, a), SampleStatus::Ok);
      ASSERT_EQ(transformed_distribution(logits, MaskRow{ones.data(), domain}, p, pen, b), SampleStatus::Ok);
      EXPECT_EQ(a.tokens, b.tokens);
      EXPECT_EQ(a.probs, b.probs);
      for (uint64_t pos = 0; pos < 300; ++pos) {
        const RngKey key{42, pos, RngPurpose::Sample};
        EXPECT_EQ(sample_token(logits, MaskRow{nullptr, domain}, p, pen, key).token,
                  sample_token(logits, MaskRow{ones.data(), domain}, p, pen, key).token);
      }
    }
  }
}

TEST(SamplingEdges, ThreadsGetTheSameAnswers) {
  // Per-thread scratch: concurrent calls on rows of different widths agree with one thread's answers.
  std::mt19937_64 g(21);
  std::normal_distribution<double> normal(0, 2);
  std::vector<std::vector<float>> rows;
  for (int width : {50, 3000, 20000}) {
    std::vector<float> row;
    for (int i = 0; i < width; ++i) row.push_back(static_cast<float>(normal(g)));
    rows.push_back(row);
  }
  const SamplingParams p{0.8f, 0, 0.9f, 0.02f, 0.0f, 0.0f};
  auto run = [&](size_t r, uint64_t pos) {
    const auto domain = static_cast<int32_t>(rows[r].size());
    return sample_token(rows[r], MaskRow{nullptr, domain}, p, {}, RngKey{4, pos, RngPurpose::Sample}).token;
  };
  std::vector<int32_t> expected;
  for (uint64_t pos = 0; pos < 300; ++pos) expected.push_back(run(pos % 3, pos));
  std::vector<std::vector<int32_t>> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 300; ++i) {
        const uint64_t pos = (i + 77 * t) % 300;  // each thread walks the rows in its own order
        got[t].push_back(run(pos % 3, pos));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (size_t t = 0; t < got.size(); ++t) {
    for (uint64_t i = 0; i < 300; ++i) EXPECT_EQ(got[t][i], expected[(i + 77 * t) % 300]) << "thread " << t;
  }
}

// Upper critical value of chi-square with `df` degrees of freedom at tail probability 1e-7
// (Wilson–Hilferty; accurate to a few percent, and the margin is huge either way).
double chi_square_critical(int df) {
  const double z = 5.199;  // standard normal upper 1e-7 quantile
  const double k = df;
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

TEST(SamplingChiSquare, DrawsFollowTheOracleDistribution) {
  // Fixed seed, so the statistic is one fixed number: the test cannot flake, and a biased sampler
  // would land far past the 1e-7 critical value.
  std::mt19937_64 g(314159);
  std::normal_distribution<double> normal(0, 1.5);
  Case c;
  c.domain = 60;
  for (int i = 0; i < 64; ++i) c.logits.push_back(static_cast<float>(normal(g)));
  c.constrained = true;
  std::vector<int32_t> legal;
  for (int32_t id = 0; id < 60; ++id) {
    if (id % 3 != 1) legal.push_back(id);
  }
  c.mask = mask_of(60, legal);
  c.params = SamplingParams{0.9f, 25, 0.97f, 0.01f, 0.4f, 0.1f};
  c.penalties = {{0, 2}, {3, 1}, {9, 5}};
  const OracleResult want = c.oracle();
  ASSERT_EQ(want.status, SampleStatus::Ok);
  ASSERT_GT(want.tokens.size(), 10u);

  constexpr int kDraws = 200000;
  std::vector<int> counts(static_cast<size_t>(c.domain), 0);
  for (int i = 0; i < kDraws; ++i) {
    const SampleResult r = sample_token(c.logits, c.row(), c.params, c.penalties,
                                        RngKey{2718, static_cast<uint64_t>(i), RngPurpose::Sample});
    ASSERT_EQ(r.status, SampleStatus::Ok);
    ASSERT_GE(r.token, 0);
    ++counts[static_cast<size_t>(r.token)];
  }
  // Tokens outside the support are never drawn.
  int in_support = 0;
  for (int32_t t : want.tokens) in_support += counts[static_cast<size_t>(t)];
  EXPECT_EQ(in_support, kDraws);
  // Bins with expected count < 5 are pooled.
  double chi2 = 0;
  int bins = 0;
  double pooled_expected = 0, pooled_observed = 0;
  for (size_t i = 0; i < want.tokens.size(); ++i) {
    const double expected = static_cast<double>(want.probs[i]) * kDraws;
    const double observed = counts[static_cast<size_t>(want.tokens[i])];
    if (expected < 5) {
      pooled_expected += expected;
      pooled_observed += observed;
      continue;
    }
    chi2 += (observed - expected) * (observed - expected) / expected;
    ++bins;
  }
  if (pooled_expected > 0) {
    chi2 += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
    ++bins;
  }
  ASSERT_GT(bins, 5);
  RecordProperty("chi2", std::to_string(chi2) + " over " + std::to_string(bins) + " bins");
  EXPECT_LT(chi2, chi_square_critical(bins - 1)) << "bins " << bins;
}

}  // namespace
}  // namespace ninfer::ops
