// Qwen3 loaders: config.json and GGUF metadata parsing, the generated tiny model through the
// safetensors folder (single and sharded) and GGUF (f32, f16, bf16, q8_0) loaders, the tokenizer
// synthesised from GGUF metadata against tokenizer.json, loader-level corruption, load_model and the
// default model location.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "models/dtype_convert.h"
#include "models/gguf.h"
#include "models/gguf_tokenizer.h"
#include "models/kernels/simd_kernels.h"
#include "models/model_format_test_support.h"
#include "models/model_loader.h"
#include "models/qwen3/make_model.h"
#include "models/qwen3/qwen3_loader.h"
#include "models/safetensors.h"
#include "tokenizer/tokenizer_test_support.h"

namespace ninfer::models::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using qwen3::Qwen3Config;
using qwen3::Qwen3Weights;

const char* kConfig = R"({
  "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 1000, "hidden_size": 64,
  "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
  "head_dim": 32, "rope_theta": 500000.0, "rms_norm_eps": 1e-05, "tie_word_embeddings": false,
  "max_position_embeddings": 2048, "torch_dtype": "bfloat16", "hidden_act": "silu", "rope_scaling": null,
  "attention_bias": false, "use_sliding_window": false})";

json config_json() { return json::parse(kConfig); }

TEST(Qwen3Loader, ParsesHfConfig) {
  const Qwen3Config c = qwen3::parse_hf_config(kConfig, "config.json");
  EXPECT_EQ(c.vocab_size, 1000);
  EXPECT_EQ(c.hidden_size, 64);
  EXPECT_EQ(c.intermediate_size, 96);
  EXPECT_EQ(c.num_layers, 3);
  EXPECT_EQ(c.num_heads, 4);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 32);
  EXPECT_EQ(c.rope_theta, 500000.0);
  EXPECT_EQ(c.rms_norm_eps, 1e-5);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_EQ(c.max_position_embeddings, 2048);
  // Optional keys take Hugging Face's defaults.
  json j = config_json();
  for (const char* k : {"head_dim", "rope_theta", "tie_word_embeddings", "max_position_embeddings", "num_key_value_heads"}) j.erase(k);
  const Qwen3Config d = qwen3::parse_hf_config(j.dump(), "config.json");
  EXPECT_EQ(d.head_dim, 16);
  EXPECT_EQ(d.rope_theta, 10000.0);
  EXPECT_FALSE(d.tie_word_embeddings);
  EXPECT_EQ(d.num_kv_heads, 4);
}

TEST(Qwen3Loader, BadHfConfigsAreLocated) {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    ModelErrorKind kind;
    const char* location;
  };
  const Case cases[] = {
      {"missing hidden_size", [](json& j) { j.erase("hidden_size"); }, ModelErrorKind::BadConfig, "config.json:/hidden_size"},
      {"string vocab", [](json& j) { j["vocab_size"] = "1000"; }, ModelErrorKind::BadConfig, "config.json:/vocab_size"},
      {"zero layers", [](json& j) { j["num_hidden_layers"] = 0; }, ModelErrorKind::BadConfig, "config.json:/num_hidden_layers"},
      {"huge vocab", [](json& j) { j["vocab_size"] = 1ll << 40; }, ModelErrorKind::BadConfig, "config.json:/vocab_size"},
      {"kv heads", [](json& j) { j["num_key_value_heads"] = 3; }, ModelErrorKind::BadConfig, "config.json:/num_key_value_heads"},
      {"odd head_dim", [](json& j) { j["head_dim"] = 33; }, ModelErrorKind::BadConfig, "config.json:/head_dim"},
      {"negative eps", [](json& j) { j["rms_norm_eps"] = -1; }, ModelErrorKind::BadConfig, "config.json:/rms_norm_eps"},
      {"llama", [](json& j) { j["model_type"] = "llama"; }, ModelErrorKind::Unsupported, "config.json:/model_type"},
      {"other arch", [](json& j) { j["architectures"] = {"LlamaForCausalLM"}; }, ModelErrorKind::Unsupported, "config.json:/architectures"},
      {"no type", [](json& j) { j.erase("model_type"), j.erase("architectures"); }, ModelErrorKind::BadConfig, "config.json:/model_type"},
      {"yarn", [](json& j) { j["rope_scaling"] = {{"type", "yarn"}}; }, ModelErrorKind::Unsupported, "config.json:/rope_scaling"},
      {"gelu", [](json& j) { j["hidden_act"] = "gelu"; }, ModelErrorKind::Unsupported, "config.json:/hidden_act"},
      {"sliding", [](json& j) { j["use_sliding_window"] = true; }, ModelErrorKind::Unsupported, "config.json:/use_sliding_window"},
      {"bias", [](json& j) { j["attention_bias"] = true; }, ModelErrorKind::Unsupported, "config.json:/attention_bias"},
      {"tie string", [](json& j) { j["tie_word_embeddings"] = "yes"; }, ModelErrorKind::BadConfig, "config.json:/tie_word_embeddings"},
  };
  for (const Case& c : cases) {
    json j = config_json();
    c.edit(j);
    expect_model_error([&] { qwen3::parse_hf_config(j.dump(), "config.json"); }, c.kind, c.location, c.what);
  }
  expect_model_error([&] { qwen3::parse_hf_config("{\"a\":", "config.json"); }, ModelErrorKind::BadConfig, "config.json:", "bad JSON");
  expect_model_error([&] { qwen3::parse_hf_config("[]", "config.json"); }, ModelErrorKind::BadConfig, "config.json:/", "array");
  // nlohmann reports a number beyond binary64 as out_of_range, not parse_error (found by safetensors_fuzz).
  expect_model_error([&] { qwen3::parse_hf_config("{\"vocab_size\": 8898E88898}", "config.json"); }, ModelErrorKind::BadConfig,
                     "config.json:", "number overflow");
}

