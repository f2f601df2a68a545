// Speculative acceptance against the FP64 oracle (sampling_oracle.h): whatever the draft and its q,
// the token that verify_draft lets through must follow the oracle's p. Chi-square tests at a 1e-7
// tail with fixed seeds (a fixed statistic: no flakes, and a biased rule lands far past the bound).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ops/draft_acceptance.h"
#include "ops/sampling.h"
#include "ops/sampling_oracle.h"

namespace ninfer::ops {
namespace {

using testing::oracle_distribution;
using testing::OracleResult;

double chi_square_critical(int df) {  // upper 1e-7 tail, Wilson–Hilferty
  const double z = 5.199, k = df, a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

std::vector<uint32_t> mask_of(int32_t domain, const std::vector<int32_t>& legal) {
  std::vector<uint32_t> m(static_cast<size_t>((domain + 31) / 32), 0u);
  for (int32_t id : legal) m[static_cast<size_t>(id / 32)] |= 1u << (id % 32);
  return m;
}

// Chi-square of observed token counts against the oracle's p; tokens outside p's support must
// never appear. Bins expected below 5 are pooled.
void expect_follows(const std::map<int32_t, int>& counts, int draws, const OracleResult& want, const std::string& what) {
  SCOPED_TRACE(what);
  std::map<int32_t, long double> p;
  for (size_t i = 0; i < want.tokens.size(); ++i) p[want.tokens[i]] = want.probs[i];
  for (const auto& [t, c] : counts) EXPECT_TRUE(p.count(t)) << "token " << t << " drawn " << c << " times outside p";
  double chi2 = 0, pooled_e = 0, pooled_o = 0;
  int bins = 0;
  for (const auto& [t, pt] : p) {
    const double e = static_cast<double>(pt) * draws;
    const auto it = counts.find(t);
    const double o = it == counts.end() ? 0 : it->second;
    if (e < 5) {
      pooled_e += e;
      pooled_o += o;
      continue;
    }
    chi2 += (o - e) * (o - e) / e;
    ++bins;
  }
  if (pooled_e > 0) {
    chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
    ++bins;
  }
  if (bins < 2) return;  // a point mass: the support check above is the whole test
  EXPECT_LT(chi2, chi_square_critical(bins - 1)) << "chi2 over " << bins << " bins";
}

// The seed's worked example: p(a) = p(b) = 0.5, q(a) = q(x) = 0.5 (x illegal). Rejecting x and
// drawing the residual gives a and b each 0.5; dropping x for a "bonus" would give a = 0.75.
TEST(DraftAcceptance, TheSeedsWorkedExampleGivesAAndBEachOneHalf) {
  const int32_t a = 0, b = 1, x = 2;
  const std::vector<float> logits = {0.3f, 0.3f, 2.0f, -1.0f};
  const std::vector<uint32_t> mask = mask_of(4, {a, b});
  const MaskRow row{mask.data(), 4};
  const SamplingParams params{};  // temperature 1
  const std::vector<int32_t> q_tokens = {a, x};
  const std::vector<float> q_probs = {0.5f, 0.5f};
  const DraftQ q{q_tokens, q_probs};
  constexpr int kDraws = 200000;
  std::map<int32_t, int> counts;
  int accepted_x = 0;
  for (int i = 0; i < kDraws; ++i) {
    const int32_t d = sample_from(q, RngKey{99, static_cast<uint64_t>(i), RngPurpose::Sample});
    const DraftVerdict v = verify_draft(logits, row, params, {}, d, q, 7, static_cast<uint64_t>(i));
    ASSERT_EQ(v.status, SampleStatus::Ok);
    accepted_x += v.accepted && d == x;
    ++counts[v.token];
  }
  EXPECT_EQ(accepted_x, 0);
  EXPECT_EQ(counts.count(x), 0u);
  const OracleResult want = oracle_distribution(logits, &mask, 4, params, {});
  ASSERT_EQ(want.tokens.size(), 2u);
  expect_follows(counts, kDraws, want, "a/b/x");
  EXPECT_NEAR(counts[a] / double(kDraws), 0.5, 0.005);
  EXPECT_NEAR(counts[b] / double(kDraws), 0.5, 0.005);
}

struct RandomCase {
  std::vector<float> logits;
  std::vector<uint32_t> mask;
  int32_t domain = 0;
  SamplingParams params;
  std::vector<TokenCount> penalties;
};

RandomCase random_case(std::mt19937_64& g) {
  RandomCase c;
  c.domain = 8 + static_cast<int32_t>(g() % 20);
  std::normal_distribution<double> normal(0, 1.5);
  for (int32_t i = 0; i < c.domain + 3; ++i) c.logits.push_back(static_cast<float>(normal(g)));
  std::vector<int32_t> legal;
  for (int32_t id = 0; id < c.domain; ++id)
    if (g() % 3 != 0) legal.push_back(id);
  if (legal.empty()) legal.push_back(0);
  c.mask = mask_of(c.domain, legal);
  c.params.temperature = 0.5f + static_cast<float>(g() % 100) / 100.0f;
  if (g() % 2) c.params.top_k = 2 + static_cast<int>(g() % 8);
  if (g() % 2) c.params.top_p = 0.8f + static_cast<float>(g() % 20) / 100.0f;
  if (g() % 3 == 0) c.params.min_p = 0.02f;
  if (g() % 2) {
    c.params.presence_penalty = 0.3f;
    c.penalties = {{legal[0], 2}};
  }
  return c;
}

// One-hot q: whatever the draft (legal, illegal, outside the domain), the output follows p.
TEST(DraftAcceptance, OneHotDraftsOfAnyKindLeaveTheOutputDistributedAsP) {
  std::mt19937_64 g(20261201);
  for (int c_i = 0; c_i < 6; ++c_i) {
    const RandomCase c = random_case(g);
    const MaskRow row{c.mask.data(), c.domain};
    const OracleResult want = oracle_distribution(c.logits, &c.mask, c.domain, c.params, c.penalties);
    ASSERT_EQ(want.status, SampleStatus::Ok);
    // Drafts: the most likely token, an illegal one, one past the domain, and a fixed legal one.
    std::vector<int32_t> drafts = {want.tokens[0], c.domain + 1};
    for (int32_t id = 0; id < c.domain; ++id) {
      if (!(c.mask[id / 32] >> (id % 32) & 1u)) {
        drafts.push_back(id);
        break;
      }
    }
    for (int32_t d : drafts) {
      constexpr int kDraws = 60000;
      std::map<int32_t, int> counts;
      for (int i = 0; i < kDraws; ++i) {
        const DraftVerdict v = verify_draft(c.logits, row, c.params, c.penalties, d, DraftQ{}, 11 + c_i,
                                            static_cast<uint64_t>(i));
        ASSERT_EQ(v.status, SampleStatus::Ok);
        if (v.accepted) {
          ASSERT_EQ(v.token, d);
        }
        ++counts[v.token];
      }
      expect_follows(counts, kDraws, want, "case " + std::to_string(c_i) + " draft " + std::to_string(d));
    }
  }
}

// Sparse q (the draft drawn from q): the output follows p, including q with illegal tokens and q
// whose support misses most of p.
TEST(DraftAcceptance, SparseQDraftsLeaveTheOutputDistributedAsP) {
  std::mt19937_64 g(16);
  for (int c_i = 0; c_i < 6; ++c_i) {
    const RandomCase c = random_case(g);
    const MaskRow row{c.mask.data(), c.domain};
    const OracleResult want = oracle_distribution(c.logits, &c.mask, c.domain, c.params, c.penalties);
    ASSERT_EQ(want.status, SampleStatus::Ok);
    std::vector<int32_t> q_tokens;
    std::vector<float> q_probs;
    for (int32_t id = 0; id < c.domain; ++id) {
      if (g() % 2) {
        q_tokens.push_back(id);
        q_probs.push_back(0.05f + static_cast<float>(g() % 100) / 100.0f);
      }
    }
    if (q_tokens.empty()) {
      q_tokens.push_back(0);
      q_probs.push_back(1.0f);
    }
    const DraftQ q{q_tokens, q_probs};
    constexpr int kDraws = 80000;
    std::map<int32_t, int> counts;
    for (int i = 0; i < kDraws; ++i) {
      const int32_t d = sample_from(q, RngKey{500 + static_cast<uint64_t>(c_i), static_cast<uint64_t>(i), RngPurpose::Sample});
      ASSERT_GE(d, 0);
      const DraftVerdict v = verify_draft(c.logits, row, c.params, c.penalties, d, q, 3, static_cast<uint64_t>(i));
      ASSERT_EQ(v.status, SampleStatus::Ok);
      ++counts[v.token];
    }
    expect_follows(counts, kDraws, want, "sparse case " + std::to_string(c_i));
  }
}

// q = p exactly: every draft is accepted (the acceptance ratio is 1 wherever q puts weight).
TEST(DraftAcceptance, AQEqualToPAcceptsEveryDraft) {
  const std::vector<float> logits = {1.0f, 0.0f, -0.5f, 2.0f};
  SparseDistribution p;
  ASSERT_EQ(transformed_distribution(logits, MaskRow{nullptr, 4}, SamplingParams{}, {}, p), SampleStatus::Ok);
  const DraftQ q{p.tokens, p.probs};
  for (uint64_t i = 0; i < 2000; ++i) {
    const int32_t d = sample_from(q, RngKey{1, i, RngPurpose::Sample});
    const DraftVerdict v = verify_draft(logits, MaskRow{nullptr, 4}, SamplingParams{}, {}, d, q, 5, i);
    ASSERT_TRUE(v.accepted) << i;
  }
}

// Greedy: p is a point mass at the best legal token; a draft is accepted exactly when it is that
// token, and otherwise the output is that token.
TEST(DraftAcceptance, GreedyAcceptsOnlyTheBestLegalToken) {
  const std::vector<float> logits = {1.0f, 5.0f, 3.0f, 3.0f, -2.0f};
  const std::vector<uint32_t> mask = mask_of(5, {0, 2, 3, 4});  // the raw best (1) is illegal
  SamplingParams greedy;
  greedy.temperature = 0.0f;
  for (int32_t d = -1; d < 6; ++d) {
    for (uint64_t i = 0; i < 50; ++i) {
      const DraftVerdict v = verify_draft(logits, MaskRow{mask.data(), 5}, greedy, {}, d, DraftQ{}, 1, i);
      ASSERT_EQ(v.status, SampleStatus::Ok);
      EXPECT_EQ(v.accepted, d == 2) << d;
      EXPECT_EQ(v.token, 2) << d;  // ties to the lower id
    }
  }
}

TEST(DraftAcceptance, EmptyMasksAndNonFiniteLogitsDecideNothing) {
  const std::vector<float> logits = {1.0f, NAN, 0.0f};
  const std::vector<uint32_t> none = mask_of(3, {});
  EXPECT_EQ(verify_draft(logits, MaskRow{none.data(), 3}, SamplingParams{}, {}, 0, DraftQ{}, 1, 0).status,
            SampleStatus::EmptyMask);
  EXPECT_EQ(verify_draft(logits, MaskRow{nullptr, 3}, SamplingParams{}, {}, 0, DraftQ{}, 1, 0).status,
            SampleStatus::NonFiniteLogits);
}

// The same keys give the same verdicts: a run is reproducible from its seed.
TEST(DraftAcceptance, VerdictsArePureFunctionsOfTheirKeys) {
  const std::vector<float> logits = {0.2f, 0.1f, -0.3f, 0.4f, 0.0f};
  for (uint64_t i = 0; i < 200; ++i) {
    const DraftVerdict a = verify_draft(logits, MaskRow{nullptr, 5}, SamplingParams{}, {}, 2, DraftQ{}, 42, i);
    const DraftVerdict b = verify_draft(logits, MaskRow{nullptr, 5}, SamplingParams{}, {}, 2, DraftQ{}, 42, i);
    EXPECT_EQ(a.accepted, b.accepted);
    EXPECT_EQ(a.token, b.token);
  }
}

}  // namespace
}  // namespace ninfer::ops
