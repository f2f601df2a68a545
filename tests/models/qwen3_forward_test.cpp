// Qwen3Model (the CPU forward pass) against the FP64 reference, and against itself across the ways
// the runtime drives it: prefill, decode, chunked prefill, batches of rows, verification rows,
// truncation, thread counts and instruction sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/dtype_convert.h"
#include "models/kernels/parallel_matmul.h"
#include "models/kernels/simd_kernels.h"
#include "models/kernels/thread_pool.h"
#include "models/model_error.h"
#include "models/qwen3/qwen3_model.h"
#include "models/qwen3_reference.h"
#include "models/random_weights.h"

// Counts operator new calls made while a test asks for it (for "a decode step allocates nothing").
// Replacing the global operators is visible to the whole test binary, so they only count and forward.
namespace {
std::atomic<bool> g_count_allocations{false};
std::atomic<long> g_allocations{0};
void* counted_alloc(std::size_t n) {
  if (g_count_allocations.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace ninfer::models::testing {
namespace {

using kernels::Isa;
using qwen3::Qwen3Config;
using qwen3::Qwen3Model;
using qwen3::Qwen3ModelOptions;
using qwen3::Qwen3Weights;

// Both sides read the very same stored weight values (the reference through tensor_element), and
// both round the keys and values to f16 as the KV cache holds them. The differences are the fp32
// rounding of the activations (~4e-7 relative), and what it does to the f16 rounding: a key or value
// within ~1e-7 of an f16 rounding boundary can round the other way on the two sides, a step of 2^-11
// of that element, which moves later logits by up to ~1e-4 of the largest (observed 1.1e-4 at most on
// these random models; 2e-5 held before the cache was f16). The bound is the same for every dtype but
// Q8_0 (below), and errors of a wrong matrix, layout or position are of order one.
//   |logit - reference| <= kRelTol * max|reference logit| + kAbsTol
constexpr double kRelTol = 2e-4;
constexpr double kAbsTol = 1e-6;
// Q8_0 weights meet int8 activations (q8_block_dot.h), which the reference quantises the same way,
// so most positions agree as tightly as above. But rounding to int8 makes the logits a
// discontinuous function of the activations: an activation within ~1e-7 of a rounding boundary can
// round the other way in the reference, and on these random models that moves the later logits by
// 1-2%. The Q8 arithmetic itself is checked exactly in Qwen3Kernels.*; here a wrong matrix, layout
// or scale (errors of order one) is what must show.
constexpr double kQ8RelTol = 5e-2;

double reference_tolerance(DType dtype) { return dtype == DType::Q8_0 ? kQ8RelTol : kRelTol; }
// Two runs of our own fp32 path that differ only in batching/chunking/threads/ISA: batching,
// chunking and threads give the same bits (tested exactly elsewhere); instruction sets sum in other
// orders, so their keys and values can round to f16 apart (as above).
constexpr double kSelfRelTol = 2e-4;

std::vector<int32_t> random_tokens(int n, int vocab, uint64_t seed) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 12345;
  for (int32_t& x : t) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = static_cast<int32_t>(s % static_cast<uint64_t>(vocab));
  }
  return t;
}

// One row's forward: prompt tokens, or (the default) generated ones (ForwardRow::prompt).
std::vector<float> run_row(Qwen3Model& m, int slot, std::span<const int32_t> tokens, int logits_count,
                           bool prompt = false) {
  std::vector<float> out(static_cast<size_t>(logits_count) * m.vocab_size());
  const ForwardRow row{slot, tokens, logits_count, prompt};
  m.forward(std::span(&row, 1), out);
  return out;
}

double max_abs(std::span<const double> v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// Checks `got` (logits of consecutive positions) against reference rows [first, first + rows).
void expect_matches_reference(std::span<const float> got, const std::vector<std::vector<double>>& ref,
                              size_t first, const std::string& what, double rel_tol = kRelTol) {
  const size_t vocab = ref.at(0).size();
  ASSERT_EQ(got.size() % vocab, 0u);
  for (size_t r = 0; r < got.size() / vocab; ++r) {
    const std::vector<double>& want = ref.at(first + r);
    const double bound = rel_tol * max_abs(want) + kAbsTol;
    double worst = 0.0;
    for (size_t i = 0; i < vocab; ++i) worst = std::max(worst, std::fabs(got[r * vocab + i] - want[i]));
    EXPECT_LE(worst, bound) << what << ": position " << first + r;
  }
}

void expect_close(std::span<const float> a, std::span<const float> b, const std::string& what,
                  double rel_tol = kSelfRelTol) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0.0, worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::fabs(b[i])));
    worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
  }
  EXPECT_LE(worst, rel_tol * scale + 1e-6) << what;
}

std::shared_ptr<const Qwen3Weights> tiny_weights(DType dtype, bool tied = true, uint64_t seed = 7) {
  Qwen3Config c = tiny_qwen3_config();
  c.tie_word_embeddings = tied;
  RandomWeightsOptions o;
  o.dtype = dtype;
  o.norm_dtype = dtype == DType::Q8_0 ? DType::F32 : dtype;
  o.seed = seed;
  return make_random_qwen3_weights(c, o);
}

Qwen3ModelOptions opts(int slots = 1, int threads = 2, int chunk = 128, int max_context = 256) {
  Qwen3ModelOptions o;
  o.slots = slots;
  o.threads = threads;
  o.prefill_chunk = chunk;
  o.max_context = max_context;
  return o;
}

class ForwardDtypeTest : public ::testing::TestWithParam<DType> {};

std::string dtype_param_name(const ::testing::TestParamInfo<DType>& info) { return dtype_name(info.param); }

TEST_P(ForwardDtypeTest, PrefillMatchesReferenceAtEveryPosition) {
  const auto w = tiny_weights(GetParam());
  Qwen3Model m(w, opts());
  const auto tokens = random_tokens(23, w->config.vocab_size, 1);
  const auto ref = reference_logits(*w, tokens);
  const auto got = run_row(m, 0, tokens, static_cast<int>(tokens.size()), true);
  expect_matches_reference(got, ref, 0, "prefill", reference_tolerance(GetParam()));
  EXPECT_EQ(m.slot_length(0), 23);
}

// Head dims of 32 and 64 (what the AMX prompt attention takes; 16 falls back to the vector kernel),
// a prompt past one key tile prefilled as a prompt, then generated positions decoded: both kinds of
// position against the FP64 reference.
TEST_P(ForwardDtypeTest, PromptAndGeneratedPositionsMatchReference) {
  for (int head_dim : {32, 64}) {
    Qwen3Config c = tiny_qwen3_config();
    c.head_dim = head_dim;
    RandomWeightsOptions o;
    o.dtype = GetParam();
    o.norm_dtype = GetParam() == DType::Q8_0 ? DType::F32 : GetParam();
    o.seed = 8;
    const auto w = make_random_qwen3_weights(c, o);
    Qwen3Model m(w, opts());
    const int n = static_cast<int>(kernels::kAttentionKeyTile) + 14, prompt = n - 6;
    const auto tokens = random_tokens(n, c.vocab_size, 3);
    const auto ref = reference_logits(*w, tokens);
    const double tol = reference_tolerance(GetParam());
    const std::string what = "head_dim " + std::to_string(head_dim);
    expect_matches_reference(run_row(m, 0, std::span(tokens).first(prompt), prompt, true), ref, 0, what + " prompt",
                             tol);
    for (int p = prompt; p < n; ++p) {
      expect_matches_reference(run_row(m, 0, std::span(tokens).subspan(p, 1), 1), ref, p, what + " generated", tol);
    }
  }
}

TEST_P(ForwardDtypeTest, DecodeAfterPrefillMatchesReference) {
  const auto w = tiny_weights(GetParam());
  Qwen3Model m(w, opts());
  const auto tokens = random_tokens(17, w->config.vocab_size, 2);
  const auto ref = reference_logits(*w, tokens);
  const size_t prompt = 6;
  const double tol = reference_tolerance(GetParam());
  expect_matches_reference(run_row(m, 0, std::span(tokens).first(prompt), 1), ref, prompt - 1, "prefill", tol);
  for (size_t p = prompt; p < tokens.size(); ++p) {
    expect_matches_reference(run_row(m, 0, std::span(tokens).subspan(p, 1), 1), ref, p, "decode", tol);
  }
  EXPECT_EQ(m.slot_length(0), 17);
}