TEST(Qwen3Loader, GgufTensorNames) {
  EXPECT_EQ(qwen3::gguf_tensor_name("model.embed_tokens.weight"), "token_embd.weight");
  EXPECT_EQ(qwen3::gguf_tensor_name("model.norm.weight"), "output_norm.weight");
  EXPECT_EQ(qwen3::gguf_tensor_name("lm_head.weight"), "output.weight");
  EXPECT_EQ(qwen3::gguf_tensor_name("model.layers.12.self_attn.o_proj.weight"), "blk.12.attn_output.weight");
  EXPECT_EQ(qwen3::gguf_tensor_name("model.layers.0.post_attention_layernorm.weight"), "blk.0.ffn_norm.weight");
  EXPECT_EQ(qwen3::gguf_tensor_name("model.layers.0.self_attn.k_norm.weight"), "blk.0.attn_k_norm.weight");
  EXPECT_EQ(qwen3::gguf_tensor_name("model.layers.0.rotary_emb.inv_freq"), "");
}

// Every tensor of two weight sets, element by element: `check(name, a, b)` per element.
template <class Check>
void for_each_pair(const Qwen3Weights& a, const Qwen3Weights& b, Check check) {
  const auto pair = [&](const TensorView& x, const TensorView& y) {
    ASSERT_EQ(x.shape, y.shape) << x.name << " vs " << y.name;
    for (int64_t i = 0; i < x.elements(); ++i) {
      check(x, y, tensor_element(x, i), tensor_element(y, i), i);
      if (i % 4096 == 0 && ::testing::Test::HasFailure()) return;  // one report, not millions
    }
  };
  pair(a.embed, b.embed);
  pair(a.final_norm, b.final_norm);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const auto& x = a.layers[l];
    const auto& y = b.layers[l];
    for (auto m : {&qwen3::Qwen3LayerWeights::attn_norm, &qwen3::Qwen3LayerWeights::q_proj, &qwen3::Qwen3LayerWeights::k_proj,
                   &qwen3::Qwen3LayerWeights::v_proj, &qwen3::Qwen3LayerWeights::o_proj, &qwen3::Qwen3LayerWeights::q_norm,
                   &qwen3::Qwen3LayerWeights::k_norm, &qwen3::Qwen3LayerWeights::ffn_norm, &qwen3::Qwen3LayerWeights::gate_proj,
                   &qwen3::Qwen3LayerWeights::up_proj, &qwen3::Qwen3LayerWeights::down_proj})
      pair(x.*m, y.*m);
  }
}

TEST(Qwen3Loader, LoadsTheGeneratedFolder) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto& m = generated_tiny_model();
  const qwen3::LoadedQwen3 loaded = qwen3::load_hf_folder(m.dir);
  const Qwen3Weights& w = *loaded.weights;
  const Qwen3Config want = qwen3::qwen3_preset("tiny");
  EXPECT_EQ(w.config.vocab_size, want.vocab_size);
  EXPECT_EQ(w.config.hidden_size, want.hidden_size);
  EXPECT_EQ(w.config.num_layers, want.num_layers);
  EXPECT_EQ(w.config.head_dim, want.head_dim);
  EXPECT_EQ(w.config.rope_theta, want.rope_theta);
  EXPECT_TRUE(w.config.tie_word_embeddings);
  EXPECT_EQ(w.lm_head.data, w.embed.data);  // tied: the same bytes
  EXPECT_EQ(loaded.format, "safetensors");
  EXPECT_EQ(loaded.dtype, "bf16");
  EXPECT_EQ(w.embed.dtype, DType::BF16);
  EXPECT_EQ(w.layers[1].down_proj.name, "model.layers.1.mlp.down_proj.weight");
  // The stored values are the generator's, rounded to bf16.
  for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{4097}, w.embed.elements() - 1})
    EXPECT_EQ(tensor_element(w.embed, i), bf16_to_f32(f32_to_bf16(qwen3::make_model_value(0, "model.embed_tokens.weight", i, want))));
  for (int64_t i = 0; i < w.layers[0].q_norm.elements(); ++i)
    EXPECT_EQ(tensor_element(w.layers[0].q_norm, i),
              bf16_to_f32(f32_to_bf16(qwen3::make_model_value(0, "model.layers.0.self_attn.q_norm.weight", i, want))));
  ASSERT_TRUE(loaded.tokenizer);
  EXPECT_EQ(loaded.tokenizer->vocab_size(), 151669);
}

class GgufTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(GgufTypeTest, HoldsTheSafetensorsValues) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const DType type = GetParam();
  const auto& m = generated_tiny_model(DType::BF16, type);
  const auto st = qwen3::load_hf_weights(m.dir);
  const qwen3::LoadedQwen3 gg = qwen3::load_gguf(m.gguf);
  const Qwen3Weights& g = *gg.weights;
  EXPECT_EQ(gg.format, "gguf");
  EXPECT_EQ(gg.dtype, dtype_name(type));
  EXPECT_EQ(g.config.vocab_size, st->config.vocab_size);
  EXPECT_EQ(g.config.hidden_size, st->config.hidden_size);
  EXPECT_EQ(g.config.intermediate_size, st->config.intermediate_size);
  EXPECT_EQ(g.config.num_layers, st->config.num_layers);
  EXPECT_EQ(g.config.num_heads, st->config.num_heads);
  EXPECT_EQ(g.config.num_kv_heads, st->config.num_kv_heads);
  EXPECT_EQ(g.config.head_dim, st->config.head_dim);
  EXPECT_EQ(g.config.max_position_embeddings, st->config.max_position_embeddings);
  EXPECT_EQ(g.config.tie_word_embeddings, st->config.tie_word_embeddings);
  EXPECT_EQ(g.config.rope_theta, st->config.rope_theta);
  EXPECT_NEAR(g.config.rms_norm_eps, st->config.rms_norm_eps, 1e-12);  // stored as f32
  EXPECT_EQ(g.final_norm.dtype, DType::F32);  // norms stay f32, as llama.cpp writes them
  EXPECT_EQ(g.layers[0].up_proj.dtype, type);
  EXPECT_EQ(g.lm_head.data, g.embed.data);
  double worst_steps = 0;
  int64_t checked = 0;
  float amax = 0;  // of the current Q8_0 block
  for_each_pair(*st, g, [&](const TensorView& t, const TensorView& q, float want, float got, int64_t i) {
    ++checked;
    if (q.dtype == DType::Q8_0) {
      // Within half a quantisation step of the block (plus the f16 rounding of its scale).
      if (i % 32 == 0) {
        amax = 0;
        for (int64_t k = i; k < i + 32; ++k) amax = std::max(amax, std::fabs(tensor_element(t, k)));
      }
      const double step = amax / 127.0;
      const double err = std::fabs(static_cast<double>(got) - want);
      if (step > 0) worst_steps = std::max(worst_steps, err / step);
      ASSERT_LE(err, 0.5 * step + amax * 1e-3) << t.name << "[" << i << "]";
    } else if (q.dtype == DType::F16) {
      // bf16 values are f16 values except below f16's normal range (subnormal spacing 2^-24).
      ASSERT_LE(std::fabs(static_cast<double>(got) - want), 3e-8) << t.name << "[" << i << "]";
    } else {
      ASSERT_EQ(got, want) << t.name << "[" << i << "]";
    }
  });
  if (type == DType::Q8_0) std::printf("[ gguf ] q8_0 vs bf16 worst error %.3f steps over %lld values\n", worst_steps, static_cast<long long>(checked));
}

