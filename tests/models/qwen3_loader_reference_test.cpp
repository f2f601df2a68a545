// The end-to-end check of the loaders: the make-model tiny preset (full 151936-token
// vocabulary) loaded through the safetensors folder and through GGUF (f16 and q8_0), run by
// Qwen3Model for a prefill and then decode steps, against the FP64 reference forward pass on the very
// weights that loader produced (so the GGUF comparisons use the quantised values themselves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/model_format_test_support.h"
#include "models/qwen3/qwen3_loader.h"
#include "models/qwen3/qwen3_model.h"
#include "models/qwen3_reference.h"

namespace ninfer::models::testing {
namespace {

// |logit - reference| <= kRelTol * max|reference logits of that position| + kAbsTol. Both sides read
// the same stored values; the difference is the engine's fp32 accumulation (observed about 4e-7
// relative on this model, the same bound as the forward-pass tests).
constexpr double kRelTol = 2e-5;
constexpr double kAbsTol = 1e-6;

struct EngineRun {
  std::vector<int32_t> tokens;            // prompt + fed decode tokens
  std::vector<std::vector<float>> logits;  // one row per position of `tokens`
};

// Prefill `prompt` asking for every position's logits, then `steps` greedy decode steps.
EngineRun run_engine(const std::shared_ptr<const qwen3::Qwen3Weights>& w, std::vector<int32_t> prompt, int steps) {
  qwen3::Qwen3ModelOptions o;
  o.slots = 1;
  o.max_context = 64;
  o.threads = 2;
  qwen3::Qwen3Model model(w, o);
  const size_t vocab = static_cast<size_t>(model.vocab_size());
  EngineRun run;
  run.tokens = prompt;
  std::vector<float> out(prompt.size() * vocab);
  const ForwardRow row{0, prompt, static_cast<int>(prompt.size())};
  model.forward({&row, 1}, out);
  for (size_t p = 0; p < prompt.size(); ++p) run.logits.emplace_back(out.begin() + static_cast<std::ptrdiff_t>(p * vocab), out.begin() + static_cast<std::ptrdiff_t>((p + 1) * vocab));
  for (int s = 0; s < steps; ++s) {
    const std::vector<float>& last = run.logits.back();
    const auto next = static_cast<int32_t>(std::max_element(last.begin(), last.end()) - last.begin());
    run.tokens.push_back(next);
    std::vector<float> step(vocab);
    const int32_t tok[1] = {next};
    const ForwardRow r{0, tok, 1};
    model.forward({&r, 1}, step);
    run.logits.push_back(std::move(step));
  }
  return run;
}

void expect_matches_reference(const std::string& label, const std::shared_ptr<const qwen3::Qwen3Weights>& w,
                              const std::vector<int32_t>& prompt, double rel_tol = kRelTol) {
  constexpr int kSteps = 4;
  const EngineRun run = run_engine(w, prompt, kSteps);
  // The reference over the whole sequence gives every prefix's logits (causal attention).
  const auto ref = reference_logits(*w, run.tokens);
  ASSERT_EQ(ref.size(), run.logits.size());
  double worst_ratio = 0;
  for (size_t p = 0; p < ref.size(); ++p) {
    double scale = 0, worst = 0;
    for (double x : ref[p]) scale = std::max(scale, std::fabs(x));
    for (size_t i = 0; i < ref[p].size(); ++i) worst = std::max(worst, std::fabs(run.logits[p][i] - ref[p][i]));
    const bool decode = p >= prompt.size();
    EXPECT_LE(worst, rel_tol * scale + kAbsTol)
        << label << ": " << (decode ? "decode step " + std::to_string(p - prompt.size() + 1) : "prefill position " + std::to_string(p));
    worst_ratio = std::max(worst_ratio, worst / scale);
  }
  std::printf("[ reference ] %s: %zu prefill + %d decode positions, worst |diff| / max|logit| = %.2e\n", label.c_str(), prompt.size(),
              kSteps, worst_ratio);
}

std::vector<int32_t> prompt_ids(const tokenizer::Tokenizer& tok) {
  return tok.encode("<|im_start|>user\nName three prime numbers.<|im_end|>\n<|im_start|>assistant\n");
}

TEST(Qwen3LoaderReference, SafetensorsBf16MatchesReference) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto loaded = qwen3::load_hf_folder(generated_tiny_model(DType::BF16, DType::Q8_0).dir);
  expect_matches_reference("safetensors bf16", loaded.weights, prompt_ids(*loaded.tokenizer));
}

TEST(Qwen3LoaderReference, GgufF16MatchesReference) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto loaded = qwen3::load_gguf(generated_tiny_model(DType::BF16, DType::F16).gguf);
  ASSERT_EQ(loaded.weights->layers[0].q_proj.dtype, DType::F16);
  expect_matches_reference("gguf f16", loaded.weights, prompt_ids(*loaded.tokenizer));
}

TEST(Qwen3LoaderReference, GgufQ8_0MatchesReference) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto loaded = qwen3::load_gguf(generated_tiny_model(DType::BF16, DType::Q8_0).gguf);
  ASSERT_EQ(loaded.weights->layers[0].q_proj.dtype, DType::Q8_0);
  ASSERT_EQ(loaded.weights->embed.dtype, DType::Q8_0);
  // int8 activations: see kQ8RelTol in qwen3_forward_test.cpp (one activation rounding the other
  // way from the reference moves the later logits by 1-2%).
  expect_matches_reference("gguf q8_0", loaded.weights, prompt_ids(*loaded.tokenizer), 5e-2);
}

// The three files hold one model: quantisation moves its logits only a little.
TEST(Qwen3LoaderReference, FormatsAgreeWithinQuantisationError) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto& m = generated_tiny_model(DType::BF16, DType::Q8_0);
  const auto st = qwen3::load_hf_folder(m.dir);
  const auto prompt = prompt_ids(*st.tokenizer);
  const EngineRun a = run_engine(st.weights, prompt, 0);
  const EngineRun b = run_engine(qwen3::load_gguf_weights(m.gguf), prompt, 0);
  double worst = 0, scale = 0;
  for (size_t p = 0; p < a.logits.size(); ++p)
    for (size_t i = 0; i < a.logits[p].size(); ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(a.logits[p][i] - b.logits[p][i])));
      scale = std::max(scale, static_cast<double>(std::fabs(a.logits[p][i])));
    }
  std::printf("[ reference ] q8_0 vs bf16 logits: worst |diff| %.4f of max |logit| %.2f\n", worst, scale);
  EXPECT_LT(worst, 0.05 * scale);
}

}  // namespace
}  // namespace ninfer::models::testing