TEST_P(ForwardDtypeTest, UntiedLmHeadMatchesReference) {
  const auto w = tiny_weights(GetParam(), /*tied=*/false);
  ASSERT_NE(w->lm_head.data, w->embed.data);
  Qwen3Model m(w, opts());
  const auto tokens = random_tokens(9, w->config.vocab_size, 3);
  expect_matches_reference(run_row(m, 0, tokens, 9), reference_logits(*w, tokens), 0, "untied",
                           reference_tolerance(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, ForwardDtypeTest,
                         ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0), dtype_param_name);

TEST(Qwen3Forward, OtherShapesMatchReference) {
  // Wider rows (activation strides get padded off multiples of 1 KiB), a 4:1 GQA group; then an odd
  // head count, a 3:1 group and a head_dim that is not a multiple of the vector width.
  Qwen3Config a = tiny_qwen3_config();
  a.hidden_size = 256;
  a.num_heads = 8;
  a.num_kv_heads = 2;
  a.head_dim = 32;
  a.intermediate_size = 512;
  a.num_layers = 1;
  Qwen3Config b = tiny_qwen3_config();
  b.vocab_size = 333;
  b.hidden_size = 96;
  b.num_heads = 3;
  b.num_kv_heads = 1;
  b.head_dim = 24;
  b.intermediate_size = 160;
  b.rope_theta = 10000.0;
  for (const auto& [config, dtype] : {std::pair{a, DType::Q8_0}, std::pair{b, DType::F16}}) {
    RandomWeightsOptions o;
    o.dtype = dtype;
    o.seed = 99;
    const auto w = make_random_qwen3_weights(config, o);
    const auto tokens = random_tokens(20, config.vocab_size, 30);
    const auto ref = reference_logits(*w, tokens);
    Qwen3Model m(w, opts(2));
    expect_matches_reference(run_row(m, 0, tokens, 20, true), ref, 0, "prefill hidden " + std::to_string(config.hidden_size),
                             reference_tolerance(dtype));
    run_row(m, 1, std::span(tokens).first(13), 1);
    for (size_t p = 13; p < tokens.size(); ++p) {
      expect_matches_reference(run_row(m, 1, std::span(tokens).subspan(p, 1), 1), ref, p, "decode",
                               reference_tolerance(dtype));
    }
  }
}

TEST(Qwen3Forward, TiedAndUntiedHeadsDiffer) {
  // Same seed: identical embedding and layers, only lm_head differs, so the logits must too.
  const auto tied = tiny_weights(DType::F32, true, 11);
  const auto untied = tiny_weights(DType::F32, false, 11);
  Qwen3Model a(tied, opts()), b(untied, opts());
  const auto tokens = random_tokens(5, tied->config.vocab_size, 4);
  const auto la = run_row(a, 0, tokens, 1), lb = run_row(b, 0, tokens, 1);
  double diff = 0.0;
  for (size_t i = 0; i < la.size(); ++i) diff = std::max(diff, static_cast<double>(std::fabs(la[i] - lb[i])));
  EXPECT_GT(diff, 0.1);
}

TEST(Qwen3Forward, ChunkedPrefillEqualsUnchunked) {
  const auto w = tiny_weights(DType::BF16);
  Qwen3Model whole(w, opts(1, 2, 128)), chunked(w, opts(1, 2, 4)), single(w, opts(1, 2, 1));
  const auto tokens = random_tokens(19, w->config.vocab_size, 5);
  const auto a = run_row(whole, 0, tokens, 19);
  expect_close(run_row(chunked, 0, tokens, 19), a, "chunk 4");
  expect_close(run_row(single, 0, tokens, 19), a, "chunk 1");
  // And the cache the chunks left behind decodes the same.
  const std::vector<int32_t> next = {42};
  expect_close(run_row(chunked, 0, next, 1), run_row(whole, 0, next, 1), "decode after chunks");
}

TEST(Qwen3Forward, BatchOfRowsEqualsRowsOneByOne) {
  const auto w = tiny_weights(DType::F16);
  const int vocab = w->config.vocab_size;
  const auto p0 = random_tokens(5, vocab, 6), p1 = random_tokens(9, vocab, 7);
  const auto b0 = random_tokens(1, vocab, 8), b1 = random_tokens(4, vocab, 9), b2 = random_tokens(7, vocab, 10);

  // Slots 0 and 1 hold earlier prompts; slot 2 is fresh. The batch: a decode, a 4-token
  // verification row wanting 4 logits, and a 7-token prefill wanting 2. Chunk 5 cuts across rows.
  Qwen3Model batched(w, opts(3, 2, 5));
  Qwen3Model serial(w, opts(3, 2, 128));
  for (Qwen3Model* m : {&batched, &serial}) {
    run_row(*m, 0, p0, 1);
    run_row(*m, 1, p1, 1);
  }
  const ForwardRow rows[] = {{0, b0, 1}, {1, b1, 4}, {2, b2, 2}};
  std::vector<float> got(7 * static_cast<size_t>(vocab));
  batched.forward(rows, got);

  std::vector<float> want;
  for (const ForwardRow& r : rows) {
    const auto l = run_row(serial, r.slot, r.tokens, r.logits_count);
    want.insert(want.end(), l.begin(), l.end());
  }
  expect_close(got, want, "batch of 3");
  for (int s = 0; s < 3; ++s) EXPECT_EQ(batched.slot_length(s), serial.slot_length(s));
  EXPECT_EQ(batched.slot_length(0), 6);
  EXPECT_EQ(batched.slot_length(1), 13);
  EXPECT_EQ(batched.slot_length(2), 7);

  // The batched model's caches are right too: one more decode on every slot.
  const auto more = random_tokens(1, vocab, 11);
  for (int s = 0; s < 3; ++s) expect_close(run_row(batched, s, more, 1), run_row(serial, s, more, 1), "after batch");
}

TEST(Qwen3Forward, VerificationRowEqualsSequentialDecode) {
  const auto w = tiny_weights(DType::Q8_0);
  const int vocab = w->config.vocab_size;
  const auto prompt = random_tokens(8, vocab, 12);
  const auto drafts = random_tokens(4, vocab, 13);  // committed token + 3 drafts: K+1 = 4 logits
  Qwen3Model m(w, opts(2));
  run_row(m, 0, prompt, 1);
  run_row(m, 1, prompt, 1);
  const auto verify = run_row(m, 0, drafts, 4);
  for (size_t i = 0; i < drafts.size(); ++i) {
    const auto step = run_row(m, 1, std::span(drafts).subspan(i, 1), 1);
    expect_close(std::span(verify).subspan(i * vocab, vocab), step, "verification position " + std::to_string(i));
  }
  // Also against the reference on the full sequence.
  std::vector<int32_t> all = prompt;
  all.insert(all.end(), drafts.begin(), drafts.end());
  expect_matches_reference(verify, reference_logits(*w, all), prompt.size(), "verification",
                           reference_tolerance(DType::Q8_0));
}

TEST(Qwen3Forward, TruncateThenForwardEqualsFresh) {
  const auto w = tiny_weights(DType::BF16);
  const int vocab = w->config.vocab_size;
  const auto first = random_tokens(10, vocab, 14);
  const auto replacement = random_tokens(4, vocab, 15);
  Qwen3Model m(w, opts(2));
  run_row(m, 0, first, 1);
  m.truncate_slot(0, 6);  // drafts 6..9 rejected
  EXPECT_EQ(m.slot_length(0), 6);
  const auto got = run_row(m, 0, replacement, 4);

  std::vector<int32_t> fresh(first.begin(), first.begin() + 6);
  fresh.insert(fresh.end(), replacement.begin(), replacement.end());
  const auto want = run_row(m, 1, fresh, 4);
  expect_close(got, want, "truncate");

  // truncate_slot(s, 0) ends a request: the slot starts over.
  m.truncate_slot(0, 0);
  EXPECT_EQ(m.slot_length(0), 0);
  expect_close(run_row(m, 0, fresh, 4), want, "reuse after truncate to 0");
}

TEST(Qwen3Forward, ThreadCountsGiveTheSameLogits) {
  const auto w = tiny_weights(DType::F32);
  const auto tokens = random_tokens(21, w->config.vocab_size, 16);
  Qwen3Model one(w, opts(1, 1)), two(w, opts(1, 2)), three(w, opts(1, 3));
  EXPECT_EQ(one.threads(), 1);
  EXPECT_EQ(two.threads(), 2);
  const auto a = run_row(one, 0, tokens, 21);
  expect_close(run_row(two, 0, tokens, 21), a, "2 threads");
  expect_close(run_row(three, 0, tokens, 21), a, "3 threads");
  const std::vector<int32_t> next = {3};
  expect_close(run_row(two, 0, next, 1), run_row(one, 0, next, 1), "decode");
}

TEST(Qwen3Forward, APositionGetsTheSameBitsHoweverItIsBatched) {
  // What the prefix cache and speculative decoding rely on: a position's logits do not depend on how
  // the forward passes were cut. Prompt positions (a prompt longer than two attention key tiles,
  // prefilled whole, in chunks, and beside another row) and generated ones (the same tokens decoded
  // one at a time, as a verification row, and beside another row) each bit-identical, at 1-3 threads,
  // at every instruction set, with f16, bf16 and Q8_0 weights and a head dim of 32 (which the AMX
  // prompt kernels take). The two kinds may take different kernels, so they agree to rounding.
  for (DType dtype : {DType::F16, DType::BF16, DType::Q8_0}) {
  Qwen3Config c = tiny_qwen3_config();
  c.head_dim = 32;
  c.num_layers = 3;  // a prompt row may stop after one layer or two (ForwardRow::layers)
  RandomWeightsOptions wo;
  wo.dtype = dtype;
  wo.norm_dtype = dtype == DType::Q8_0 ? DType::F32 : dtype;
  wo.seed = 7;
  const auto w = make_random_qwen3_weights(c, wo);
  const int vocab = w->config.vocab_size;
  const int n = 2 * static_cast<int>(kernels::kAttentionKeyTile) + 21;
  const auto tokens = random_tokens(n, vocab, 31), other = random_tokens(40, vocab, 32);
  const auto same_bits = [](std::span<const float> a, std::span<const float> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  };
  const auto rows_from = [&](std::span<const float> l, int first) {
    return l.subspan(first * static_cast<size_t>(vocab));
  };
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    const std::string name = std::string(kernels::isa_name(isa)) + " " + dtype_name(dtype);
    auto model = [&](int slots, int threads, int chunk) {
      Qwen3ModelOptions o = opts(slots, threads, chunk);
      o.isa = isa;
      return std::make_unique<Qwen3Model>(w, o);
    };
    // Prompt positions.
    const auto whole = run_row(*model(1, 1, 256), 0, tokens, n, true);
    for (int chunk : {1, 5, 64, 100}) {
      EXPECT_TRUE(same_bits(run_row(*model(1, 3, chunk), 0, tokens, n, true), whole)) << name << " chunks of " << chunk;
    }
    // The rest of a row in one batch cut into chunks of 30, beside a row of another slot: a prompt or
    // generated positions, before it or after it (the kinds may share a product: MatmulArgs::prompt_rows).
    auto beside = [&](bool prompt, bool other_prompt, bool other_first) {
      auto b = model(2, 3, 30);
      if (prompt) {
        run_row(*b, 0, std::span(tokens).first(79), 0, true);
      } else {
        for (int p = 0; p < 79; ++p) run_row(*b, 0, std::span(tokens).subspan(p, 1), 0);
      }
      std::vector<float> got((n - 79 + 1) * static_cast<size_t>(vocab));
      const ForwardRow o{1, other, 1, other_prompt}, r{0, std::span(tokens).subspan(79), n - 79, prompt};
      const ForwardRow rows[] = {other_first ? o : r, other_first ? r : o};
      b->forward(rows, got);
      return std::vector<float>(got.begin() + (other_first ? vocab : 0), got.end() - (other_first ? 0 : vocab));
    };
    for (bool other_prompt : {true, false}) {
      for (bool other_first : {true, false}) {
        EXPECT_TRUE(same_bits(beside(true, other_prompt, other_first), rows_from(whole, 79)))
            << name << " prompt beside another row, " << (other_prompt ? "a prompt" : "generated") << ", "
            << (other_first ? "first" : "last");
      }
    }
    // The rest of the prompt through its layers over several forwards (1+1+1, 1+2, 2+1), each beside a
    // generated row of another slot that goes first, as the engine orders them, in chunks of 30
    // items; and the keys and values it left: a generated position after it.
    const std::vector<int32_t> next = {tokens[3]};
    std::vector<float> after_whole;
    {
      auto m = model(1, 1, 256);
      run_row(*m, 0, tokens, 0, true);
      after_whole = run_row(*m, 0, next, 1);
    }
    for (const std::vector<int>& parts : std::vector<std::vector<int>>{{1, 1, 1}, {1, 2}, {2, 1}}) {
      auto b = model(2, 3, 30);
      run_row(*b, 0, std::span(tokens).first(79), 0, true);
      run_row(*b, 1, std::span(other).first(3), 0, true);
      std::vector<float> got((n - 79 + 1) * static_cast<size_t>(vocab));
      for (size_t i = 0; i < parts.size(); ++i) {
        const bool last = i + 1 == parts.size();
        const ForwardRow o{1, std::span(other).subspan(3 + i, 1), 1}, r{0, std::span(tokens).subspan(79),
                                                                        last ? n - 79 : 0, true, last ? 0 : parts[i]};
        const ForwardRow rows[] = {o, r};
        b->forward(rows, got);
        EXPECT_EQ(b->slot_length(0), last ? n : 79) << name;
      }
      const std::string split = name + " prompt through layers " + std::to_string(parts[0]) + "+" + std::to_string(parts[1]);
      EXPECT_TRUE(same_bits(std::span(got).subspan(static_cast<size_t>(vocab)), rows_from(whole, 79))) << split;
      EXPECT_TRUE(same_bits(run_row(*b, 0, next, 1), after_whole)) << split << ", the position after it";
    }
    // Generated positions: one at a time, against a verification row of 9 after 70, and against a
    // verification row beside a prompt of another slot.
    auto m = model(2, 2, 128);
    std::vector<float> stepped;
    for (int p = 0; p < n; ++p) {
      const auto l = run_row(*m, 0, std::span(tokens).subspan(p, 1), 1);
      stepped.insert(stepped.end(), l.begin(), l.end());
    }
    m->truncate_slot(0, 70);
    EXPECT_TRUE(same_bits(run_row(*m, 0, std::span(tokens).subspan(70, 9), 9),
                          std::span(stepped).subspan(70 * static_cast<size_t>(vocab), 9 * static_cast<size_t>(vocab))))
        << name << " verification row";
    for (bool other_prompt : {true, false}) {
      for (bool other_first : {true, false}) {
        EXPECT_TRUE(same_bits(beside(false, other_prompt, other_first), rows_from(stepped, 79)))
            << name << " generated beside another row, " << (other_prompt ? "a prompt" : "generated") << ", "
            << (other_first ? "first" : "last");
      }
    }
    // Q8_0: an activation rounded to int8 on one side and not the other moves later logits by 1-2%.
    expect_close(stepped, whole, name + " prompt against generated", dtype == DType::Q8_0 ? kQ8RelTol : kSelfRelTol);
  }
}
}