INSTANTIATE_TEST_SUITE_P(AllTypes, GgufTypeTest, ::testing::Values(DType::F32, DType::F16, DType::BF16, DType::Q8_0),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(Qwen3Loader, WeightsInHugePagesAreTheSameModel) {
  // load_model copies the weights into huge pages by default: the same logits as the mapped files,
  // for a safetensors folder (BF16, which where AVX-512 runs is packed in column tiles) and a GGUF
  // file (Q8_0, packed in lanes there), both of which then sum in another order.
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto& m = generated_tiny_model();
  for (const std::string& path : {m.dir, m.gguf}) {
    ModelLoadOptions mapped, huge;
    mapped.slots = huge.slots = 1;
    mapped.max_context = huge.max_context = 64;
    mapped.huge_pages = false;
    huge.huge_pages = true;
    auto a = load_model(path, mapped), b = load_model(path, huge);
    const std::vector<int32_t> tokens = {1, 17, 300, 4000, 25};
    std::vector<float> la(static_cast<size_t>(a->vocab_size())), lb(la.size());
    const ForwardRow row{0, tokens, 1};
    a->forward(std::span(&row, 1), la);
    b->forward(std::span(&row, 1), lb);
    const WeightPacking packing = kernels::best_kernels().packing;
    if (path == m.gguf ? packing.q8 == Q8Packing::Lanes : packing.column_tiles) {
      // Packed in lanes, Q8_0 matmuls sum whole blocks where the file's layout sums 8 lanes per block
      // (q8_lanes.h); in column tiles, BF16 ones sum even and odd columns apart (column_tiles.h): the
      // same products, fp32 sums in another order.
      double scale = 0.0, worst = 0.0;
      for (size_t i = 0; i < la.size(); ++i) {
        scale = std::max(scale, static_cast<double>(std::fabs(la[i])));
        worst = std::max(worst, static_cast<double>(std::fabs(la[i] - lb[i])));
      }
      EXPECT_LE(worst, 1e-4 * scale) << path;
      EXPECT_NE(la, lb) << "the packed order of sums did not show: are the weights packed? " << path;
    } else {
      EXPECT_EQ(la, lb) << path;
    }
  }
}

TEST(Qwen3Loader, Q8MatricesArePackedInTheHugePageCopyOnly) {
  // load_gguf(..., packing) packs the Q8_0 matrices of a HugePages copy (load_model asks for the tile
  // unit's layout on AMX machines, for lanes on AVX-512 ones); a mapping of the file stays as the
  // file has it. Either way the same values.
  NINFER_REQUIRE_QWEN3_ASSETS();
  const std::string& path = generated_tiny_model().gguf;
  for (Q8Packing packing : {Q8Packing::Tiles, Q8Packing::Lanes}) {
    const bool lanes = packing == Q8Packing::Lanes;
    auto packed = [&](const TensorView& t) { return lanes ? t.q8_lanes : t.q8_tiles; };
    auto packs = [&](const TensorView& t) { return lanes ? packs_q8_lanes(t) : packs_q8_tiles(t); };
    const auto mapped = qwen3::load_gguf(path, Residency::Mapped, packing).weights;
    const auto copied = qwen3::load_gguf(path, Residency::HugePages, packing).weights;
    const auto plain = qwen3::load_gguf(path, Residency::HugePages, Q8Packing::RowMajor).weights;
    ASSERT_EQ(copied->layers[0].q_proj.dtype, DType::Q8_0);
    EXPECT_FALSE(mapped->layers[0].q_proj.q8_tiles || mapped->layers[0].q_proj.q8_lanes);
    EXPECT_FALSE(plain->layers[0].q_proj.q8_tiles || plain->layers[0].q_proj.q8_lanes);
    EXPECT_TRUE(packed(copied->embed));
    EXPECT_TRUE(packed(copied->lm_head));  // tied: the embedding's bytes, packed once
    EXPECT_EQ(copied->lm_head.data, copied->embed.data);
    for (size_t l = 0; l < copied->layers.size(); ++l) {
      const auto& a = mapped->layers[l];
      const auto& b = copied->layers[l];
      for (auto [x, y] : {std::pair{&a.q_proj, &b.q_proj}, {&a.k_proj, &b.k_proj}, {&a.v_proj, &b.v_proj},
                          {&a.o_proj, &b.o_proj}, {&a.gate_proj, &b.gate_proj}, {&a.up_proj, &b.up_proj},
                          {&a.down_proj, &b.down_proj}}) {
        EXPECT_EQ(packed(*y), packs(*x)) << y->name;
        EXPECT_FALSE(lanes ? y->q8_tiles : y->q8_lanes) << y->name;
        for (int64_t i = 0; i < x->elements(); i += 3) ASSERT_EQ(tensor_element(*x, i), tensor_element(*y, i)) << y->name;
      }
    }
    for (int64_t i = 0; i < mapped->embed.elements(); i += 101) {
      ASSERT_EQ(tensor_element(mapped->embed, i), tensor_element(copied->embed, i));
    }
  }
}

TEST(Qwen3Loader, SafetensorsMatricesArePackedInTheHugePageCopyOnly) {
  // load_hf_folder(..., packing) packs the F16 and BF16 matrices of each shard's HugePages copy in
  // column tiles (load_model asks for them on AVX-512 machines); a mapping stays as the file has it.
  // Either way the same values.
  NINFER_REQUIRE_QWEN3_ASSETS();
  const WeightPacking packing(Q8Packing::RowMajor, /*columns=*/true);
  for (DType dtype : {DType::BF16, DType::F16}) {
    const std::string& dir = generated_tiny_model(dtype).dir;
    const auto mapped = qwen3::load_hf_weights(dir, Residency::Mapped, packing);
    const auto copied = qwen3::load_hf_weights(dir, Residency::HugePages, packing);
    ASSERT_EQ(copied->layers[0].q_proj.dtype, dtype);
    int packed = 0;
    for (size_t m = 0; m < copied->matrices().size(); ++m) {
      const TensorView& x = *mapped->matrices()[m];
      const TensorView& y = *copied->matrices()[m];
      EXPECT_FALSE(x.column_tiles) << x.name;
      EXPECT_EQ(y.column_tiles, packs_column_tiles(x)) << y.name;
      packed += y.column_tiles;
      for (int64_t i = 0; i < x.elements(); i += 7) ASSERT_EQ(tensor_element(x, i), tensor_element(y, i)) << y.name;
    }
    EXPECT_GT(packed, 0) << dtype_name(dtype);
    if (copied->config.tie_word_embeddings) {
      EXPECT_EQ(copied->lm_head.data, copied->embed.data);
    }
    EXPECT_EQ(copied->lm_head.column_tiles, packs_column_tiles(mapped->lm_head));
  }
}

TEST(Qwen3Loader, SafetensorsDtypesLoadTheSameModel) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto f32 = qwen3::load_hf_weights(generated_tiny_model(DType::F32).dir);
  const auto f16 = qwen3::load_hf_weights(generated_tiny_model(DType::F16).dir);
  EXPECT_EQ(f32->embed.dtype, DType::F32);
  EXPECT_EQ(f16->embed.dtype, DType::F16);
  const Qwen3Config c = qwen3::qwen3_preset("tiny");
  for (int64_t i = 0; i < 3000; i += 7) {
    const float v = qwen3::make_model_value(0, "model.layers.1.mlp.gate_proj.weight", i, c);
    EXPECT_EQ(tensor_element(f32->layers[1].gate_proj, i), v);
    EXPECT_EQ(tensor_element(f16->layers[1].gate_proj, i), f16_to_f32(f32_to_f16(v)));
  }
}

// ---- tokenizer from GGUF ----

TEST(Qwen3Loader, GgufTokenizerEqualsTokenizerJson) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  const auto& m = generated_tiny_model();
  const auto from_json = tokenizer::Tokenizer::load(m.dir);
  const auto from_gguf = qwen3::load_gguf(m.gguf).tokenizer;
  ASSERT_EQ(from_gguf->vocab_size(), from_json->vocab_size());
  for (int32_t id = 0; id < from_json->vocab_size(); ++id) {
    ASSERT_EQ(from_gguf->token_bytes(id), from_json->token_bytes(id)) << id;
    ASSERT_EQ(from_gguf->token_kind(id), from_json->token_kind(id)) << id;
  }
  EXPECT_EQ(from_gguf->eos_ids(), from_json->eos_ids());
  EXPECT_EQ(from_gguf->bos_id(), from_json->bos_id());
  EXPECT_EQ(from_gguf->token_id("<think>"), from_json->token_id("<think>"));
  const auto cases = tokenizer::testing::read_fixture("qwen3");
  ASSERT_GE(cases.size(), 300u);
  size_t mismatches = 0;
  for (const auto& c : cases) {
    const auto ids = from_gguf->encode(c.text);
    if (ids != from_json->encode(c.text) && ++mismatches <= 5) ADD_FAILURE() << "differs on " << tokenizer::testing::quote(c.text);
    if (ids != c.ids && mismatches <= 5) ADD_FAILURE() << "differs from the reference ids on " << tokenizer::testing::quote(c.text);
  }
  EXPECT_EQ(mismatches, 0u);
  // Special tokens inside text, and decoding.
  const std::string chat = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nhello";
  EXPECT_EQ(from_gguf->encode(chat), from_json->encode(chat));
  const auto ids = from_json->encode(chat);
  EXPECT_EQ(from_gguf->decode(ids, true), from_json->decode(ids, true));
  std::printf("[ tokenizer ] gguf tokenizer: %zu fixture strings, %zu mismatches\n", cases.size(), mismatches);
}

