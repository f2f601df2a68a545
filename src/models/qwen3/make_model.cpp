#include "models/qwen3/make_model.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/dtype_convert.h"
#include "models/gguf.h"
#include "models/gguf_tokenizer.h"
#include "models/model_error.h"
#include "models/qwen3/qwen3_loader.h"
#include "models/safetensors.h"
#include "tokenizer/assets.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::models::qwen3 {
namespace {

namespace fs = std::filesystem;

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t name_hash(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

// A cheap standard normal: the sum of four 16-bit uniforms (Irwin-Hall), centred and scaled to unit
// variance. One 64-bit hash per value keeps the 0.6b preset's 600M values to a couple of seconds.
inline float approx_normal(uint64_t r) {
  const uint32_t s = static_cast<uint32_t>(r & 0xFFFF) + static_cast<uint32_t>((r >> 16) & 0xFFFF) +
                     static_cast<uint32_t>((r >> 32) & 0xFFFF) + static_cast<uint32_t>(r >> 48);
  constexpr float kScale = 1.7320508f / 65536.0f;  // sqrt(12 / 4) per unit of 2^16
  return (static_cast<float>(s) - 131070.0f) * kScale;
}

struct TensorPlan {
  std::string name;             // Hugging Face name
  std::vector<int64_t> shape;   // {rows, cols} or {n}
  float mean = 0, stddev = 0;
  uint64_t stream = 0;          // per-tensor random stream
};

// Scales: linear layers 1/sqrt(fan_in) so every projection keeps activations near unit size; the
// embedding (which is also the output projection when tied) 3/sqrt(hidden) so logits have a standard
// deviation near 3: finite, varied, with a clear but not absolute preference; norms 1 +- 0.05.
TensorPlan plan_for(uint64_t seed, const std::string& name, std::vector<int64_t> shape, const Qwen3Config& c) {
  TensorPlan p;
  p.name = name;
  p.stream = mix64(seed ^ mix64(name_hash(name)));
  if (shape.size() == 1) {
    p.mean = 1.0f;
    p.stddev = 0.05f;
  } else if (name == "model.embed_tokens.weight" || name == "lm_head.weight") {
    p.stddev = 3.0f / std::sqrt(static_cast<float>(c.hidden_size));
  } else {
    p.stddev = 1.0f / std::sqrt(static_cast<float>(shape[1]));
  }
  p.shape = std::move(shape);
  return p;
}

std::vector<TensorPlan> plan_model(uint64_t seed, const Qwen3Config& c) {
  const int64_t h = c.hidden_size, q = int64_t{c.num_heads} * c.head_dim, kv = int64_t{c.num_kv_heads} * c.head_dim;
  const int64_t ff = c.intermediate_size, v = c.vocab_size, hd = c.head_dim;
  std::vector<TensorPlan> out;
  out.push_back(plan_for(seed, "model.embed_tokens.weight", {v, h}, c));
  for (int i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    out.push_back(plan_for(seed, p + "input_layernorm.weight", {h}, c));
    out.push_back(plan_for(seed, p + "self_attn.q_proj.weight", {q, h}, c));
    out.push_back(plan_for(seed, p + "self_attn.k_proj.weight", {kv, h}, c));
    out.push_back(plan_for(seed, p + "self_attn.v_proj.weight", {kv, h}, c));
    out.push_back(plan_for(seed, p + "self_attn.o_proj.weight", {h, q}, c));
    out.push_back(plan_for(seed, p + "self_attn.q_norm.weight", {hd}, c));
    out.push_back(plan_for(seed, p + "self_attn.k_norm.weight", {hd}, c));
    out.push_back(plan_for(seed, p + "post_attention_layernorm.weight", {h}, c));
    out.push_back(plan_for(seed, p + "mlp.gate_proj.weight", {ff, h}, c));
    out.push_back(plan_for(seed, p + "mlp.up_proj.weight", {ff, h}, c));
    out.push_back(plan_for(seed, p + "mlp.down_proj.weight", {h, ff}, c));
  }
  out.push_back(plan_for(seed, "model.norm.weight", {h}, c));
  if (!c.tie_word_embeddings) out.push_back(plan_for(seed, "lm_head.weight", {v, h}, c));
  return out;
}

inline float plan_value(const TensorPlan& p, int64_t i) {
  return p.mean + p.stddev * approx_normal(mix64(p.stream + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull));
}

// Rounds to the storage dtype and appends the encoded bytes; returns the rounded values in place.
void encode(DType dtype, float* values, size_t n, std::vector<uint8_t>& out) {
  out.clear();
  switch (dtype) {
    case DType::F32:
      out.resize(n * 4);
      std::memcpy(out.data(), values, n * 4);
      break;
    case DType::F16:
    case DType::BF16: {
      out.resize(n * 2);
      for (size_t i = 0; i < n; ++i) {
        const uint16_t h = dtype == DType::F16 ? f32_to_f16(values[i]) : f32_to_bf16(values[i]);
        std::memcpy(out.data() + 2 * i, &h, 2);
        values[i] = dtype == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
      }
      break;
    }
    case DType::Q8_0: {
      out.resize(n / kQ8BlockValues * kQ8BlockBytes);
      for (size_t b = 0; b < n / kQ8BlockValues; ++b) quantize_q8_0_block(values + b * kQ8BlockValues, out.data() + b * kQ8BlockBytes);
      break;
    }
  }
}

const char* torch_dtype(DType d) {
  switch (d) {
    case DType::F32: return "float32";
    case DType::F16: return "float16";
    case DType::BF16: return "bfloat16";
    case DType::Q8_0: break;
  }
  throw std::invalid_argument("safetensors dtype must be f32, f16 or bf16");
}

// llama.cpp's general.file_type (LLAMA_FTYPE_*) for the matrices' type.
uint32_t gguf_file_type(DType d) {
  switch (d) {
    case DType::F32: return 0;
    case DType::F16: return 1;
    case DType::Q8_0: return 7;
    case DType::BF16: return 32;
  }
  return 0;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string unique_suffix() {
  std::random_device rd;
  return std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000000u);
}

void write_model_files(const fs::path& dir, const std::string& gguf_path, const MakeModelOptions& o, const Qwen3Config& c,
                       const std::string& preset_label, MakeModelResult& result) {
  // Tokenizer files first: a broken tokenizer fails before a gigabyte is written.
  const std::string tok_json = tokenizer::resolve_tokenizer_path(o.tokenizer);
  const fs::path tok_dir = fs::path(tok_json).parent_path();
  const auto tok = tokenizer::Tokenizer::load(tok_json);
  if (tok->vocab_size() > c.vocab_size)
    throw std::invalid_argument("vocab_size " + std::to_string(c.vocab_size) + " is smaller than the tokenizer's " +
                                std::to_string(tok->vocab_size()) + " ids");
  fs::copy_file(tok_json, dir / "tokenizer.json");
  std::error_code ec;
  if (fs::is_regular_file(tok_dir / "tokenizer_config.json", ec)) fs::copy_file(tok_dir / "tokenizer_config.json", dir / "tokenizer_config.json");

  const auto id_of = [&](const char* s) -> nlohmann::json {
    auto id = tok->token_id(s);
    return id ? nlohmann::json(*id) : nlohmann::json(nullptr);
  };
  nlohmann::ordered_json config;
  config["architectures"] = {"Qwen3ForCausalLM"};
  config["attention_bias"] = false;
  config["attention_dropout"] = 0.0;
  config["bos_token_id"] = id_of("<|endoftext|>");
  config["eos_token_id"] = id_of("<|im_end|>");
  config["head_dim"] = c.head_dim;
  config["hidden_act"] = "silu";
  config["hidden_size"] = c.hidden_size;
  config["initializer_range"] = 0.02;
  config["intermediate_size"] = c.intermediate_size;
  config["max_position_embeddings"] = c.max_position_embeddings;
  config["max_window_layers"] = c.num_layers;
  config["model_type"] = "qwen3";
  config["num_attention_heads"] = c.num_heads;
  config["num_hidden_layers"] = c.num_layers;
  config["num_key_value_heads"] = c.num_kv_heads;
  config["rms_norm_eps"] = c.rms_norm_eps;
  config["rope_scaling"] = nullptr;
  config["rope_theta"] = c.rope_theta;
  config["sliding_window"] = nullptr;
  config["tie_word_embeddings"] = c.tie_word_embeddings;
  config["torch_dtype"] = torch_dtype(o.dtype);
  config["use_cache"] = true;
  config["use_sliding_window"] = false;
  config["vocab_size"] = c.vocab_size;
  config["ninfer_make_model"] = {{"preset", preset_label}, {"seed", o.seed}, {"note", "random weights, not a trained model"}};
  write_text(dir / "config.json", config.dump(2) + "\n");

  nlohmann::ordered_json gen;
  gen["bos_token_id"] = id_of("<|endoftext|>");
  gen["do_sample"] = true;
  gen["eos_token_id"] = {id_of("<|im_end|>"), id_of("<|endoftext|>")};
  gen["pad_token_id"] = id_of("<|endoftext|>");
  gen["temperature"] = 0.6;
  gen["top_k"] = 20;
  gen["top_p"] = 0.95;
  write_text(dir / "generation_config.json", gen.dump(2) + "\n");

  const std::vector<TensorPlan> plans = plan_model(o.seed, c);
  std::vector<safetensors::TensorSpec> specs;
  for (const TensorPlan& p : plans) specs.push_back({p.name, o.dtype, p.shape});
  safetensors::Writer st((dir / "model.safetensors").string(), specs, {{"format", "pt"}});

  std::unique_ptr<gguf::Writer> gg;
  if (!gguf_path.empty()) {
    gg = std::make_unique<gguf::Writer>(gguf_path);
    gg->set("general.architecture", gguf::Value::string("qwen3"));
    gg->set("general.name", gguf::Value::string("ninfer random qwen3 " + preset_label + " seed " + std::to_string(o.seed)));
    gg->set("general.file_type", gguf::Value::u32(gguf_file_type(o.gguf_type)));
    gg->set("qwen3.block_count", gguf::Value::u32(static_cast<uint32_t>(c.num_layers)));
    gg->set("qwen3.context_length", gguf::Value::u32(static_cast<uint32_t>(c.max_position_embeddings)));
    gg->set("qwen3.embedding_length", gguf::Value::u32(static_cast<uint32_t>(c.hidden_size)));
    gg->set("qwen3.feed_forward_length", gguf::Value::u32(static_cast<uint32_t>(c.intermediate_size)));
    gg->set("qwen3.attention.head_count", gguf::Value::u32(static_cast<uint32_t>(c.num_heads)));
    gg->set("qwen3.attention.head_count_kv", gguf::Value::u32(static_cast<uint32_t>(c.num_kv_heads)));
    gg->set("qwen3.attention.key_length", gguf::Value::u32(static_cast<uint32_t>(c.head_dim)));
    gg->set("qwen3.attention.value_length", gguf::Value::u32(static_cast<uint32_t>(c.head_dim)));
    gg->set("qwen3.rope.freq_base", gguf::Value::f32(static_cast<float>(c.rope_theta)));
    gg->set("qwen3.attention.layer_norm_rms_epsilon", gguf::Value::f32(static_cast<float>(c.rms_norm_eps)));
    add_gguf_tokenizer(*gg, tok_dir.string(), c.vocab_size);
    for (const TensorPlan& p : plans)
      gg->add_tensor(gguf_tensor_name(p.name), p.shape.size() == 1 ? DType::F32 : o.gguf_type, p.shape);
    gg->begin();
  }

  // Whole rows per chunk (Q8_0 blocks never straddle a chunk), about 256K values each.
  std::vector<float> values;
  std::vector<uint8_t> st_bytes, gg_bytes;
  for (const TensorPlan& p : plans) {
    const int64_t cols = p.shape.back();
    const int64_t rows = p.shape.size() == 2 ? p.shape[0] : 1;
    const int64_t rows_per_chunk = std::max<int64_t>(1, (int64_t{1} << 18) / cols);
    result.parameters += rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += rows_per_chunk) {
      const int64_t nr = std::min(rows_per_chunk, rows - r0);
      const auto n = static_cast<size_t>(nr * cols);
      values.resize(n);
      const int64_t base = r0 * cols;
      for (size_t i = 0; i < n; ++i) values[i] = plan_value(p, base + static_cast<int64_t>(i));
      encode(o.dtype, values.data(), n, st_bytes);  // values now hold what the safetensors file says
      st.write(st_bytes.data(), st_bytes.size());
      if (gg) {
        encode(p.shape.size() == 1 ? DType::F32 : o.gguf_type, values.data(), n, gg_bytes);
        gg->write(gg_bytes.data(), gg_bytes.size());
      }
    }
  }
  st.finish();
  if (gg) gg->finish();
  result.safetensors_bytes = fs::file_size(dir / "model.safetensors");
  if (gg) result.gguf_bytes = fs::file_size(gguf_path);
}

}  // namespace

