// The Engine over the real Qwen3 forward pass (random weights with the real vocabulary, every
// dtype): chunked prefill and the prefix cache change nothing in what is generated, at temperature
// 0 and with seeded sampling, nor does speculative decoding at temperature 0, because the kernels compute each position the same way however the
// positions are grouped (and a restored prefix is the very bytes the first request computed).
#include <gtest/gtest.h>

#include <numeric>

#include "models/qwen3/qwen3_model.h"
#include "models/random_weights.h"
#include "runtime/engine_impl.h"
#include "runtime/runtime_test_support.h"

namespace ninfer {
namespace {

using models::DType;

std::shared_ptr<const models::qwen3::Qwen3Weights> weights(DType dtype) {
  models::qwen3::Qwen3Config c = models::testing::tiny_qwen3_config();
  c.vocab_size = static_cast<int64_t>(testing::qwen3_tokenizer()->vocab_size() + 64) / 64 * 64;
  c.max_position_embeddings = 1024;
  c.head_dim = 32;  // a shape the AMX prompt attention takes (16 falls back to the vector kernel)
  models::testing::RandomWeightsOptions o;
  o.dtype = dtype;
  o.seed = 7;
  return models::testing::make_random_qwen3_weights(c, o);
}

std::shared_ptr<models::qwen3::Qwen3Model> model(std::shared_ptr<const models::qwen3::Qwen3Weights> w) {
  models::qwen3::Qwen3ModelOptions mo;
  mo.slots = 4;
  mo.max_context = 1024;
  mo.threads = 2;
  mo.tokenizer = testing::qwen3_tokenizer();
  return std::make_shared<models::qwen3::Qwen3Model>(std::move(w), mo);
}

std::unique_ptr<EngineImpl> engine(std::shared_ptr<const models::qwen3::Qwen3Weights> w, bool cache, int step,
                                   int while_decoding, SpeculativeMethod speculative = SpeculativeMethod::None,
                                   std::shared_ptr<models::LanguageModel> draft = nullptr) {
  EngineOptions o;
  o.max_batch_rows = 4;
  o.max_context = 1024;
  o.max_step_tokens = step;
  o.prefill_tokens_while_decoding = while_decoding;
  o.prefix_cache_bytes = cache ? (size_t(64) << 20) : 0;
  o.prefix_cache_block_tokens = 16;
  o.speculative = speculative;
  o.draft_cost_check = false;  // the tests check what drafting does, not when it pays
  if (speculative == SpeculativeMethod::Draft) o.max_draft_tokens = 3;
  return std::make_unique<EngineImpl>(model(std::move(w)), o, runtime::ModelChatTemplates{}, std::move(draft));
}

PreparedPrompt prompt(int n, int32_t first) {
  PreparedPrompt p;
  p.tokens.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) p.tokens[i] = (first + 37 * i) % 150000;
  return p;
}

PreparedPrompt with_suffix(PreparedPrompt p, int n, int32_t first) {
  const PreparedPrompt s = prompt(n, first);
  p.tokens.insert(p.tokens.end(), s.tokens.begin(), s.tokens.end());
  return p;
}

RequestOptions options(float temperature, uint64_t seed) {
  RequestOptions r;
  r.sampling.temperature = temperature;
  r.sampling.seed = seed;
  r.max_tokens = 12;
  r.ignore_eos = true;
  return r;
}

class Qwen3EngineDtype : public ::testing::TestWithParam<DType> {};

TEST_P(Qwen3EngineDtype, PrefixCacheAndChunkingGiveIdenticalOutputs) {
  const auto w = weights(GetParam());
  auto plain = engine(w, false, 512, 512);       // every prompt in one step, nothing reused
  auto cached = engine(w, true, 512, 512);       // shared blocks restored
  auto chunked = engine(w, true, 7, 3);          // prompts in pieces of 3..7 positions, and restored
  const PreparedPrompt system = prompt(53, 11);  // 3 whole blocks + 5
  for (int turn = 0; turn < 3; ++turn) {
    const PreparedPrompt p = with_suffix(system, 4 + turn, 900 + turn);
    for (float temperature : {0.0f, 1.0f}) {
      const GenerationResult want = plain->submit(p, options(temperature, 5 + turn)).wait();
      ASSERT_EQ(want.finish_reason, FinishReason::Length) << want.error_message;
      const GenerationResult a = cached->submit(p, options(temperature, 5 + turn)).wait();
      const GenerationResult b = chunked->submit(p, options(temperature, 5 + turn)).wait();
      EXPECT_EQ(a.tokens, want.tokens) << "cached, turn " << turn << " temperature " << temperature;
      EXPECT_EQ(b.tokens, want.tokens) << "chunked, turn " << turn << " temperature " << temperature;
      if (turn > 0) {
        EXPECT_EQ(a.usage.cached_tokens, 48);
        EXPECT_EQ(b.usage.cached_tokens, 48);
      }
    }
  }
  EXPECT_GT(chunked->stats().prompt_chunks, 0u);
  EXPECT_EQ(cached->stats().prefix_cache_misses, 1u);
}

// Four requests of 5-70 prompt tokens submitted together to `shared` each generate the tokens they
// generate alone (seeded sampling at temperature 1).
void expect_requests_together_as_alone(const std::shared_ptr<const models::qwen3::Qwen3Weights>& w, EngineImpl& shared) {
  auto alone = engine(w, false, 512, 512);
  std::vector<PreparedPrompt> prompts = {prompt(5, 1), prompt(40, 2), prompt(9, 3), prompt(70, 4)};
  std::vector<GenerationResult> want;
  for (size_t i = 0; i < prompts.size(); ++i) want.push_back(alone->submit(prompts[i], options(1.0f, i)).wait());
  shared.hold_admission(true);
  std::vector<RequestHandle> handles;
  for (size_t i = 0; i < prompts.size(); ++i) handles.push_back(shared.submit(prompts[i], options(1.0f, i)));
  shared.hold_admission(false);
  for (size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(handles[i].wait().tokens, want[i].tokens) << "request " << i;
}

TEST_P(Qwen3EngineDtype, ConcurrentRowsWithPromptChunksDecodeAsTheyWouldAlone) {
  auto shared = engine(weights(GetParam()), false, 16, 3);
  expect_requests_together_as_alone(weights(GetParam()), *shared);
  EXPECT_GT(shared->stats().prompt_chunks, 0u);
}

TEST_P(Qwen3EngineDtype, PromptsThroughTheirLayersOverSeveralStepsDecodeAsTheyWouldAlone) {
  // Beside decoding rows, a step's prompt work is fixed at 5 positions times layers: what is left of
  // the prompts once rows decode goes in chunks of 5 positions through one of the 2 layers a step
  // (ForwardRow::layers), one such chunk a step, the others waiting; a chunk still going when no
  // row decodes any more takes what is left of its layers at once.
  const auto w = weights(GetParam());
  auto shared = engine(w, false, 64, 16);
  shared->fix_prompt_work(5);
  expect_requests_together_as_alone(w, *shared);
  EXPECT_GT(shared->stats().prompt_layer_steps, 10u);
  // Two long prompts arriving together beside a decoding row: one goes through part of the layers
  // at a time, the other waits or takes whole chunks.
  auto alone = engine(w, false, 512, 512);
  const PreparedPrompt runner = prompt(6, 5), p1 = prompt(50, 6), p2 = prompt(60, 7);
  RequestHandle r = shared->submit(runner, options(1.0f, 20));
  ASSERT_TRUE(r.next());
  shared->hold_admission(true);
  RequestHandle h1 = shared->submit(p1, options(1.0f, 21)), h2 = shared->submit(p2, options(1.0f, 22));
  shared->hold_admission(false);
  EXPECT_EQ(r.wait().tokens, alone->submit(runner, options(1.0f, 20)).wait().tokens);
  EXPECT_EQ(h1.wait().tokens, alone->submit(p1, options(1.0f, 21)).wait().tokens);
  EXPECT_EQ(h2.wait().tokens, alone->submit(p2, options(1.0f, 22)).wait().tokens);
}

// Speculative decoding verifies K+1 positions in one forward; each position's logits are the bits
// plain decoding computes for it, so at temperature 0 the output is plain decoding's, token for
// token, with every proposer.
TEST_P(Qwen3EngineDtype, SpeculativeGreedyOutputIsPlainDecodings) {
  const auto w = weights(GetParam());
  auto plain = engine(w, false, 512, 512);
  auto grammar = engine(w, false, 512, 512, SpeculativeMethod::Grammar);
  auto ngram = engine(w, false, 512, 512, SpeculativeMethod::NGram);
  const std::string schema =
      R"({"type":"object","properties":{"identifier":{"type":"integer"},"description":{"type":"string","maxLength":6},)"
      R"("status":{"enum":["active","inactive"]}},"required":["identifier","description","status"],"additionalProperties":false})";
  RequestOptions constrained = options(0.0f, 3);
  constrained.ignore_eos = false;
  constrained.max_tokens = 40;
  constrained.constraint = OutputConstraint::json_schema(schema);
  RequestOptions free_text = options(0.0f, 3);
  free_text.max_tokens = 24;
  PreparedPrompt looping = prompt(6, 1);
  for (int i = 0; i < 4; ++i) looping.tokens.insert(looping.tokens.end(), looping.tokens.begin(), looping.tokens.begin() + 6);
  for (const RequestOptions& o : {constrained, free_text}) {
    const GenerationResult want = plain->submit(looping, o).wait();
    ASSERT_NE(want.finish_reason, FinishReason::Error) << want.error_message;
    for (EngineImpl* e : {grammar.get(), ngram.get()}) {
      const GenerationResult got = e->submit(looping, o).wait();
      EXPECT_EQ(got.tokens, want.tokens) << (o.constraint ? "constrained" : "free text");
    }
  }
  EXPECT_GT(grammar->stats().draft_tokens, 0u);  // the schema's keys are forced
}

// The target as its own draft model: the draft computes each position's logits as the target does
// (the same kernels, one position at a time against K+1 at once, bit for bit), so every greedy
// draft of a free text is accepted.
TEST_P(Qwen3EngineDtype, TheTargetAsItsOwnDraftModelHasEveryGreedyDraftAccepted) {
  const auto w = weights(GetParam());
  auto plain = engine(w, false, 512, 512);
  auto drafted = engine(w, false, 512, 512, SpeculativeMethod::Draft, model(w));
  RequestOptions free_text = options(0.0f, 3);
  free_text.max_tokens = 20;
  const GenerationResult want = plain->submit(prompt(9, 5), free_text).wait();
  const GenerationResult got = drafted->submit(prompt(9, 5), free_text).wait();
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_GT(got.drafts.drafted, 10u);
  EXPECT_EQ(got.drafts.accepted, got.drafts.drafted);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, Qwen3EngineDtype, ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(models::dtype_name(info.param)); });

}  // namespace
}  // namespace ninfer