// Rewrites a GGUF file through the reader and writer, letting the test edit metadata and tensors.
void rewrite_gguf(const std::string& src, const std::string& dst,
                  const std::function<void(std::vector<std::pair<std::string, gguf::Value>>&)>& edit_meta,
                  const std::function<bool(TensorView&)>& keep_tensor = nullptr) {
  gguf::File f = gguf::open(src);
  auto meta = f.metadata;
  edit_meta(meta);
  gguf::Writer w(dst);
  for (auto& [k, v] : meta) w.set(k, v);
  std::vector<TensorView> kept;
  for (TensorView t : f.tensors)
    if (!keep_tensor || keep_tensor(t)) kept.push_back(t);
  for (const TensorView& t : kept) w.add_tensor(t.name, t.dtype, t.shape);
  w.begin();
  for (const TensorView& t : kept) w.write(t.data, t.bytes);
  w.finish();
}

void erase_key(std::vector<std::pair<std::string, gguf::Value>>& meta, const std::string& key) {
  std::erase_if(meta, [&](const auto& kv) { return kv.first == key; });
}
gguf::Value& value_of(std::vector<std::pair<std::string, gguf::Value>>& meta, const std::string& key) {
  for (auto& [k, v] : meta)
    if (k == key) return v;
  throw std::logic_error("no key " + key);
}

TEST(Qwen3Loader, GgufTokenizerBosFollowsAddBos) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto& m = generated_tiny_model();
  // llama.cpp's Qwen3 conversions record <|endoftext|> as BOS but never add it.
  rewrite_gguf(m.gguf, tmp.file("bos.gguf"), [](auto& meta) { meta.emplace_back("tokenizer.ggml.bos_token_id", gguf::Value::u32(151643)); });
  EXPECT_FALSE(qwen3::load_gguf(tmp.file("bos.gguf")).tokenizer->bos_id().has_value());
  rewrite_gguf(tmp.file("bos.gguf"), tmp.file("bos2.gguf"), [](auto& meta) { value_of(meta, "tokenizer.ggml.add_bos_token").i = 1; });
  EXPECT_EQ(qwen3::load_gguf(tmp.file("bos2.gguf")).tokenizer->bos_id(), 151643);
}