float make_model_value(uint64_t seed, const std::string& hf_tensor_name, int64_t index, const Qwen3Config& config) {
  for (const TensorPlan& p : plan_model(seed, config))
    if (p.name == hf_tensor_name) return plan_value(p, index);
  throw std::invalid_argument("no tensor " + hf_tensor_name);
}

MakeModelOptions draft_model_options(const std::string& target_dir, int layers) {
  const fs::path dir(target_dir);
  std::ifstream in(dir / "config.json");
  if (!in) throw std::invalid_argument(target_dir + " has no config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.contains("ninfer_make_model") || !j["ninfer_make_model"].contains("seed"))
    throw std::invalid_argument(target_dir + " was not written by make-model (no ninfer_make_model seed in config.json): "
                                "a layer-skip draft is built from the target's seed");
  MakeModelOptions o;
  o.config = parse_hf_config(ss.str(), (dir / "config.json").string());
  if (layers < 1 || layers > o.config->num_layers)
    throw std::invalid_argument("--layers must be 1.." + std::to_string(o.config->num_layers) + " for this target");
  o.config->num_layers = layers;
  o.seed = j["ninfer_make_model"]["seed"].get<uint64_t>();
  const std::string dtype = j.value("torch_dtype", "bfloat16");
  o.dtype = dtype == "float32" ? DType::F32 : dtype == "float16" ? DType::F16 : DType::BF16;
  o.tokenizer = dir.string();
  return o;
}

MakeModelResult make_model(const std::string& out_dir, const MakeModelOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (o.dtype == DType::Q8_0) throw std::invalid_argument("safetensors dtype must be f32, f16 or bf16");
  const Qwen3Config c = o.config ? *o.config : qwen3_preset(o.preset);
  if (o.gguf_type == DType::Q8_0 &&
      (c.hidden_size % 32 != 0 || c.intermediate_size % 32 != 0 || (int64_t{c.num_heads} * c.head_dim) % 32 != 0))
    throw std::invalid_argument("q8_0 needs hidden, intermediate and heads*head_dim sizes that are multiples of 32");
  const std::string preset_label = o.config ? "custom" : o.preset;

  std::string trimmed = out_dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  if (trimmed.empty()) throw std::invalid_argument("empty output folder");
  const fs::path out = fs::absolute(trimmed);
  MakeModelResult result;
  result.dir = out.string();
  // A GGUF inside the model folder is written into the temporary folder and appears with it.
  std::string gguf_outside, gguf_inside;
  if (!o.gguf_path.empty()) {
    const fs::path g = fs::absolute(o.gguf_path);
    if (g.parent_path() == out) gguf_inside = g.filename().string();
    else gguf_outside = g.string();
  } else if (o.gguf_in_folder) {
    gguf_inside = "model.gguf";
  }
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (o.keep_existing) {
      result.reused = true;
      if (!gguf_inside.empty()) result.gguf_path = (out / gguf_inside).string();
      return result;
    }
    if (!o.overwrite) throw std::runtime_error(out.string() + " already exists (use --force to replace it)");
  }
  if (!gguf_outside.empty() && !o.overwrite && fs::exists(gguf_outside, ec))
    throw std::runtime_error(gguf_outside + " already exists (use --force to replace it)");

  fs::create_directories(out.parent_path());
  const std::string suffix = ".tmp-" + unique_suffix();
  const fs::path temp = out.parent_path() / ("." + out.filename().string() + suffix);
  fs::create_directory(temp);
  std::string gguf_temp;
  if (!gguf_outside.empty()) gguf_temp = gguf_outside + suffix;
  else if (!gguf_inside.empty()) gguf_temp = (temp / gguf_inside).string();
  try {
    write_model_files(temp, gguf_temp, o, c, preset_label, result);
  } catch (...) {
    fs::remove_all(temp, ec);
    if (!gguf_outside.empty()) fs::remove(gguf_temp, ec);
    throw;
  }

  // Publish: the folder appears complete or not at all.
  fs::rename(temp, out, ec);
  if (ec && fs::exists(out)) {
    if (o.keep_existing) {
      // Another process finished first: its folder holds the same seeded model.
      fs::remove_all(temp, ec);
      result.reused = true;
    } else {
      const fs::path trash = out.parent_path() / ("." + out.filename().string() + ".old" + suffix);
      fs::rename(out, trash);
      fs::rename(temp, out);
      fs::remove_all(trash, ec);
    }
  } else if (ec) {
    fs::remove_all(temp);
    throw std::runtime_error("cannot rename " + temp.string() + " to " + out.string() + ": " + ec.message());
  }
  if (!gguf_outside.empty()) {
    fs::rename(gguf_temp, gguf_outside);
    result.gguf_path = gguf_outside;
  } else if (!gguf_inside.empty()) {
    result.gguf_path = (out / gguf_inside).string();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace ninfer::models::qwen3