TEST(Qwen3Forward, InstructionSetsAgree) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
    const auto w = tiny_weights(dtype);
    const auto tokens = random_tokens(12, w->config.vocab_size, 17);
    Qwen3ModelOptions o = opts();
    o.isa = Isa::Scalar;
    Qwen3Model scalar(w, o);
    const auto want = run_row(scalar, 0, tokens, 12);
    expect_matches_reference(want, reference_logits(*w, tokens), 0, std::string("scalar ") + dtype_name(dtype),
                             reference_tolerance(dtype));
    for (Isa isa : {Isa::Avx2, Isa::Avx512, Isa::Amx}) {
      if (!kernels::isa_supported(isa)) continue;
      o.isa = isa;
      Qwen3Model m(w, o);
      EXPECT_EQ(m.isa(), isa);
      expect_close(run_row(m, 0, tokens, 12), want, std::string(kernels::isa_name(isa)) + " " + dtype_name(dtype));
    }
  }
}

TEST(Qwen3Forward, InvalidArgumentsThrowAndChangeNothing) {
  const auto w = tiny_weights(DType::F32);
  const int vocab = w->config.vocab_size;
  Qwen3Model m(w, opts(2, 2, 128, /*max_context=*/16));
  const auto prompt = random_tokens(10, vocab, 18);
  run_row(m, 0, prompt, 1);
  std::vector<float> out(16 * static_cast<size_t>(vocab));
  const std::vector<int32_t> one = {1}, seven = random_tokens(7, vocab, 19), bad_token = {vocab}, neg = {-1};
  const std::vector<int32_t> none;

  auto throws = [&](std::vector<ForwardRow> rows, std::span<float> logits) {
    EXPECT_THROW(m.forward(rows, logits), std::invalid_argument);
  };
  throws({{2, one, 1}}, out);                 // slot out of range
  throws({{-1, one, 1}}, out);                // negative slot
  throws({{1, none, 0}}, out);                // empty row
  throws({{0, seven, 1}}, out);               // 10 + 7 > max_context 16
  throws({{1, one, 2}}, out);                 // logits_count > tokens
  throws({{1, one, -1}}, out);                // negative logits_count
  throws({{1, bad_token, 1}}, out);           // token id past the vocabulary
  throws({{1, neg, 1}}, out);                 // negative token id
  throws({{0, one, 1}, {0, one, 1}}, out);    // one slot twice in a batch
  throws({{1, seven, 7}}, std::span(out).first(6 * static_cast<size_t>(vocab)));  // logits too small
  // A bad row anywhere rejects the whole batch before any slot moves.
  throws({{1, seven, 1}, {0, seven, 1}}, out);
  EXPECT_EQ(m.slot_length(0), 10);
  EXPECT_EQ(m.slot_length(1), 0);
  // Rows through part of the layers (2 here): at most all of them, prompt rows only, no logits
  // before the last layer, and last in the batch; then the same tokens again, through what is left.
  throws({{1, seven, 0, true, 3}}, out);                // more layers than the model has
  throws({{1, seven, 0, true, -1}}, out);               // negative
  throws({{1, seven, 0, false, 1}}, out);               // generated positions
  throws({{1, seven, 1, true, 1}}, out);                // logits before the last layer
  throws({{1, seven, 0, true, 1}, {0, one, 1}}, out);   // not the last row
  m.forward(std::vector<ForwardRow>{{1, seven, 0, true, 1}}, out);
  EXPECT_EQ(m.slot_length(1), 0);                       // its positions join with their last layer
  const std::vector<int32_t> other_seven = random_tokens(7, vocab, 21);
  throws({{1, other_seven, 0, true}}, out);             // other tokens
  throws({{1, one, 0, true}}, out);                     // fewer
  throws({{1, seven, 0, false}}, out);                  // as generated positions
  throws({{1, seven, 0, true, 2}}, out);                // past the layers left
  throws({{1, seven, 0, true}, {0, one, 1}}, out);      // a row that goes on from a later layer is last too
  const std::vector<std::byte> kv(7 * m.kv_bytes_per_position());
  EXPECT_THROW(m.append_kv(1, 7, kv), std::invalid_argument);
  m.truncate_slot(1, 0);                                // forgets the chunk
  m.forward(std::vector<ForwardRow>{{1, other_seven, 0, true, 1}}, out);
  m.forward(std::vector<ForwardRow>{{1, other_seven, 1, true}}, out);
  EXPECT_EQ(m.slot_length(1), 7);
  m.truncate_slot(1, 0);

  EXPECT_THROW(m.slot_length(2), std::invalid_argument);
  EXPECT_THROW(m.truncate_slot(2, 0), std::invalid_argument);
  EXPECT_THROW(m.truncate_slot(0, 11), std::invalid_argument);
  EXPECT_THROW(m.truncate_slot(0, -1), std::invalid_argument);
  EXPECT_EQ(m.slot_length(0), 10);

  // Exactly filling max_context is fine; the cache state is still right after the rejections.
  const auto six = random_tokens(6, vocab, 20);
  std::vector<int32_t> all = prompt;
  all.insert(all.end(), six.begin(), six.end());
  expect_matches_reference(run_row(m, 0, six, 6), reference_logits(*w, all), 10, "fill to max_context");
  EXPECT_EQ(m.slot_length(0), 16);
  throws({{0, one, 1}}, out);
}

TEST(Qwen3Forward, LogitsCountZeroSkipsTheHead) {
  const auto w = tiny_weights(DType::F32);
  const auto tokens = random_tokens(8, w->config.vocab_size, 21);
  Qwen3Model a(w, opts()), b(w, opts());
  run_row(a, 0, std::span(tokens).first(5), 0);
  run_row(b, 0, std::span(tokens).first(5), 1);
  expect_close(run_row(a, 0, std::span(tokens).subspan(5), 3), run_row(b, 0, std::span(tokens).subspan(5), 3),
               "after a logits-free prefill");
}

TEST(Qwen3Forward, BadOptionsAndWeightsAreRejected) {
  const auto w = tiny_weights(DType::F32);
  EXPECT_THROW(Qwen3Model(nullptr, opts()), std::invalid_argument);
  EXPECT_THROW(Qwen3Model(w, opts(0)), std::invalid_argument);
  EXPECT_THROW(Qwen3Model(w, opts(1, -1)), std::invalid_argument);
  EXPECT_THROW(Qwen3Model(w, opts(1, 1, 0)), std::invalid_argument);

  auto broken = std::make_shared<Qwen3Weights>(*w);
  broken->layers[1].k_proj.shape = {16, 64};
  try {
    Qwen3Model m(broken, opts());
    ADD_FAILURE() << "wrong k_proj shape accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::WrongShape);
    EXPECT_NE(e.location().find("model.layers.1.self_attn.k_proj.weight"), std::string::npos) << e.location();
  }
  broken = std::make_shared<Qwen3Weights>(*w);
  broken->layers.pop_back();
  EXPECT_THROW(Qwen3Model(broken, opts()), ModelError);
  broken = std::make_shared<Qwen3Weights>(*w);
  broken->lm_head.bytes -= 1;
  EXPECT_THROW(Qwen3Model(broken, opts()), ModelError);
  broken = std::make_shared<Qwen3Weights>(*w);
  broken->layers[0].q_norm.data = nullptr;
  EXPECT_THROW(Qwen3Model(broken, opts()), ModelError);
}

TEST(Qwen3Forward, DescriptionAndSizes) {
  const auto w = tiny_weights(DType::BF16);
  Qwen3ModelOptions o = opts(3);
  o.name = "tiny";
  Qwen3Model m(w, o);
  EXPECT_EQ(m.description(), "qwen3 tiny (bf16, 2 layers, 320 vocab)");
  EXPECT_EQ(m.vocab_size(), 320);
  EXPECT_EQ(m.slot_count(), 3);
  EXPECT_EQ(m.max_context(), 256);
  EXPECT_EQ(m.tokenizer(), nullptr);
  Qwen3ModelOptions d;
  d.threads = 1;
  EXPECT_EQ(Qwen3Model(w, d).max_context(), w->config.max_position_embeddings);
}