TEST(Qwen3Loader, BadGgufModelsAreLocated) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto& m = generated_tiny_model();
  const std::string out = tmp.file("bad.gguf");
  const auto expect = [&](const std::string& what, ModelErrorKind kind, const std::string& loc) {
    expect_model_error([&] { qwen3::load_gguf(out); }, kind, loc, what);
  };
  using Meta = std::vector<std::pair<std::string, gguf::Value>>;
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "general.architecture").str = "llama"; });
  expect("llama", ModelErrorKind::Unsupported, "bad.gguf:general.architecture");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { erase_key(meta, "general.architecture"); });
  expect("no architecture", ModelErrorKind::BadConfig, "bad.gguf:general.architecture");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { erase_key(meta, "qwen3.block_count"); });
  expect("no block_count", ModelErrorKind::BadConfig, "bad.gguf:qwen3.block_count");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "qwen3.embedding_length") = gguf::Value::string("64"); });
  expect("string width", ModelErrorKind::BadConfig, "bad.gguf:qwen3.embedding_length");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "qwen3.attention.head_count").i = 3; });
  expect("head count", ModelErrorKind::BadConfig, "bad.gguf:qwen3.attention.head_count_kv");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "qwen3.attention.layer_norm_rms_epsilon").f = -1; });
  expect("eps", ModelErrorKind::BadConfig, "bad.gguf:qwen3.attention.layer_norm_rms_epsilon");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "qwen3.block_count").i = 3; });
  expect("extra layer", ModelErrorKind::MissingTensor, "bad.gguf:blk.2.attn_norm.weight");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "qwen3.feed_forward_length").i = 160; });
  expect("ffn width", ModelErrorKind::WrongShape, "bad.gguf:blk.0.ffn_gate.weight");
  rewrite_gguf(m.gguf, out, [](Meta&) {}, [](TensorView& t) { return t.name != "blk.1.ffn_up.weight"; });
  expect("dropped tensor", ModelErrorKind::MissingTensor, "bad.gguf:blk.1.ffn_up.weight");
  rewrite_gguf(m.gguf, out, [](Meta&) {}, [](TensorView& t) {
    if (t.name == "blk.0.attn_k.weight") t.shape = {t.shape[1] * t.shape[0] / 32, 32};
    return true;
  });
  expect("reshaped tensor", ModelErrorKind::WrongShape, "bad.gguf:blk.0.attn_k.weight");
  // Tokenizer metadata.
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.model").str = "llama"; });
  expect("spm tokenizer", ModelErrorKind::Unsupported, "bad.gguf:tokenizer.ggml.model");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.pre").str = "llama-bpe"; });
  expect("other pre-tokenizer", ModelErrorKind::Unsupported, "bad.gguf:tokenizer.ggml.pre");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { erase_key(meta, "tokenizer.ggml.tokens"); });
  expect("no tokens", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.tokens");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.token_type").ints.pop_back(); });
  expect("short token types", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.token_type");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.token_type").ints[5] = 9; });
  expect("token type 9", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.token_type");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.merges").strings[3] = "nospace"; });
  expect("merge without a space", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.merges");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.merges").strings[3] = "zzq\xC3 qq"; });
  expect("merge of unknown tokens", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.tokens");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.tokens").strings[100] = value_of(meta, "tokenizer.ggml.tokens").strings[101]; });
  expect("duplicate token", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.tokens");
  rewrite_gguf(m.gguf, out, [](Meta& meta) { value_of(meta, "tokenizer.ggml.eos_token_id").i = 1 << 30; });
  expect("eos out of range", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.eos_token_id");
  rewrite_gguf(m.gguf, out, [](Meta& meta) {
    auto& types = value_of(meta, "tokenizer.ggml.token_type").ints;
    auto& tokens = value_of(meta, "tokenizer.ggml.tokens").strings;
    tokens.resize(200000, "");
    types.resize(200000, 3);
    for (size_t i = 151936; i < tokens.size(); ++i) tokens[i] = "<x" + std::to_string(i) + ">";
  });
  expect("more tokens than embedding rows", ModelErrorKind::BadConfig, "bad.gguf:tokenizer.ggml.tokens");
}

TEST(Qwen3Loader, TruncatedGgufModelIsTruncated) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto bytes = read_bytes(generated_tiny_model().gguf);
  const size_t header_end = gguf::parse(bytes, "mem").data_offset;
  std::vector<size_t> cuts;
  for (size_t c = 0; c < 4096; c += 7) cuts.push_back(c);                              // the fixed header and first keys
  for (size_t c = 4096; c < header_end; c += header_end / 97) cuts.push_back(c);      // inside the token / merge lists
  for (size_t c = header_end; c < bytes.size(); c += (bytes.size() - header_end) / 61) cuts.push_back(c);  // tensor data
  cuts.push_back(bytes.size() - 1);
  for (size_t cut : cuts) {
    write_bytes(tmp.file("t.gguf"), std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
    expect_model_error([&] { qwen3::load_gguf_weights(tmp.file("t.gguf")); }, ModelErrorKind::Truncated, "t.gguf",
                       "cut at " + std::to_string(cut));
  }
}

// ---- safetensors folders ----

// Copies a generated folder, optionally rewriting model.safetensors through `edit` (specs + data).
struct StTensor {
  safetensors::TensorSpec spec;
  std::vector<uint8_t> data;
};
std::string copy_folder(const std::string& src, const TempDir& tmp, const std::string& name,
                        const std::function<void(std::vector<StTensor>&)>& edit = nullptr) {
  const fs::path dst = fs::path(tmp.path()) / name;
  fs::create_directories(dst);
  for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json"}) fs::copy_file(fs::path(src) / f, dst / f);
  if (!edit) {
    fs::copy_file(fs::path(src) / "model.safetensors", dst / "model.safetensors");
    return dst.string();
  }
  const safetensors::File f = safetensors::open((fs::path(src) / "model.safetensors").string());
  std::vector<StTensor> ts;
  for (const TensorView& t : f.tensors) {
    const auto* p = static_cast<const uint8_t*>(t.data);
    ts.push_back({{t.name, t.dtype, t.shape}, std::vector<uint8_t>(p, p + t.bytes)});
  }
  edit(ts);
  std::vector<safetensors::TensorSpec> specs;
  for (const auto& t : ts) specs.push_back(t.spec);
  safetensors::Writer w((dst / "model.safetensors").string(), specs);
  for (const auto& t : ts) w.write(t.data.data(), t.data.size());
  w.finish();
  return dst.string();
}

// Writes the tensors of a generated folder as `n` shards plus model.safetensors.index.json.
std::string shard_folder(const std::string& src, const TempDir& tmp, const std::string& name, int n) {
  const std::string dir = copy_folder(src, tmp, name);
  fs::remove(fs::path(dir) / "model.safetensors");
  const safetensors::File f = safetensors::open((fs::path(src) / "model.safetensors").string());
  json index;
  index["metadata"]["total_size"] = 0;
  size_t total = 0;
  for (int s = 0; s < n; ++s) {
    char shard[64];
    std::snprintf(shard, sizeof shard, "model-%05d-of-%05d.safetensors", s + 1, n);
    std::vector<safetensors::TensorSpec> specs;
    std::vector<const TensorView*> views;
    for (size_t i = 0; i < f.tensors.size(); ++i)
      if (static_cast<int>(i % static_cast<size_t>(n)) == s) {
        specs.push_back({f.tensors[i].name, f.tensors[i].dtype, f.tensors[i].shape});
        views.push_back(&f.tensors[i]);
        index["weight_map"][f.tensors[i].name] = shard;
        total += f.tensors[i].bytes;
      }
    safetensors::Writer w((fs::path(dir) / shard).string(), specs);
    for (const TensorView* v : views) w.write(v->data, v->bytes);
    w.finish();
  }
  index["metadata"]["total_size"] = total;
  write_text((fs::path(dir) / "model.safetensors.index.json").string(), index.dump(2));
  return dir;
}

TEST(Qwen3Loader, ShardedFolderLoadsTheSameModel) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto& m = generated_tiny_model();
  const auto single = qwen3::load_hf_weights(m.dir);
  for (int n : {2, 3}) {
    const std::string dir = shard_folder(m.dir, tmp, "sharded" + std::to_string(n), n);
    const auto sharded = qwen3::load_hf_weights(dir);
    EXPECT_EQ(sharded->storage.size(), static_cast<size_t>(n));  // one mapping per shard
    for_each_pair(*single, *sharded, [](const TensorView& t, const TensorView&, float a, float b, int64_t i) { ASSERT_EQ(a, b) << t.name << "[" << i << "]"; });
  }
  // Index problems.
  const std::string dir = shard_folder(m.dir, tmp, "broken", 2);
  const std::string index_path = dir + "/model.safetensors.index.json";
  const json good = json::parse(read_text(index_path));
  const auto with_index = [&](const std::function<void(json&)>& edit, ModelErrorKind kind, const std::string& loc, const std::string& what) {
    json j = good;
    edit(j);
    write_text(index_path, j.dump());
    expect_model_error([&] { qwen3::load_hf_weights(dir); }, kind, loc, what);
  };
  with_index([](json& j) { j["weight_map"]["model.norm.weight"] = "model-00009-of-00009.safetensors"; }, ModelErrorKind::NotFound,
             "index.json:/weight_map/model.norm.weight", "missing shard");
  with_index([](json& j) { j["weight_map"]["model.norm.weight"] = "../model.safetensors"; }, ModelErrorKind::BadConfig,
             "index.json:/weight_map/model.norm.weight", "shard outside the folder");
  with_index([](json& j) {
    const std::string other = j["weight_map"]["model.norm.weight"] == "model-00001-of-00002.safetensors" ? "model-00002-of-00002.safetensors"
                                                                                                        : "model-00001-of-00002.safetensors";
    j["weight_map"]["model.norm.weight"] = other;
  }, ModelErrorKind::MissingTensor, "model.norm.weight", "tensor in another shard");
  // A shard the map never names is not opened: its tensors are missing.
  with_index([](json& j) {
    json kept = json::object();
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it)
      if (it.value() != "model-00002-of-00002.safetensors") kept[it.key()] = it.value();
    j["weight_map"] = kept;
  }, ModelErrorKind::MissingTensor, "index.json:", "shard outside the map");
  with_index([](json& j) { j.erase("weight_map"); }, ModelErrorKind::BadConfig, "index.json:/weight_map", "no weight_map");
  write_text(index_path, "{");
  expect_model_error([&] { qwen3::load_hf_weights(dir); }, ModelErrorKind::BadConfig, "index.json:", "bad JSON index");
}