TEST(Qwen3Forward, PromptAttentionIsChosenByOptionAndDtypeAndMatchesReference) {
  // Auto takes the int8-score prompt kernel for Q8_0 weights only, Exact never, Bf16 and Int8 theirs
  // for any weights; only where the instruction set has them (AVX-512 with AVX512_BF16), and
  // description() says which runs.
  const bool has = kernels::bf16_prompt_attention(kernels::best_isa()) != nullptr;
  ASSERT_EQ(has, kernels::int8_score_prompt_attention(kernels::best_isa()) != nullptr);
  auto described = [&](DType dtype, PromptAttention pa, std::optional<Isa> isa = std::nullopt) {
    Qwen3ModelOptions o = opts();
    o.prompt_attention = pa;
    o.isa = isa;
    const std::string d = Qwen3Model(tiny_weights(dtype), o).description();
    for (const char* tag : {", bf16 prompt attention)", ", int8-score prompt attention)"}) {
      const std::string t = tag;
      if (d.size() >= t.size() && d.compare(d.size() - t.size(), t.size(), t) == 0) return t.substr(2, 4);
    }
    return std::string("none");
  };
  const std::string bf16 = has ? "bf16" : "none", int8 = has ? "int8" : "none";
  EXPECT_EQ(described(DType::Q8_0, PromptAttention::Auto), int8);
  EXPECT_EQ(described(DType::Q8_0, PromptAttention::Exact), "none");
  EXPECT_EQ(described(DType::Q8_0, PromptAttention::Bf16), bf16);
  EXPECT_EQ(described(DType::F16, PromptAttention::Auto), "none");
  EXPECT_EQ(described(DType::F16, PromptAttention::Bf16), bf16);
  EXPECT_EQ(described(DType::F16, PromptAttention::Int8), int8);
  if (kernels::isa_supported(Isa::Avx2)) {
    EXPECT_EQ(described(DType::F16, PromptAttention::Bf16, Isa::Avx2), "none");
    EXPECT_EQ(described(DType::Q8_0, PromptAttention::Auto, Isa::Avx2), "none");
  }
  if (!has) GTEST_SKIP() << "no bf16 prompt attention on this CPU (AVX512_BF16)";

  // F16 weights and a prompt past one key tile: against the FP64 reference to within what rounding
  // queries, keys, values and weights to bf16 (or queries and keys to int8) moves these logits (of
  // the largest, over the positions: bf16 0.15% on average and 0.29% at most; int8 scores 0.39% and
  // 0.87%; a wrong key, value or position moves them by order one), and not the exact kernel's bits.
  Qwen3Config c = tiny_qwen3_config();
  c.head_dim = 64;
  RandomWeightsOptions wo;
  wo.dtype = DType::F16;
  wo.norm_dtype = DType::F16;
  wo.seed = 8;
  const auto w = make_random_qwen3_weights(c, wo);
  const int n = static_cast<int>(kernels::kAttentionKeyTile) + 14;
  const auto tokens = random_tokens(n, c.vocab_size, 3);
  const auto ref = reference_logits(*w, tokens);
  Qwen3ModelOptions o = opts();
  o.prompt_attention = PromptAttention::Exact;
  Qwen3Model exact(w, o);
  const auto exact_got = run_row(exact, 0, tokens, n, true);
  for (PromptAttention pa : {PromptAttention::Bf16, PromptAttention::Int8}) {
    o.prompt_attention = pa;
    Qwen3Model m(w, o);
    const auto got = run_row(m, 0, tokens, n, true);
    expect_matches_reference(got, ref, 0, m.description(), pa == PromptAttention::Int8 ? 2e-2 : 1e-2);
    EXPECT_NE(std::memcmp(got.data(), exact_got.data(), got.size() * sizeof(float)), 0) << m.description();
  }
}

TEST(Qwen3Forward, KvCacheGrowsWithUse) {
  const auto w = tiny_weights(DType::F32);
  Qwen3Model m(w, opts(8, 2, 128, 256));
  EXPECT_EQ(m.kv_cache_bytes(), 0u);  // nothing reserved up front
  run_row(m, 3, random_tokens(5, w->config.vocab_size, 22), 1);
  const size_t per_position = 2 * 2 * 32 * sizeof(float);  // k+v, 2 layers, kv_dim 32
  EXPECT_GE(m.kv_cache_bytes(), 5 * per_position);
  EXPECT_LE(m.kv_cache_bytes(), 64 * per_position);
}

TEST(Qwen3Forward, SteadyDecodeStepsDoNotAllocate) {
  const auto w = tiny_weights(DType::BF16);
  const int vocab = w->config.vocab_size;
  Qwen3Model m(w, opts(4, 2, 128, 256));
  const auto prompt = random_tokens(20, vocab, 23);
  for (int s = 0; s < 4; ++s) run_row(m, s, prompt, 1);
  const std::vector<int32_t> tok = {5};
  const ForwardRow rows[] = {{0, tok, 1}, {1, tok, 1}, {2, tok, 1}, {3, tok, 1}};
  std::vector<float> logits(4 * static_cast<size_t>(vocab));
  // Scratch sized for a 4-row step. Several steps: each pool thread grows its own panel buffer the
  // first time it takes a panel of each width, and under CPU contention one step can leave a worker
  // without one (the caller claims every task first), which then grew in the counted steps.
  for (int i = 0; i < 4; ++i) m.forward(rows, logits);
  // The caches were sized for 21+ positions (capacity 64), so the next steps fit without growing.
  g_allocations = 0;
  g_count_allocations = true;
  std::vector<int>* volatile probe = new std::vector<int>(3);  // the counter itself works
  delete probe;
  EXPECT_EQ(g_allocations.exchange(0), 2);
  for (int i = 0; i < 10; ++i) m.forward(rows, logits);
  g_count_allocations = false;
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_EQ(m.slot_length(0), 34);
}

// ---- kernels on their own ----

// What a Q8_0 matrix multiplies instead of x (q8_block_dot.h), spelled out here: each block of 32
// values as d * q, d = max|x| / 127 and q = x * (1 / d) rounded half to even, in fp32.
std::vector<double> q8_inputs(const std::vector<float>& x) {
  std::vector<double> out(x.size());
  for (size_t b = 0; b + 32 <= x.size(); b += 32) {
    float amax = 0.0f;
    for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (size_t i = b; i < b + 32; ++i) out[i] = double{d} * std::nearbyint(x[i] * id);
  }
  return out;
}

// The inputs the matmul of `dtype` weights multiplies: x itself, or x quantised for Q8_0.
std::vector<double> matmul_inputs(DType dtype, const std::vector<float>& x) {
  return dtype == DType::Q8_0 ? q8_inputs(x) : std::vector<double>(x.begin(), x.end());
}

// The KV cache's stores: every ISA's f16_row gives f32_to_f16's bits (the oracle, itself checked
// against the definition of binary16 in the dtype tests), strided as keys are and contiguous as
// values are, over a sweep of fp32 bit patterns and the values where conversions go wrong: ties,
// the overflow threshold, subnormal results, infinities and NaNs with payloads (which f32_to_f16
// makes one canonical NaN, where the hardware would keep the payload).
TEST(Qwen3Kernels, F16RowsGiveTheScalarConversionsBits) {
  std::vector<float> x;
  for (uint64_t b = 0; b <= 0xffffffffull; b += 4099) x.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  for (uint32_t b : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
                     0x7fbfffffu, 0x477fe000u, 0x477fefffu, 0x477ff000u, 0xc77ff000u, 0x38800000u, 0x387fffffu,
                     0x33000000u, 0x33000001u, 0xb3000000u, 0x337fffffu, 0x3f801000u, 0x3f803000u, 0x3f800fffu})
    x.push_back(std::bit_cast<float>(b));
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    const auto f16_row = kernels::kernel_table(isa).f16_row;
    ASSERT_NE(f16_row, nullptr) << kernels::isa_name(isa);
    for (int64_t stride : {1, 64}) {
      std::vector<uint16_t> out(x.size() * static_cast<size_t>(stride), 0xabcd);
      // Rows of 37 (not a multiple of any vector width), then the rest in one.
      int64_t i = 0;
      for (; i + 37 <= static_cast<int64_t>(x.size()) / 2; i += 37) f16_row(x.data() + i, 37, out.data() + i * stride, stride);
      f16_row(x.data() + i, static_cast<int64_t>(x.size()) - i, out.data() + i * stride, stride);
      size_t wrong = 0;
      for (size_t j = 0; j < x.size(); ++j) {
        if (out[j * static_cast<size_t>(stride)] != f32_to_f16(x[j]) && wrong++ < 5)
          ADD_FAILURE() << kernels::isa_name(isa) << " stride " << stride << ": 0x" << std::hex
                        << std::bit_cast<uint32_t>(x[j]) << " -> 0x" << out[j * static_cast<size_t>(stride)] << ", want 0x"
                        << f32_to_f16(x[j]);
        // Between the strided elements, nothing is written.
        for (int64_t g = 1; g < stride && j + 1 < x.size(); ++g) ASSERT_EQ(out[j * static_cast<size_t>(stride) + static_cast<size_t>(g)], 0xabcd);
      }
      EXPECT_EQ(wrong, 0u) << kernels::isa_name(isa) << " stride " << stride;
    }
  }
}

TEST(Qwen3Kernels, MatmulMatchesDoubleForEveryShapeDtypeAndIsa) {
  Qwen3Weights owner;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
    for (int64_t cols : {32, 64, 96, 35, 7, 200}) {
      if (dtype == DType::Q8_0 && cols % 32 != 0) continue;
      for (int64_t rows : {1, 3, 4, 13, 70, 208, 1000}) {
        std::vector<float> wv(static_cast<size_t>(rows * cols));
        for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::sin(0.37 * static_cast<double>(i) + rows);
        const TensorView w = make_tensor(owner, "w", {rows, cols}, dtype, wv);
        for (int64_t batch : {1, 2, 3, 5, 8, 9}) {
          std::vector<float> x(static_cast<size_t>(batch * cols));
          for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.11 * static_cast<double>(i));
          const std::vector<double> xo = matmul_inputs(dtype, x);
          std::vector<double> want(static_cast<size_t>(batch * rows), 0.0);
          for (int64_t b = 0; b < batch; ++b)
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t c = 0; c < cols; ++c)
                want[b * rows + r] += double{tensor_element(w, r * cols + c)} * xo[b * cols + c];
          for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
            if (!kernels::isa_supported(isa)) continue;
            kernels::ThreadPool pool(2);
            // accumulate=true on top of 1.0 checks the residual form as well.
            std::vector<float> y(static_cast<size_t>(batch * rows), 1.0f);
            const kernels::MatmulTarget t[] = {{&w, y.data(), rows, true}};
            kernels::parallel_matmul(pool, kernels::kernel_table(isa), t, x.data(), cols, batch);
            double worst = 0.0;
            for (size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::fabs(y[i] - 1.0 - want[i]));
            EXPECT_LE(worst, 1e-4) << kernels::isa_name(isa) << " " << dtype_name(dtype) << " rows " << rows
                                   << " cols " << cols << " batch " << batch;
          }
        }
      }
    }
  }
}

// Deterministic values in [-1, 1] that are not a smooth function of the index.
float test_value(uint64_t i, uint64_t salt) {
  uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xBF58476D1CE4E5B9ull);
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  return static_cast<float>(static_cast<double>(h >> 11) / 4503599627370496.0 - 1.0);
}

std::vector<int64_t> kernel_test_cols(DType dtype) {
  // Not multiples of any vector width, one chunk short of / past a pair of chunks, and wider than
  // one span of the batched-decode panels (which then ends part-way).
  if (dtype == DType::Q8_0) return {32, 96, 160, 1056, 2080};
  return {1, 7, 9, 17, 31, 33, 100, 257, 1100, 2085};
}

TEST(Qwen3Kernels, MatmulMatchesDoubleOverOddShapesAndEveryBatchSize) {
  // Against an FP64 oracle with a bound that holds for any order of fp32 sums of `cols` products:
  // |y - exact| <= (cols + 16) * 2^-24 * sum |w x| (well above the usual error, far below the O(1)
  // errors of a wrong index, chunk or tail); (3 cols + 16) * 2^-24 * sum |w x| for bf16 on AMX.
  Qwen3Weights owner;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
    for (int64_t cols : kernel_test_cols(dtype)) {
      for (int64_t rows : {1, 2, 5, 12, 13, 37, 64}) {
        if (rows * cols > 64 * 1100) continue;  // keeps the oracle cheap
        std::vector<float> wv(static_cast<size_t>(rows * cols));
        for (size_t i = 0; i < wv.size(); ++i) wv[i] = test_value(i, 1);
        const TensorView w = make_tensor(owner, "w", {rows, cols}, dtype, wv);
        std::vector<double> wd(wv.size());
        for (size_t i = 0; i < wd.size(); ++i) wd[i] = tensor_element(w, static_cast<int64_t>(i));
        for (int64_t batch : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 33}) {
          std::vector<float> x(static_cast<size_t>(batch * cols));
          for (size_t i = 0; i < x.size(); ++i) x[i] = test_value(i, 2);
          const std::vector<double> xo = matmul_inputs(dtype, x);
          std::vector<double> want(static_cast<size_t>(batch * rows), 0.0), bound(want.size(), 0.0);
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t c = 0; c < cols; ++c) {
                const double p = wd[r * cols + c] * xo[b * cols + c];
                want[b * rows + r] += p;
                bound[b * rows + r] += std::fabs(p);
              }
            }
          }
          for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
            if (!kernels::isa_supported(isa)) continue;
            // Prompt rows take kernels of their own on AMX (KernelTable::prompt_f16_tiles).
            for (bool prompt : {false, true}) {
              if (prompt && isa != Isa::Amx) continue;
              kernels::ThreadPool pool(2);
              std::vector<float> y(static_cast<size_t>(batch * rows), -7.0f);
              const kernels::MatmulTarget t[] = {{&w, y.data(), rows, false}};
              kernels::parallel_matmul(pool, kernels::kernel_table(isa), t, x.data(), cols, batch, prompt ? 0 : -1);
              // On the tile unit, activations in three exact parts: bf16 weights make three times the
              // terms; f16 weights of prompt rows take bf16x3 products, which leave out under 2^-13
              // (2^11 x 2^-24) of each product (simd_kernels_amx.cpp).
              const double c = static_cast<double>(cols);
              double terms = c + 16;
              if (isa == Isa::Amx && dtype == DType::BF16) terms = 3 * c + 16;
              if (isa == Isa::Amx && dtype == DType::F16 && prompt) terms = c + 16 + 0x1p11;
              for (size_t i = 0; i < y.size(); ++i) {
                ASSERT_LE(std::fabs(y[i] - want[i]), terms * 0x1p-24 * bound[i])
                    << kernels::isa_name(isa) << (prompt ? " prompt " : " ") << dtype_name(dtype) << " rows " << rows
                    << " cols " << cols << " batch " << batch << " output " << i;
              }
            }
          }
        }
      }
    }
  }
}

TEST(Qwen3Kernels, MatmulResultsDoNotDependOnTheBatch) {
  // Each output is computed with the same operations whatever the batch size, kernel path (one-row
  // tiles, batched-decode panels, packed GEMM), thread count or residual form, so a row's logits are
  // bit-identical alone or in any batch. Row 0 alone is the reference for every row position. Prompt
  // rows take kernels of their own on AMX (KernelTable::prompt_f16_tiles): each kind alone, and a
  // batch of generated rows then prompt rows (one product over both), against each row alone in its
  // kind. At 33 rows of 2,100 columns, parallel_matmul packs the panels' rows over the pool, a task a slice.
  Qwen3Weights owner;
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::Q8_0}) {
    for (int64_t cols : dtype == DType::Q8_0 ? std::vector<int64_t>{96, 1056} : std::vector<int64_t>{83, 1088, 2100}) {
      const int64_t rows = 37, batch = 33;
      std::vector<float> wv(static_cast<size_t>(rows * cols)), x(static_cast<size_t>(batch * cols));
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::sin(0.7 * static_cast<double>(i));
      for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.3 * static_cast<double>(i));
      const TensorView w = make_tensor(owner, "w", {rows, cols}, dtype, wv);
      for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
        if (!kernels::isa_supported(isa)) continue;
        const std::string name = std::string(kernels::isa_name(isa)) + " " + dtype_name(dtype);
        kernels::ThreadPool one(1), two(2);
        // alone[kind]: each row in a batch of one, generated (0) and prompt (1).
        std::vector<float> alone[2];
        for (int kind : {0, 1}) {
          alone[kind].resize(static_cast<size_t>(batch * rows));
          for (int64_t b = 0; b < batch; ++b) {
            const kernels::MatmulTarget t[] = {{&w, alone[kind].data() + b * rows, rows, false}};
            kernels::parallel_matmul(one, kernels::kernel_table(isa), t, x.data() + b * cols, cols, 1, kind ? 0 : -1);
          }
        }
        for (int64_t n = 2; n <= batch; n = n < 16 ? n + 1 : n + 8) {
          for (int64_t b0 : {int64_t{0}, batch - n}) {
            // All generated, all prompts, and the first third generated, the rest prompts.
            for (int64_t prompt_begin : {n, int64_t{0}, n / 3}) {
              // accumulate=true on top of 0.0 adds the residual form: 0 + s == s for every s but -0.
              for (bool accumulate : {false, true}) {
                std::vector<float> part(static_cast<size_t>(n * rows), 0.0f);
                const kernels::MatmulTarget tp[] = {{&w, part.data(), rows, accumulate}};
                kernels::parallel_matmul(n % 2 ? one : two, kernels::kernel_table(isa), tp, x.data() + b0 * cols, cols,
                                         n, prompt_begin);
                for (int64_t i = 0; i < n * rows; ++i) {
                  const float want = alone[i / rows >= prompt_begin ? 1 : 0][b0 * rows + i];
                  if (accumulate && want == 0.0f) continue;
                  ASSERT_EQ(part[i], want) << name << " cols " << cols << " batch " << n << " from " << b0
                                           << " prompts from " << prompt_begin << " output " << i;
                }
              }
            }
          }
        }
      }
    }
  }
}

// A copy of a matrix's bytes (kept alive by owner), packed in place by `pack`: for the tile unit
// (pack_q8_tiles), in lanes (pack_q8_lanes) or in column tiles (pack_column_tiles).
TensorView packed_copy(Qwen3Weights& owner, const TensorView& t, void (*pack)(TensorView&, uint8_t*) = pack_q8_tiles) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t*>(t.data),
                                                      static_cast<const uint8_t*>(t.data) + t.bytes);
  TensorView p = t;
  p.data = bytes->data();
  pack(p, bytes->data());
  owner.storage.push_back(bytes);
  return p;
}

// The packed copy p holds w's matrix: every `step`-th element, and every row as row_data gathers it.
void expect_same_matrix(const TensorView& w, const TensorView& p, int64_t step = 1) {
  for (int64_t i = 0; i < w.elements(); i += step) ASSERT_EQ(tensor_element(p, i), tensor_element(w, i)) << i;
  std::vector<uint8_t> scratch;
  const size_t rb = row_bytes(w.dtype, w.cols());
  for (int64_t r = 0; r < w.rows(); ++r) {
    ASSERT_EQ(std::memcmp(row_data(p, r, scratch), static_cast<const uint8_t*>(w.data) + r * rb, rb), 0) << r;
  }
}

// What a Q8_0 matmul summing whole blocks gives (the tile unit's order, q8_block_dot.h; weights in
// lanes, q8_lanes.h), spelt out from the row-major matrix w: y[b * rows + r].
std::vector<float> whole_block_q8(const TensorView& w, const std::vector<float>& x, int64_t batch) {
  const int64_t rows = w.rows(), cols = w.cols(), blocks = cols / 32;
  const auto* wb = static_cast<const uint8_t*>(w.data);
  std::vector<int8_t> q(x.size());
  std::vector<float> d(x.size() / 32);
  kernels::kernel_table(Isa::Scalar).quantize_q8(x.data(), static_cast<int64_t>(x.size()), q.data(), d.data());
  std::vector<float> want(static_cast<size_t>(batch * rows));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      float acc = 0.0f;
      for (int64_t k = 0; k < blocks; ++k) {
        const uint8_t* block = wb + (r * blocks + k) * kQ8BlockBytes;
        int32_t s = 0;
        for (int i = 0; i < 32; ++i) s += int32_t{static_cast<int8_t>(block[2 + i])} * q[b * cols + k * 32 + i];
        uint16_t h;
        std::memcpy(&h, block, 2);
        acc = std::fma(f16_to_f32(h) * d[b * blocks + k], static_cast<float>(s), acc);
      }
      want[b * rows + r] = acc;
    }
  }
  return want;
}

// A copy of w whose matrices that `packs` takes are packed by `pack` (as load_model packs its copy).
std::shared_ptr<Qwen3Weights> packed_weights(const std::shared_ptr<const Qwen3Weights>& w,
                                             bool (*packs)(const TensorView&), void (*pack)(TensorView&, uint8_t*)) {
  auto packed = std::make_shared<Qwen3Weights>(*w);
  int count = 0;
  for (TensorView* t : packed->matrices()) {
    if (!packs(*t)) continue;
    *t = packed_copy(*packed, *t, pack);
    ++count;
  }
  if (w->config.tie_word_embeddings) packed->lm_head = packed->embed;  // the embedding, packed once
  EXPECT_GT(count, 0);
  return packed;
}