TEST(Qwen3Loader, BadFoldersAreLocated) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto& m = generated_tiny_model();
  const auto expect = [&](const std::string& dir, ModelErrorKind kind, const std::string& loc, const std::string& what) {
    expect_model_error([&] { qwen3::load_hf_folder(dir); }, kind, loc, what);
  };
  expect(tmp.file("nothing"), ModelErrorKind::NotFound, "nothing", "no folder");
  {
    const std::string d = copy_folder(m.dir, tmp, "noweights");
    fs::remove(d + "/model.safetensors");
    expect(d, ModelErrorKind::NotFound, "model.safetensors", "no weights");
  }
  {
    const std::string d = copy_folder(m.dir, tmp, "noconfig");
    fs::remove(d + "/config.json");
    expect(d, ModelErrorKind::NotFound, "config.json", "no config");
  }
  {
    const std::string d = copy_folder(m.dir, tmp, "notokenizer");
    fs::remove(d + "/tokenizer.json");
    expect(d, ModelErrorKind::NotFound, "tokenizer.json", "no tokenizer");
  }
  {
    const std::string d = copy_folder(m.dir, tmp, "drop", [](std::vector<StTensor>& ts) {
      std::erase_if(ts, [](const StTensor& t) { return t.spec.name == "model.layers.1.self_attn.v_proj.weight"; });
    });
    expect(d, ModelErrorKind::MissingTensor, "model.safetensors:model.layers.1.self_attn.v_proj.weight", "dropped tensor");
  }
  {
    const std::string d = copy_folder(m.dir, tmp, "reshape", [](std::vector<StTensor>& ts) {
      for (auto& t : ts)
        if (t.spec.name == "model.layers.0.mlp.up_proj.weight") std::swap(t.spec.shape[0], t.spec.shape[1]);
    });
    expect(d, ModelErrorKind::WrongShape, "model.safetensors:model.layers.0.mlp.up_proj.weight", "transposed tensor");
  }
  {
    // Tied config without lm_head is fine; an untied one needs it.
    const std::string d = copy_folder(m.dir, tmp, "untied");
    json c = json::parse(read_text(d + "/config.json"));
    c["tie_word_embeddings"] = false;
    write_text(d + "/config.json", c.dump());
    expect(d, ModelErrorKind::MissingTensor, "lm_head.weight", "untied without lm_head");
    c["tie_word_embeddings"] = true;
    c["hidden_size"] = 128;
    write_text(d + "/config.json", c.dump());
    expect(d, ModelErrorKind::WrongShape, "model.embed_tokens.weight", "hidden size mismatch");
    c["hidden_size"] = 64;
    c["vocab_size"] = 1000;
    write_text(d + "/config.json", c.dump());
    expect(d, ModelErrorKind::WrongShape, "model.embed_tokens.weight", "vocab mismatch");
  }
  {
    // A dtype the loader does not read: rewrite the header with I8 for one tensor.
    const std::string d = copy_folder(m.dir, tmp, "i8");
    auto bytes = read_bytes(d + "/model.safetensors");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<size_t>(i)];
    std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n));
    json h = json::parse(header);
    h["model.norm.weight"]["dtype"] = "I16";  // same element size: offsets stay valid
    std::string text = h.dump();
    while (text.size() < n) text += ' ';
    ASSERT_EQ(text.size(), n);
    std::copy(text.begin(), text.end(), bytes.begin() + 8);
    write_bytes(d + "/model.safetensors", bytes);
    expect(d, ModelErrorKind::UnknownDtype, "model.safetensors:model.norm.weight", "I16 tensor");
  }
}