// A model of packed weights on every instruction set: near the FP64 reference (rel_tol) and near the
// row-major weights' logits, and a prompt's bits the same prefilled whole or in chunks of 5.
void expect_packed_model_matches(const std::shared_ptr<const Qwen3Weights>& w,
                                 const std::shared_ptr<const Qwen3Weights>& packed, const std::string& what,
                                 double rel_tol) {
  const auto tokens = random_tokens(21, w->config.vocab_size, 41);
  const auto ref = reference_logits(*w, tokens);
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    const std::string name = std::string(kernels::isa_name(isa)) + " " + what;
    Qwen3ModelOptions o = opts(1, 2, 128, 64);
    o.isa = isa;
    Qwen3Model whole(packed, o), plain(w, o);
    o.prefill_chunk = 5;
    Qwen3Model chunked(packed, o);
    const auto got = run_row(whole, 0, tokens, 21, true);
    expect_matches_reference(got, ref, 0, name, rel_tol);
    expect_close(got, run_row(plain, 0, tokens, 21, true), name + " against row-major weights",
                 std::max(rel_tol, kSelfRelTol));
    EXPECT_EQ(run_row(chunked, 0, tokens, 21, true), got) << name;
  }
}

TEST(Qwen3Kernels, Q8TilesHoldTheSameMatrixAndGiveTheSameBits) {
  // Packed for the tile unit (TensorView::q8_tiles), a Q8_0 matrix holds the same values, row by row,
  // and the AMX kernels give the bits of the row-major layout for every batch, kind and thread count.
  Qwen3Weights owner;
  for (int64_t rows : {16, 48, 64}) {
    for (int64_t cols : {32, 96, 1056}) {
      std::vector<float> wv(static_cast<size_t>(rows * cols));
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = test_value(i, 5);
      const TensorView w = make_tensor(owner, "w", {rows, cols}, DType::Q8_0, wv);
      ASSERT_TRUE(packs_q8_tiles(w));
      const TensorView p = packed_copy(owner, w);
      EXPECT_TRUE(p.q8_tiles);
      EXPECT_FALSE(packs_q8_tiles(p));  // once
      // (One block per row is the same layout either way.)
      if (cols > 32) {
        EXPECT_NE(std::memcmp(p.data, w.data, w.bytes), 0);
      }
      expect_same_matrix(w, p);
      if (HasFatalFailure()) return;
      if (!kernels::isa_supported(Isa::Amx)) continue;
      const kernels::KernelTable& amx = kernels::kernel_table(Isa::Amx);
      ASSERT_TRUE(amx.q8_weight_tiles);
      kernels::ThreadPool one(1), two(2);
      for (int64_t batch : {1, 2, 4, 5, 8, 9, 16, 17, 33}) {
        std::vector<float> x(static_cast<size_t>(batch * cols));
        for (size_t i = 0; i < x.size(); ++i) x[i] = test_value(i, 6);
        for (int64_t prompt_begin : {batch, int64_t{0}}) {
          std::vector<float> want(static_cast<size_t>(batch * rows)), got(want.size());
          const kernels::MatmulTarget tw[] = {{&w, want.data(), rows, false}};
          const kernels::MatmulTarget tp[] = {{&p, got.data(), rows, false}};
          kernels::parallel_matmul(one, amx, tw, x.data(), cols, batch, prompt_begin);
          kernels::parallel_matmul(batch % 2 ? one : two, amx, tp, x.data(), cols, batch, prompt_begin);
          ASSERT_EQ(got, want) << "rows " << rows << " cols " << cols << " batch " << batch;
        }
      }
    }
  }
  // Only Q8_0 matrices of whole tiles are packed; other kernels refuse packed weights.
  std::vector<float> v(13 * 32, 0.5f);
  EXPECT_FALSE(packs_q8_tiles(make_tensor(owner, "odd", {13, 32}, DType::Q8_0, v)));
  EXPECT_FALSE(packs_q8_tiles(make_tensor(owner, "f16", {16, 26}, DType::F16, std::vector<float>(16 * 26, 0.5f))));
  const TensorView w = make_tensor(owner, "w", {16, 32}, DType::Q8_0, std::vector<float>(16 * 32, 0.25f));
  const TensorView p = packed_copy(owner, w);
  std::vector<float> x(32, 1.0f), y(16);
  const kernels::MatmulTarget t[] = {{&p, y.data(), 16, false}};
  kernels::ThreadPool pool(1);
  EXPECT_THROW(kernels::parallel_matmul(pool, kernels::kernel_table(Isa::Scalar), t, x.data(), 32, 1),
               std::invalid_argument);
}

TEST(Qwen3Forward, PackedQ8WeightsGiveTheSameLogitsAndNeedTheTileUnit) {
  // A model whose Q8_0 matrices are packed (as load_model packs them on AMX machines): the logits of
  // the row-major weights, bit for bit; kernels without the tile unit refuse the weights up front.
  const auto w = tiny_weights(DType::Q8_0, /*tied=*/false);
  const auto packed = packed_weights(w, packs_q8_tiles, pack_q8_tiles);
  Qwen3ModelOptions scalar;
  scalar.isa = Isa::Scalar;
  try {
    Qwen3Model m(packed, scalar);
    ADD_FAILURE() << "scalar kernels took packed weights";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("tile unit"), std::string::npos) << e.what();
  }
  if (!kernels::isa_supported(Isa::Amx)) GTEST_SKIP() << "no AMX: packed weights run on the tile unit only";
  Qwen3ModelOptions amx = opts(1, 2, 128, 64);
  amx.isa = Isa::Amx;
  Qwen3Model a(w, amx), b(packed, amx);
  const auto prompt = random_tokens(9, w->config.vocab_size, 31);
  EXPECT_EQ(run_row(a, 0, prompt, 3), run_row(b, 0, prompt, 3));
  const std::vector<int32_t> next = {4, 9};
  EXPECT_EQ(run_row(a, 0, next, 2), run_row(b, 0, next, 2));
}

TEST(Qwen3Kernels, Q8LanesHoldTheSameMatrixAndSumWholeBlocksOnEveryIsa) {
  // Packed in lanes (TensorView::q8_lanes), a Q8_0 matrix holds the same values, row by row, and
  // every instruction set computes what q8_lanes.h says, spelt out here from the row-major bytes:
  // one fp32 chain per output of fma(d_w * d_x, whole-block integer sum): the tile unit's sums. Rows
  // of one tile to 13 (208: tasks of several tiles; 48: a pair of tiles and a lone one); batches
  // that fill passes of 8 rows over lone tiles (3 to 8, and 1 over rows of up to 32 blocks: 32, 96
  // and 1,024 columns) or of 4 over pairs (1-2, and above 8) partly and wholly, one slice of 64 rows
  // and more; one and two threads; plain and accumulated outputs.
  Qwen3Weights owner;
  for (int64_t cols : {32, 96, 1024, 1056, 2080}) {
    for (int64_t rows : {16, 48, 208}) {
      std::vector<float> wv(static_cast<size_t>(rows * cols));
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = test_value(i, 7);
      const TensorView w = make_tensor(owner, "w", {rows, cols}, DType::Q8_0, wv);
      ASSERT_TRUE(packs_q8_lanes(w));
      const TensorView p = packed_copy(owner, w, pack_q8_lanes);
      EXPECT_TRUE(p.q8_lanes);
      EXPECT_FALSE(packs_q8_lanes(p));  // once
      EXPECT_FALSE(packs_q8_tiles(p));
      EXPECT_NE(std::memcmp(p.data, w.data, w.bytes), 0);
      expect_same_matrix(w, p, rows * cols > 20000 ? 7 : 1);
      if (HasFatalFailure()) return;
      for (int64_t batch : {1, 2, 3, 8, 9, 16, 17, 64, 70}) {
        if (rows * batch * cols > 208 * 17 * 2080) continue;  // keeps the oracle cheap
        std::vector<float> x(static_cast<size_t>(batch * cols));
        for (size_t i = 0; i < x.size(); ++i) x[i] = 4.0f * test_value(i, 8);
        const std::vector<float> want = whole_block_q8(w, x, batch);
        for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
          if (!kernels::isa_supported(isa)) continue;
          for (bool accumulate : {false, true}) {
            kernels::ThreadPool one(1), two(2);
            std::vector<float> got(want.size(), accumulate ? 1.5f : -7.0f);
            const kernels::MatmulTarget t[] = {{&p, got.data(), rows, accumulate}};
            kernels::parallel_matmul(accumulate ? one : two, kernels::kernel_table(isa), t, x.data(), cols, batch);
            for (size_t i = 0; i < want.size(); ++i) {
              ASSERT_EQ(got[i], accumulate ? 1.5f + want[i] : want[i])
                  << kernels::isa_name(isa) << " rows " << rows << " cols " << cols << " batch " << batch << " output "
                  << i;
            }
          }
        }
      }
    }
  }
  // Only Q8_0 matrices of whole tiles are packed, and only once, in one layout.
  std::vector<float> v(13 * 32, 0.5f);
  EXPECT_FALSE(packs_q8_lanes(make_tensor(owner, "odd", {13, 32}, DType::Q8_0, v)));
  EXPECT_FALSE(packs_q8_lanes(make_tensor(owner, "f16", {16, 26}, DType::F16, std::vector<float>(16 * 26, 0.5f))));
  const TensorView tiles = packed_copy(owner, make_tensor(owner, "w", {16, 64}, DType::Q8_0, std::vector<float>(16 * 64, 0.25f)));
  EXPECT_FALSE(packs_q8_lanes(tiles));
  EXPECT_THROW(packed_copy(owner, tiles, pack_q8_lanes), std::invalid_argument);
}

TEST(Qwen3Forward, Q8WeightsInLanesMatchTheReferenceOnEveryIsa) {
  // A model whose Q8_0 matrices are packed in lanes (as load_model packs a copy where AVX-512 runs):
  // every instruction set reads them.
  const auto w = tiny_weights(DType::Q8_0, /*tied=*/false);
  expect_packed_model_matches(w, packed_weights(w, packs_q8_lanes, pack_q8_lanes), "q8_0 in lanes",
                              reference_tolerance(DType::Q8_0));
}

TEST(Qwen3Kernels, ColumnTilesHoldTheSameMatrixAndSumOneChainOnEveryIsa) {
  // Packed in column tiles (TensorView::column_tiles), an F16 or BF16 matrix holds the same values, row by row,
  // and every instruction set computes what column_tiles.h says, spelt out here: per output one
  // chain of fused multiply-adds over the columns in order. Odd widths, rows of one tile to 13 (pairs
  // of tiles and a lone one), batches that fill passes of 8 rows partly and wholly, one slice of 64
  // rows and more; one and two threads; plain and accumulated outputs.
  Qwen3Weights owner;
  for (DType dtype : {DType::F16, DType::BF16}) {
    for (int64_t cols : {1, 2, 7, 33, 100, 1100, 2085}) {
      for (int64_t rows : {16, 48, 208}) {
        std::vector<float> wv(static_cast<size_t>(rows * cols));
        for (size_t i = 0; i < wv.size(); ++i) wv[i] = test_value(i, 9);
        const TensorView w = make_tensor(owner, "w", {rows, cols}, dtype, wv);
        ASSERT_TRUE(packs_column_tiles(w));
        const TensorView p = packed_copy(owner, w, pack_column_tiles);
        EXPECT_TRUE(p.column_tiles);
        EXPECT_FALSE(packs_column_tiles(p));  // once
        if (cols > 1) {
          EXPECT_NE(std::memcmp(p.data, w.data, w.bytes), 0);
        }
        expect_same_matrix(w, p);
        if (HasFatalFailure()) return;
        for (int64_t batch : {1, 2, 3, 8, 9, 16, 17, 64, 70}) {
          if (rows * batch * cols > 208 * 17 * 2085) continue;  // keeps the oracle cheap
          std::vector<float> x(static_cast<size_t>(batch * cols));
          for (size_t i = 0; i < x.size(); ++i) x[i] = test_value(i, 10);
          std::vector<float> want(static_cast<size_t>(batch * rows));
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t r = 0; r < rows; ++r) {
              float chain = 0.0f;
              for (int64_t c = 0; c < cols; ++c) chain = std::fma(tensor_element(w, r * cols + c), x[b * cols + c], chain);
              want[b * rows + r] = chain;
            }
          }
          for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
            if (!kernels::isa_supported(isa)) continue;
            for (bool accumulate : {false, true}) {
              for (int64_t prompt_begin : {batch, int64_t{0}}) {  // generated rows, prompt rows (AMX: one kernel)
                kernels::ThreadPool one(1), two(2);
                std::vector<float> got(want.size(), accumulate ? 1.5f : -7.0f);
                const kernels::MatmulTarget t[] = {{&p, got.data(), rows, accumulate}};
                kernels::parallel_matmul(accumulate ? one : two, kernels::kernel_table(isa), t, x.data(), cols, batch,
                                         prompt_begin);
                for (size_t i = 0; i < want.size(); ++i) {
                  ASSERT_EQ(got[i], accumulate ? 1.5f + want[i] : want[i])
                      << kernels::isa_name(isa) << " " << dtype_name(dtype) << " rows " << rows << " cols " << cols
                      << " batch " << batch << " output " << i;
                }
              }
            }
          }
        }
      }
    }
  }
  std::vector<float> v(13 * 32, 0.5f);
  EXPECT_FALSE(packs_column_tiles(make_tensor(owner, "odd", {13, 32}, DType::F16, v)));
  EXPECT_FALSE(packs_column_tiles(make_tensor(owner, "odd bf16", {13, 32}, DType::BF16, v)));
  EXPECT_FALSE(packs_column_tiles(make_tensor(owner, "f32", {16, 26}, DType::F32, std::vector<float>(16 * 26, 0.5f))));
  EXPECT_THROW(packed_copy(owner, make_tensor(owner, "q8", {16, 32}, DType::Q8_0, std::vector<float>(16 * 32, 0.5f)), pack_column_tiles),
               std::invalid_argument);
}

TEST(Qwen3Kernels, ColumnTilesComputeAnyRangeOfRowsOfTheirPairs) {
  // A pair of tiles is one stream (each column its 32 rows), the odd last tile alone: the kernels
  // take a task's rows wherever they begin and end, half a pair, a row on each side of a pair's
  // middle, the odd tile alone, and store those rows only.
  Qwen3Weights owner;
  const int64_t rows = 48, cols = 37;
  std::vector<float> wv(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = test_value(i, 11);
  for (DType dtype : {DType::F16, DType::BF16}) {
    const TensorView w = make_tensor(owner, "w", {rows, cols}, dtype, wv);
    const TensorView p = packed_copy(owner, w, pack_column_tiles);
    EXPECT_EQ(tensor_element(p, 17 * cols + 3), tensor_element(w, 17 * cols + 3));
    const auto* stored = static_cast<const uint16_t*>(p.data);  // row 17's column 3: the pair's 32-value column
    EXPECT_EQ(stored[3 * 32 + 17], static_cast<const uint16_t*>(w.data)[17 * cols + 3]);
    EXPECT_EQ(stored[32 * cols + 2 * 16 + 5], static_cast<const uint16_t*>(w.data)[37 * cols + 2]);  // the odd tile's
    for (int64_t batch : {1, 3, 9}) {
      std::vector<float> x(static_cast<size_t>(batch * cols));
      for (size_t i = 0; i < x.size(); ++i) x[i] = test_value(i, 12);
      for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, 16}, {16, 32}, {16, 48}, {32, 48}, {8, 40}, {31, 33}, {0, 48}}) {
        for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
          if (!kernels::isa_supported(isa)) continue;
          std::vector<float> got(static_cast<size_t>(batch * rows), -7.0f);
          kernels::MatmulArgs a;
          a.dtype = dtype;
          a.w = static_cast<const uint8_t*>(p.data);
          a.w_row_bytes = row_bytes(dtype, cols);
          a.w_columns = true;
          a.w_rows = rows;
          a.cols = cols;
          a.x = x.data();
          a.ldx = cols;
          a.batch = batch;
          a.y = got.data();
          a.ldy = rows;
          kernels::kernel_table(isa).matmul_rows(a, begin, end);
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t r = 0; r < rows; ++r) {
              float want = -7.0f;
              if (r >= begin && r < end) {
                want = 0.0f;
                for (int64_t c = 0; c < cols; ++c) want = std::fma(tensor_element(w, r * cols + c), x[b * cols + c], want);
              }
              ASSERT_EQ(got[b * rows + r], want) << kernels::isa_name(isa) << " " << dtype_name(dtype) << " rows ["
                                                 << begin << ", " << end << ") batch " << batch << " row " << r;
            }
          }
        }
      }
    }
  }
}

TEST(Qwen3Forward, F16WeightsInColumnTilesMatchTheReferenceOnEveryIsa) {
  // A model whose F16 matrices are packed in column tiles (as load_model packs a copy where AVX-512
  // runs), its tied head the packed embedding: every instruction set reads them.
  const auto w = tiny_weights(DType::F16, /*tied=*/true);
  const auto packed = packed_weights(w, packs_column_tiles, pack_column_tiles);
  ASSERT_TRUE(packed->embed.column_tiles);
  ASSERT_TRUE(packed->lm_head.column_tiles);
  expect_packed_model_matches(w, packed, "f16 in column tiles", kRelTol);
}

TEST(Qwen3Forward, Bf16WeightsInColumnTilesMatchTheReferenceOnEveryIsa) {
  // The same for a BF16 model (as load_model packs a safetensors folder's copy where AVX-512 runs).
  const auto w = tiny_weights(DType::BF16, /*tied=*/true);
  const auto packed = packed_weights(w, packs_column_tiles, pack_column_tiles);
  ASSERT_TRUE(packed->embed.column_tiles);
  ASSERT_TRUE(packed->layers[0].down_proj.column_tiles);
  expect_packed_model_matches(w, packed, "bf16 in column tiles", kRelTol);
}

TEST(Qwen3Kernels, TargetsOfMixedDtypesKeepEachRowsBitsInAMixedBatch) {
  // One call with a BF16 target and an F16 one over a batch of generated rows then prompt rows: on
  // AMX the BF16 kernel reads every row's bf16 parts and the F16 one only the prompt rows', so the
  // call runs each kind on its own; every output still equals its row alone in its kind.
  Qwen3Weights owner;
  const int64_t rows = 40, cols = 96, batch = 21, prompt_begin = 7;
  std::vector<float> wv(static_cast<size_t>(rows * cols)), x(static_cast<size_t>(batch * cols));
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::sin(0.37 * static_cast<double>(i));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.11 * static_cast<double>(i));
  const TensorView wb = make_tensor(owner, "wb", {rows, cols}, DType::BF16, wv);
  const TensorView wf = make_tensor(owner, "wf", {rows, cols}, DType::F16, wv);
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    kernels::ThreadPool pool(2);
    std::vector<float> yb(static_cast<size_t>(batch * rows)), yf(yb.size());
    const kernels::MatmulTarget both[] = {{&wb, yb.data(), rows, false}, {&wf, yf.data(), rows, false}};
    kernels::parallel_matmul(pool, kernels::kernel_table(isa), both, x.data(), cols, batch, prompt_begin);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<float> ab(static_cast<size_t>(rows)), af(ab.size());
      const kernels::MatmulTarget one[] = {{&wb, ab.data(), rows, false}, {&wf, af.data(), rows, false}};
      kernels::parallel_matmul(pool, kernels::kernel_table(isa), one, x.data() + b * cols, cols, 1,
                               b >= prompt_begin ? 0 : -1);
      for (int64_t r = 0; r < rows; ++r) {
        ASSERT_EQ(yb[b * rows + r], ab[r]) << kernels::isa_name(isa) << " bf16 row " << b << " output " << r;
        ASSERT_EQ(yf[b * rows + r], af[r]) << kernels::isa_name(isa) << " f16 row " << b << " output " << r;
      }
    }
  }
}

TEST(Qwen3Kernels, SiluMatchesDoubleAndAnElementsBitsDoNotDependOnWhereItSits) {
  // The MLP gate silu(g) u against an FP64 oracle, within 2^-21 of the result (a few ulp) or 1e-30
  // (g below -87, where exp(g) is taken as 0), over special and random values; NaN stays NaN and
  // +inf gives inf u. Then every element of a row gets the same bits in any slice of it (vector
  // body or padded tail), at every instruction set.
  std::vector<float> g = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-8f, -1e-8f, 0.5f, -0.5f, 1.0f, -1.0f, 3.0f, -3.0f,
                          10.0f, -10.0f, 20.0f, -20.0f, 50.0f, -50.0f, 80.0f, -80.0f, 86.9f, -86.9f, 87.5f,
                          -87.5f, 89.0f, -89.0f, 100.0f, -100.0f, 1e4f, -1e4f, 3e38f, -3e38f};
  for (size_t i = 0; i < 1000; ++i) g.push_back(30.0f * test_value(i, 8));
  std::vector<float> u(g.size());
  for (size_t i = 0; i < u.size(); ++i) u[i] = i % 7 == 0 ? 1.0f : 2.0f * test_value(i, 9);
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    const kernels::KernelTable& k = kernels::kernel_table(isa);
    std::vector<float> y = g;
    k.silu_mul(y.data(), u.data(), static_cast<int64_t>(y.size()));
    for (size_t i = 0; i < g.size(); ++i) {
      const double gd = g[i];
      const double want = gd / (1.0 + std::exp(-gd)) * u[i];
      ASSERT_LE(std::fabs(y[i] - want), std::max(0x1p-21 * std::fabs(want), 1e-30))
          << kernels::isa_name(isa) << " g " << g[i] << " u " << u[i];
    }
    float special[] = {std::nanf(""), INFINITY};
    const float ones[] = {1.0f, 2.0f};
    k.silu_mul(special, ones, 2);
    EXPECT_TRUE(std::isnan(special[0])) << kernels::isa_name(isa);
    EXPECT_EQ(special[1], INFINITY) << kernels::isa_name(isa);
    for (int64_t begin : {0, 1, 5, 17}) {
      for (int64_t n = 1; n <= 40; ++n) {
        std::vector<float> part(g.begin() + begin, g.begin() + begin + n);
        k.silu_mul(part.data(), u.data() + begin, n);
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(std::memcmp(&part[i], &y[begin + i], 4), 0)
              << kernels::isa_name(isa) << " element " << begin + i << " in a slice of " << n << " from " << begin;
        }
      }
    }
  }
}