TEST(Qwen3Loader, TruncatedSafetensorsModelIsTruncated) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto& m = generated_tiny_model();
  const std::string d = copy_folder(m.dir, tmp, "cut");
  const auto bytes = read_bytes(m.dir + "/model.safetensors");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<size_t>(i)];
  std::vector<size_t> cuts;
  for (size_t c = 0; c < 8 + n; c += 3) cuts.push_back(c);
  for (size_t c = 8 + n; c < bytes.size(); c += bytes.size() / 89) cuts.push_back(c);
  cuts.push_back(bytes.size() - 1);
  for (size_t cut : cuts) {
    write_bytes(d + "/model.safetensors", std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
    expect_model_error([&] { qwen3::load_hf_weights(d); }, ModelErrorKind::Truncated, "model.safetensors", "cut at " + std::to_string(cut));
  }
}

// ---- load_model and the default model ----

TEST(Qwen3Loader, LoadModelDetectsTheFormat) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const auto& m = generated_tiny_model();
  ModelLoadOptions o;
  o.slots = 2;
  o.max_context = 64;
  o.threads = 1;
  const auto folder = load_model(m.dir, o);
  const auto file = load_model(m.gguf, o);
  fs::create_directories(tmp.file("ggufdir"));
  fs::copy_file(m.gguf, tmp.file("ggufdir/x.gguf"));
  const auto in_dir = load_model(tmp.file("ggufdir"), o);
  for (const auto* model : {folder.get(), file.get(), in_dir.get()}) {
    EXPECT_EQ(model->vocab_size(), 151936);
    EXPECT_EQ(model->max_context(), 64);
    EXPECT_EQ(model->slot_count(), 2);
    EXPECT_EQ(model->tokenizer()->vocab_size(), 151669);
  }
  EXPECT_NE(folder->description().find("bf16"), std::string::npos) << folder->description();
  EXPECT_NE(file->description().find("q8_0"), std::string::npos) << file->description();
  // The model's own limit caps max_context; 0 means the model's.
  o.max_context = 0;
  EXPECT_EQ(load_model(m.dir, o)->max_context(), 40960);
  fs::copy_file(m.gguf, tmp.file("ggufdir/y.gguf"));
  expect_model_error([&] { load_model(tmp.file("ggufdir")); }, ModelErrorKind::NotFound, "ggufdir", "two gguf files");
  expect_model_error([&] { load_model(tmp.file("absent")); }, ModelErrorKind::NotFound, "absent", "no such path");
  fs::create_directories(tmp.file("empty"));
  expect_model_error([&] { load_model(tmp.file("empty")); }, ModelErrorKind::NotFound, "empty", "empty folder");
  write_text(tmp.file("notgguf.bin"), "hello world, not a model");
  expect_model_error([&] { load_model(tmp.file("notgguf.bin")); }, ModelErrorKind::BadHeader, "notgguf.bin:0", "text file");
  o.slots = 0;
  EXPECT_THROW(load_model(m.dir, o), std::invalid_argument);
}

// Sets an environment variable for the scope of a test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Qwen3Loader, DefaultModelDirFollowsTheEnvironment) {
  {
    ScopedEnv a("NINFER_MODEL_CACHE", "/somewhere/model");
    EXPECT_EQ(default_model_dir(), "/somewhere/model");
  }
  ScopedEnv a("NINFER_MODEL_CACHE", nullptr);
  {
    ScopedEnv b("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(default_model_dir(), "/xdg/ninfer/models/qwen3-tiny-s0");
  }
  ScopedEnv b("XDG_CACHE_HOME", nullptr);
  ScopedEnv c("HOME", "/home/someone");
  EXPECT_EQ(default_model_dir(), "/home/someone/.cache/ninfer/models/qwen3-tiny-s0");
}

TEST(Qwen3Loader, EnsureDefaultModelGeneratesOnceUnderRaces) {
  NINFER_REQUIRE_QWEN3_ASSETS();
  TempDir tmp;
  const std::string dir = tmp.file("cache/qwen3-tiny-s0");
  ScopedEnv env("NINFER_MODEL_CACHE", dir.c_str());
  std::vector<std::string> results(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back([&, i] { results[static_cast<size_t>(i)] = ensure_default_model(); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, dir);
  for (const char* f : {"config.json", "model.safetensors", "model.gguf", "tokenizer.json", "tokenizer_config.json", "generation_config.json"})
    EXPECT_TRUE(fs::is_regular_file(dir + "/" + f)) << f;
  // No temporary folders are left beside it.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(tmp.file("cache"))) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "qwen3-tiny-s0");
  }
  EXPECT_EQ(entries, 1u);
  // Second use: nothing is regenerated.
  const auto before = fs::last_write_time(dir + "/model.safetensors");
  EXPECT_EQ(ensure_default_model(), dir);
  EXPECT_EQ(fs::last_write_time(dir + "/model.safetensors"), before);
  // It is the tiny preset, seed 0: the same bytes make-model writes.
  EXPECT_EQ(read_bytes(dir + "/model.safetensors"), read_bytes(generated_tiny_model().dir + "/model.safetensors"));
  EXPECT_EQ(qwen3::load_gguf_weights(dir + "/model.gguf")->layers[0].q_proj.dtype, DType::Q8_0);
  // A folder in the way that is not a model is an error, not overwritten.
  const std::string other = tmp.file("other");
  fs::create_directories(other + "/stuff");
  ScopedEnv env2("NINFER_MODEL_CACHE", other.c_str());
  expect_model_error([&] { ensure_default_model(); }, ModelErrorKind::NotFound, "other", "foreign folder");
  EXPECT_TRUE(fs::is_directory(other + "/stuff"));
}

}  // namespace
}  // namespace ninfer::models::testing