TEST(Qwen3Kernels, Q8ActivationsAreTheNearestStepsOfTheirBlock) {
  // Blocks of 32: wide random values, one all zero, one tiny, and one whose step is exactly 1 (its
  // largest value is 127) holding exact halves, which round to even.
  std::vector<float> x(32 * 6);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 3.0f * test_value(i, 5);
  for (size_t i = 32; i < 64; ++i) x[i] = 0.0f;
  for (size_t i = 64; i < 96; ++i) x[i] = 1e-30f * test_value(i, 6);
  const float halves[] = {127.0f, 2.5f, 3.5f, -2.5f, -3.5f, 0.5f, -0.5f, 126.5f, -126.5f, 1.5f};
  const int8_t even[] = {127, 2, 4, -2, -4, 0, 0, 126, -126, 2};
  for (size_t i = 96; i < 128; ++i) x[i] = i - 96 < std::size(halves) ? halves[i - 96] : 0.25f;
  std::vector<int8_t> first_q;
  std::vector<float> first_d;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Amx}) {
    if (!kernels::isa_supported(isa)) continue;
    std::vector<int8_t> q(x.size(), 99);
    std::vector<float> d(x.size() / 32, -1.0f);
    kernels::kernel_table(isa).quantize_q8(x.data(), static_cast<int64_t>(x.size()), q.data(), d.data());
    for (size_t b = 0; b < d.size(); ++b) {
      float amax = 0.0f;
      for (size_t i = 32 * b; i < 32 * b + 32; ++i) amax = std::max(amax, std::fabs(x[i]));
      ASSERT_EQ(d[b], amax / 127.0f) << kernels::isa_name(isa) << " block " << b;
      for (size_t i = 32 * b; i < 32 * b + 32; ++i) {
        ASSERT_LE(std::abs(int{q[i]}), 127);
        // Within half a step (and a rounding of the reciprocal) of x; the largest value is +-127.
        ASSERT_LE(std::fabs(double{x[i]} - double{d[b]} * q[i]), 0.5 * d[b] * (1 + 1e-6)) << kernels::isa_name(isa) << " " << i;
        if (amax > 0.0f && std::fabs(x[i]) == amax) {
          EXPECT_EQ(std::abs(int{q[i]}), 127);
        }
      }
    }
    EXPECT_EQ(d[1], 0.0f);
    for (size_t i = 32; i < 64; ++i) EXPECT_EQ(q[i], 0);
    for (size_t i = 0; i < std::size(even); ++i) EXPECT_EQ(q[96 + i], even[i]) << kernels::isa_name(isa) << " " << halves[i];
    if (first_q.empty()) {
      first_q = q;
      first_d = d;
    } else {
      EXPECT_EQ(q, first_q) << kernels::isa_name(isa);
      EXPECT_EQ(std::memcmp(d.data(), first_d.data(), d.size() * sizeof(float)), 0) << kernels::isa_name(isa);
    }
  }
}

TEST(Qwen3Kernels, Q8MatmulGivesTheSameBitsOnEveryIsa) {
  // Block dot products are exact integers and the accumulation order is fixed (q8_block_dot.h), so
  // the scalar, AVX2 and AVX-512 kernels agree bit for bit, in every path (tiles, panels, slices).
  // The tile unit (AMX) accumulates whole-block sums in one chain per output instead; it must give
  // exactly what that rule, spelt out here, gives. Rows from 7 (fewer than a tile) to 61 (tiles and
  // an overlapping last one), and 125 and 200, whose tasks of 32 and 64 rows take decode batches'
  // tiles in pairs (columns_tiles<N, 2>) before a single or overlapping last one; batches that fill groups
  // of 16 activation rows partly and wholly.
  if (!kernels::isa_supported(Isa::Avx2)) GTEST_SKIP() << "only the scalar kernels run here";
  Qwen3Weights owner;
  for (int64_t cols : {32, 96, 1056, 2080}) {
    for (int64_t rows : {7, 29, 61, 125, 200}) {
      std::vector<float> wv(static_cast<size_t>(rows * cols));
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = test_value(i, 3);
      const TensorView w = make_tensor(owner, "w", {rows, cols}, DType::Q8_0, wv);
      for (int64_t batch : {1, 2, 3, 5, 9, 16, 17, 40}) {
        std::vector<float> x(static_cast<size_t>(batch * cols));
        for (size_t i = 0; i < x.size(); ++i) x[i] = 4.0f * test_value(i, 4);
        std::vector<std::vector<float>> y;
        for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512}) {
          if (!kernels::isa_supported(isa)) continue;
          kernels::ThreadPool pool(2);
          y.emplace_back(static_cast<size_t>(batch * rows), -7.0f);
          const kernels::MatmulTarget t[] = {{&w, y.back().data(), rows, false}};
          kernels::parallel_matmul(pool, kernels::kernel_table(isa), t, x.data(), cols, batch);
          ASSERT_EQ(std::memcmp(y.back().data(), y.front().data(), y.front().size() * sizeof(float)), 0)
              << kernels::isa_name(isa) << " cols " << cols << " batch " << batch;
        }
        if (!kernels::isa_supported(Isa::Amx)) continue;
        const std::vector<float> want = whole_block_q8(w, x, batch);
        for (bool accumulate : {false, true}) {
          kernels::ThreadPool pool(2);
          std::vector<float> got(want.size(), accumulate ? 1.5f : -7.0f);
          const kernels::MatmulTarget t[] = {{&w, got.data(), rows, accumulate}};
          kernels::parallel_matmul(pool, kernels::kernel_table(Isa::Amx), t, x.data(), cols, batch);
          for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(got[i], accumulate ? 1.5f + want[i] : want[i])
                << "amx rows " << rows << " cols " << cols << " batch " << batch << " output " << i;
          }
        }
      }
    }
  }
}

TEST(Qwen3Kernels, ThreadPoolRunsEveryTaskOnce) {
  for (int threads : {1, 2, 4}) {
    kernels::ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int round = 0; round < 200; ++round) {
      const int64_t tasks = round % 37;
      std::vector<std::atomic<int>> hits(static_cast<size_t>(tasks));
      pool.run(tasks, [&](int64_t t, int worker) {
        EXPECT_GE(worker, 0);
        EXPECT_LT(worker, threads);
        hits[t].fetch_add(1);
      });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    }
  }
}

// ---- timing (not a unit test: run with --gtest_also_run_disabled_tests) ----
//   NINFER_BENCH_DTYPE=bf16|f16|f32|q8_0  NINFER_BENCH_THREADS=n  NINFER_BENCH_STEPS=n
//   NINFER_BENCH_BATCHES=1,4,8,16 (decode batch sizes, default 1,8)
TEST(Qwen3ForwardBench, DISABLED_Qwen3_0_6B_Decode) {
  Qwen3Config c;  // the defaults are Qwen3-0.6B's shape
  c.max_position_embeddings = 4096;
  const char* dt = std::getenv("NINFER_BENCH_DTYPE");
  const std::string dts = dt ? dt : "bf16";
  RandomWeightsOptions o;
  o.dtype = dts == "f16" ? DType::F16 : dts == "f32" ? DType::F32 : dts == "q8_0" ? DType::Q8_0 : DType::BF16;
  o.norm_dtype = DType::F32;
  const char* th = std::getenv("NINFER_BENCH_THREADS");
  const char* st = std::getenv("NINFER_BENCH_STEPS");
  const int steps = st ? std::atoi(st) : 16;
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  const auto w = make_random_qwen3_weights(c, o);
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  std::printf("built random 0.6B %s weights in %.0f ms\n", dtype_name(o.dtype), ms(t0, Clock::now()));
  Qwen3ModelOptions mo;
  std::vector<int> batches;
  const char* bs = std::getenv("NINFER_BENCH_BATCHES");
  for (const char* p = bs ? bs : "1,8"; *p;) {
    char* end = nullptr;
    batches.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    p = *end ? end + 1 : end;
  }
  const int max_batch = *std::max_element(batches.begin(), batches.end());
  mo.slots = max_batch;
  mo.max_context = 1024;
  mo.threads = th ? std::atoi(th) : 0;
  Qwen3Model m(w, mo);
  std::printf("isa %s, threads %d\n", kernels::isa_name(m.isa()), m.threads());
  const int vocab = m.vocab_size();
  std::vector<float> logits(static_cast<size_t>(max_batch) * vocab);

  // CPU time of the whole process next to the wall time: on a shared machine the wall time also counts
  // the time other programs held our cores (the workers' spinning counts as CPU time, though).
  auto cpu_ms = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
  };
  const auto prompt = random_tokens(64, vocab, 1);
  t0 = Clock::now();
  double c0 = cpu_ms();
  run_row(m, 0, prompt, 1);
  std::printf("prefill 64 tokens: %.1f ms (%.2f ms/token), cpu %.1f ms\n", ms(t0, Clock::now()),
              ms(t0, Clock::now()) / 64, cpu_ms() - c0);

  for (int batch : batches) {
    for (int s = 0; s < batch; ++s) {
      m.truncate_slot(s, 0);
      run_row(m, s, std::span(prompt).first(16), 1);
    }
    std::vector<std::vector<int32_t>> tok(static_cast<size_t>(batch), std::vector<int32_t>{1});
    std::vector<ForwardRow> rows;
    for (int s = 0; s < batch; ++s) rows.push_back({s, tok[s], 1});
    m.forward(rows, logits);  // warm-up
    t0 = Clock::now();
    c0 = cpu_ms();
    for (int i = 0; i < steps; ++i) m.forward(rows, logits);
    const double per_step = ms(t0, Clock::now()) / steps;
    std::printf("decode B=%d: %.1f ms/step, %.1f ms/token, %.1f tokens/s, cpu %.1f ms/step\n", batch, per_step,
                per_step / batch, 1000.0 * batch / per_step, (cpu_ms() - c0) / steps);
  }
}

}  // namespace
}  // namespace ninfer::models::testing
