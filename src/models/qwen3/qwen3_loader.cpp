#include "models/qwen3/qwen3_loader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/gguf_tokenizer.h"
#include "models/model_error.h"
#include "models/safetensors.h"

namespace ninfer::models::qwen3 {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

[[noreturn]] void fail(ModelErrorKind kind, const std::string& message, const std::string& location) {
  throw ModelError(kind, message, location);
}

// Hyper-parameter limits: generous for real models, tight enough that products stay in range.
constexpr int64_t kMaxVocab = int64_t{1} << 24;
constexpr int64_t kMaxWidth = int64_t{1} << 20;
constexpr int64_t kMaxLayers = 4096;
constexpr int64_t kMaxHeads = 4096;
constexpr int64_t kMaxContext = int64_t{1} << 24;

struct LayerTensor {
  const char* hf;    // after "model.layers.N."
  const char* gguf;  // after "blk.N."
  TensorView Qwen3LayerWeights::*member;
};
constexpr LayerTensor kLayerTensors[] = {
    {"input_layernorm.weight", "attn_norm.weight", &Qwen3LayerWeights::attn_norm},
    {"self_attn.q_proj.weight", "attn_q.weight", &Qwen3LayerWeights::q_proj},
    {"self_attn.k_proj.weight", "attn_k.weight", &Qwen3LayerWeights::k_proj},
    {"self_attn.v_proj.weight", "attn_v.weight", &Qwen3LayerWeights::v_proj},
    {"self_attn.o_proj.weight", "attn_output.weight", &Qwen3LayerWeights::o_proj},
    {"self_attn.q_norm.weight", "attn_q_norm.weight", &Qwen3LayerWeights::q_norm},
    {"self_attn.k_norm.weight", "attn_k_norm.weight", &Qwen3LayerWeights::k_norm},
    {"post_attention_layernorm.weight", "ffn_norm.weight", &Qwen3LayerWeights::ffn_norm},
    {"mlp.gate_proj.weight", "ffn_gate.weight", &Qwen3LayerWeights::gate_proj},
    {"mlp.up_proj.weight", "ffn_up.weight", &Qwen3LayerWeights::up_proj},
    {"mlp.down_proj.weight", "ffn_down.weight", &Qwen3LayerWeights::down_proj},
};

struct Naming {
  const char* embed;
  const char* final_norm;
  const char* lm_head;
  const char* layer_prefix;  // followed by the layer index and a dot
  bool gguf;
};
constexpr Naming kHfNames{"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight", "model.layers.", false};
constexpr Naming kGgufNames{"token_embd.weight", "output_norm.weight", "output.weight", "blk.", true};

std::string layer_name(const Naming& n, int layer, const LayerTensor& t) {
  return n.layer_prefix + std::to_string(layer) + "." + (n.gguf ? t.gguf : t.hf);
}

// Fills the weight slots from `find` (name -> view or null). Tied models take the embedding as the
// output projection; an untied one must have its own.
template <class Find>
void assign_tensors(Qwen3Weights& w, const Naming& n, const std::string& file_for_errors, Find find) {
  const auto take = [&](const std::string& name, TensorView& slot) {
    const TensorView* t = find(name);
    if (!t) fail(ModelErrorKind::MissingTensor, "missing tensor " + name, file_for_errors + ":" + name);
    slot = *t;
  };
  take(n.embed, w.embed);
  take(n.final_norm, w.final_norm);
  if (w.config.tie_word_embeddings) w.lm_head = w.embed;
  else take(n.lm_head, w.lm_head);
  w.layers.assign(static_cast<size_t>(w.config.num_layers), Qwen3LayerWeights{});
  for (int i = 0; i < w.config.num_layers; ++i)
    for (const LayerTensor& t : kLayerTensors) take(layer_name(n, i, t), w.layers[static_cast<size_t>(i)].*t.member);
}

std::string read_small_file(const std::string& path, size_t limit) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail(ModelErrorKind::NotFound, "missing " + path, path);
  const auto size = fs::file_size(path, ec);
  if (ec) fail(ModelErrorKind::NotFound, "cannot read " + path, path);
  if (size > limit) fail(ModelErrorKind::BadConfig, path + " is too large (" + std::to_string(size) + " bytes)", path);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) fail(ModelErrorKind::NotFound, "cannot read " + path, path);
  return ss.str();
}

json parse_json_file(const std::string& text, const std::string& label) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // parse_error carries the offset; out_of_range (a number beyond binary64, "1E400") does not.
    const auto* pe = dynamic_cast<const json::parse_error*>(&e);
    fail(ModelErrorKind::BadConfig, std::string("invalid JSON: ") + e.what(), label + ":" + std::to_string(pe ? pe->byte : 0));
  }
}

// Typed access to config.json members with "label:/key" locations.
class ConfigReader {
 public:
  ConfigReader(const json& j, const std::string& label) : j_(j), label_(label) {}

  std::string at(const std::string& key) const { return label_ + ":/" + key; }
  const json* get(const std::string& key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  int integer(const std::string& key, std::optional<int64_t> fallback, int64_t lo, int64_t hi) const {
    const json* v = get(key);
    if (!v) {
      if (!fallback) fail(ModelErrorKind::BadConfig, "config.json has no " + key, at(key));
      return static_cast<int>(*fallback);
    }
    if (!v->is_number_integer()) fail(ModelErrorKind::BadConfig, key + " must be an integer", at(key));
    const int64_t x = v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : v->get<int64_t>();
    if (x < lo || x > hi)
      fail(ModelErrorKind::BadConfig, key + " = " + std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
           at(key));
    return static_cast<int>(x);
  }
  double number(const std::string& key, double fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_number()) fail(ModelErrorKind::BadConfig, key + " must be a number", at(key));
    const double x = v->get<double>();
    if (!std::isfinite(x) || x <= 0) fail(ModelErrorKind::BadConfig, key + " must be positive and finite", at(key));
    return x;
  }
  bool boolean(const std::string& key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(ModelErrorKind::BadConfig, key + " must be true or false", at(key));
    return v->get<bool>();
  }

 private:
  const json& j_;
  const std::string& label_;
};

std::string dtype_summary(const Qwen3Weights& w) {
  return w.layers.empty() ? dtype_name(w.embed.dtype) : dtype_name(w.layers[0].q_proj.dtype);
}

std::shared_ptr<const tokenizer::Tokenizer> checked_tokenizer(std::shared_ptr<const tokenizer::Tokenizer> tok,
                                                              const Qwen3Weights& w, const std::string& where) {
  if (tok->vocab_size() > w.config.vocab_size)
    fail(ModelErrorKind::BadConfig,
         "the tokenizer has " + std::to_string(tok->vocab_size()) + " ids but the model only " + std::to_string(w.config.vocab_size) +
             " embedding rows",
         where);
  return tok;
}

// Packs w's matrices that lie in the maps' copies (MappedFile::rewrite: a mapping of the file, or a
// misaligned tensor's own copy, stays as it is); a tied output matrix is the embedding's view again.
void pack_matrices(Qwen3Weights& w, std::span<const std::shared_ptr<const MappedFile>> maps, WeightPacking packing) {
  if (!packing.any()) return;
  const std::vector<TensorView*> matrices = w.matrices();
  for (const auto& map : maps) {
    map->rewrite([&](uint8_t* bytes) {
      for (TensorView* t : matrices) {
        const auto* data = static_cast<const uint8_t*>(t->data);
        if (data < map->data() || data >= map->data() + map->size()) continue;
        uint8_t* at = bytes + (data - map->data());
        if (packing.q8 == Q8Packing::Tiles && packs_q8_tiles(*t)) pack_q8_tiles(*t, at);
        if (packing.q8 == Q8Packing::Lanes && packs_q8_lanes(*t)) pack_q8_lanes(*t, at);
        if (packing.column_tiles && packs_column_tiles(*t)) pack_column_tiles(*t, at);
      }
    });
  }
  if (w.config.tie_word_embeddings) w.lm_head = w.embed;
}

}  // namespace

std::string gguf_tensor_name(const std::string& hf_name) {
  if (hf_name == kHfNames.embed) return kGgufNames.embed;
  if (hf_name == kHfNames.final_norm) return kGgufNames.final_norm;
  if (hf_name == kHfNames.lm_head) return kGgufNames.lm_head;
  const std::string prefix = kHfNames.layer_prefix;
  if (hf_name.rfind(prefix, 0) != 0) return "";
  const size_t dot = hf_name.find('.', prefix.size());
  if (dot == std::string::npos) return "";
  const std::string index = hf_name.substr(prefix.size(), dot - prefix.size());
  const std::string rest = hf_name.substr(dot + 1);
  for (const LayerTensor& t : kLayerTensors)
    if (rest == t.hf) return std::string(kGgufNames.layer_prefix) + index + "." + t.gguf;
  return "";
}

Qwen3Config parse_hf_config(std::string_view config_json, const std::string& label) {
  const json j = parse_json_file(std::string(config_json), label);
  if (!j.is_object()) fail(ModelErrorKind::BadConfig, "config.json is not an object", label + ":/");
  const ConfigReader r(j, label);
  bool qwen3 = false;
  if (const json* mt = r.get("model_type")) {
    if (!mt->is_string()) fail(ModelErrorKind::BadConfig, "model_type must be a string", r.at("model_type"));
    if (mt->get<std::string>() != "qwen3")
      fail(ModelErrorKind::Unsupported, "model_type \"" + mt->get<std::string>() + "\" is not supported (qwen3 is)", r.at("model_type"));
    qwen3 = true;
  }
  if (const json* arch = r.get("architectures")) {
    if (!arch->is_array()) fail(ModelErrorKind::BadConfig, "architectures must be an array", r.at("architectures"));
    bool found = false;
    for (const json& a : *arch) found |= a.is_string() && a.get<std::string>() == "Qwen3ForCausalLM";
    if (!found) fail(ModelErrorKind::Unsupported, "architectures does not name Qwen3ForCausalLM", r.at("architectures"));
    qwen3 = true;
  }
  if (!qwen3) fail(ModelErrorKind::BadConfig, "config.json names neither model_type nor architectures", r.at("model_type"));
  // Features of the Qwen3 family we do not run: say so rather than compute something else.
  if (const json* act = r.get("hidden_act"); act && (!act->is_string() || act->get<std::string>() != "silu"))
    fail(ModelErrorKind::Unsupported, "hidden_act must be silu", r.at("hidden_act"));
  if (r.boolean("attention_bias", false)) fail(ModelErrorKind::Unsupported, "attention biases are not supported", r.at("attention_bias"));
  if (r.get("rope_scaling")) fail(ModelErrorKind::Unsupported, "rope_scaling is not supported", r.at("rope_scaling"));
  if (r.boolean("use_sliding_window", false)) fail(ModelErrorKind::Unsupported, "sliding-window attention is not supported", r.at("use_sliding_window"));

  Qwen3Config c;
  c.vocab_size = r.integer("vocab_size", std::nullopt, 1, kMaxVocab);
  c.hidden_size = r.integer("hidden_size", std::nullopt, 1, kMaxWidth);
  c.intermediate_size = r.integer("intermediate_size", std::nullopt, 1, kMaxWidth);
  c.num_layers = r.integer("num_hidden_layers", std::nullopt, 1, kMaxLayers);
  c.num_heads = r.integer("num_attention_heads", std::nullopt, 1, kMaxHeads);
  c.num_kv_heads = r.integer("num_key_value_heads", c.num_heads, 1, kMaxHeads);
  if (c.num_heads % c.num_kv_heads != 0)
    fail(ModelErrorKind::BadConfig, "num_key_value_heads must divide num_attention_heads", r.at("num_key_value_heads"));
  c.head_dim = r.integer("head_dim", c.hidden_size / c.num_heads, 2, 1 << 16);
  if (c.head_dim % 2 != 0) fail(ModelErrorKind::BadConfig, "head_dim must be even", r.at("head_dim"));
  c.rope_theta = r.number("rope_theta", 10000.0);
  c.rms_norm_eps = r.number("rms_norm_eps", 1e-6);
  c.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
  c.max_position_embeddings = r.integer("max_position_embeddings", 32768, 1, kMaxContext);
  return c;
}

std::shared_ptr<const Qwen3Weights> load_hf_weights(const std::string& dir, Residency residency, WeightPacking packing) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(ModelErrorKind::NotFound, "model folder " + dir + " does not exist", dir);
  auto w = std::make_shared<Qwen3Weights>();
  w->source = dir;
  const std::string config_path = (fs::path(dir) / "config.json").string();
  w->config = parse_hf_config(read_small_file(config_path, 16u << 20), config_path);

  std::map<std::string, TensorView> all;        // every tensor of every shard
  std::map<std::string, std::string> where;     // tensor -> shard path
  std::vector<std::shared_ptr<const MappedFile>> maps;  // one per shard
  const auto add_file = [&](const std::string& path) {
    maps.push_back(MappedFile::open(path, residency));
    safetensors::File f = safetensors::parse(maps.back()->bytes(), path);
    f.storage.push_back(maps.back());
    for (TensorView& t : f.tensors) {
      if (all.count(t.name)) fail(ModelErrorKind::BadHeader, "tensor " + t.name + " also appears in " + where[t.name], path + ":" + t.name);
      where[t.name] = path;
      all[t.name] = t;
    }
    for (auto& s : f.storage) w->storage.push_back(std::move(s));
  };
  const fs::path index_path = fs::path(dir) / "model.safetensors.index.json";
  const fs::path single_path = fs::path(dir) / "model.safetensors";
  std::string missing_location = single_path.string();
  if (fs::is_regular_file(index_path, ec)) {
    const std::string ipath = index_path.string();
    const json index = parse_json_file(read_small_file(ipath, 64u << 20), ipath);
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
      fail(ModelErrorKind::BadConfig, "index has no weight_map object", ipath + ":/weight_map");
    std::map<std::string, std::vector<std::string>> by_shard;
    for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
      const std::string loc = ipath + ":/weight_map/" + it.key();
      if (!it.value().is_string()) fail(ModelErrorKind::BadConfig, "weight_map values must be file names", loc);
      const std::string shard = it.value().get<std::string>();
      // Only plain names inside the folder: an index must not point elsewhere on disk.
      if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..")
        fail(ModelErrorKind::BadConfig, "shard name \"" + shard + "\" is not a file name in the model folder", loc);
      by_shard[shard].push_back(it.key());
    }
    if (by_shard.empty()) fail(ModelErrorKind::BadConfig, "weight_map is empty", ipath + ":/weight_map");
    for (const auto& [shard, names] : by_shard) {
      const std::string spath = (fs::path(dir) / shard).string();
      if (!fs::is_regular_file(spath, ec))
        fail(ModelErrorKind::NotFound, "shard " + shard + " named by the index is missing", ipath + ":/weight_map/" + names.front());
      add_file(spath);
      for (const std::string& name : names)
        if (where[name] != spath) fail(ModelErrorKind::MissingTensor, "tensor " + name + " is not in " + shard, spath + ":" + name);
    }
    missing_location = ipath;
  } else if (fs::is_regular_file(single_path, ec)) {
    add_file(single_path.string());
  } else {
    fail(ModelErrorKind::NotFound, "no model.safetensors or model.safetensors.index.json in " + dir, single_path.string());
  }

  assign_tensors(*w, kHfNames, missing_location, [&](const std::string& name) -> const TensorView* {
    auto it = all.find(name);
    return it == all.end() ? nullptr : &it->second;
  });
  // Report problems at the shard that holds the tensor.
  try {
    validate_qwen3_weights(*w);
  } catch (const ModelError& e) {
    std::string loc = e.location();
    for (const auto& [name, path] : where)
      if (loc == dir + ":" + name) loc = path + ":" + name;
    throw ModelError(e.kind(), e.what(), loc);
  }
  pack_matrices(*w, maps, packing);
  return w;
}

LoadedQwen3 load_hf_folder(const std::string& dir, Residency residency, WeightPacking packing) {
  LoadedQwen3 out;
  out.weights = load_hf_weights(dir, residency, packing);
  out.format = "safetensors";
  out.dtype = dtype_summary(*out.weights);
  try {
    out.tokenizer = checked_tokenizer(tokenizer::Tokenizer::load(dir), *out.weights, (fs::path(dir) / "tokenizer.json").string());
  } catch (const tokenizer::TokenizerError& e) {
    fail(e.kind() == tokenizer::TokenizerErrorKind::NotFound ? ModelErrorKind::NotFound : ModelErrorKind::BadConfig,
         std::string("tokenizer: ") + e.what(), e.location());
  }
  return out;
}

Qwen3Config gguf_qwen3_config(const gguf::File& file) {
  const std::string arch = file.get_string("general.architecture");
  if (arch != "qwen3")
    fail(ModelErrorKind::Unsupported, "architecture \"" + arch + "\" is not supported (qwen3 is)", file.path + ":general.architecture");
  const auto integer = [&](const std::string& key, std::optional<int64_t> fallback, int64_t lo, int64_t hi) {
    std::optional<int64_t> v = file.get_int_or(key);
    if (!v) {
      if (!fallback) fail(ModelErrorKind::BadConfig, "missing metadata " + key, file.path + ":" + key);
      v = fallback;
    }
    if (*v < lo || *v > hi)
      fail(ModelErrorKind::BadConfig, key + " = " + std::to_string(*v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
           file.path + ":" + key);
    return static_cast<int>(*v);
  };
  const auto number = [&](const std::string& key, std::optional<double> fallback) {
    std::optional<double> v = file.get_number_or(key);
    if (!v) {
      if (!fallback) fail(ModelErrorKind::BadConfig, "missing metadata " + key, file.path + ":" + key);
      v = fallback;
    }
    if (!std::isfinite(*v) || *v <= 0) fail(ModelErrorKind::BadConfig, key + " must be positive and finite", file.path + ":" + key);
    return *v;
  };
  Qwen3Config c;
  c.num_layers = integer("qwen3.block_count", std::nullopt, 1, kMaxLayers);
  c.max_position_embeddings = integer("qwen3.context_length", std::nullopt, 1, kMaxContext);
  c.hidden_size = integer("qwen3.embedding_length", std::nullopt, 1, kMaxWidth);
  c.intermediate_size = integer("qwen3.feed_forward_length", std::nullopt, 1, kMaxWidth);
  c.num_heads = integer("qwen3.attention.head_count", std::nullopt, 1, kMaxHeads);
  c.num_kv_heads = integer("qwen3.attention.head_count_kv", c.num_heads, 1, kMaxHeads);
  if (c.num_heads % c.num_kv_heads != 0)
    fail(ModelErrorKind::BadConfig, "head_count_kv must divide head_count", file.path + ":qwen3.attention.head_count_kv");
  c.head_dim = integer("qwen3.attention.key_length", c.hidden_size / c.num_heads, 2, 1 << 16);
  if (c.head_dim % 2 != 0) fail(ModelErrorKind::BadConfig, "key_length must be even", file.path + ":qwen3.attention.key_length");
  if (integer("qwen3.attention.value_length", c.head_dim, 1, 1 << 16) != c.head_dim)
    fail(ModelErrorKind::Unsupported, "value_length different from key_length", file.path + ":qwen3.attention.value_length");
  c.rope_theta = number("qwen3.rope.freq_base", 10000.0);
  c.rms_norm_eps = number("qwen3.attention.layer_norm_rms_epsilon", std::nullopt);
  const TensorView* embd = file.find_tensor("token_embd.weight");
  if (!embd) fail(ModelErrorKind::MissingTensor, "missing tensor token_embd.weight", file.path + ":token_embd.weight");
  if (embd->shape.size() != 2 || embd->shape[0] < 1 || embd->shape[0] > kMaxVocab)
    fail(ModelErrorKind::WrongShape, "token_embd.weight must be [vocab, hidden]", file.path + ":token_embd.weight");
  c.vocab_size = static_cast<int>(embd->shape[0]);
  c.tie_word_embeddings = file.find_tensor("output.weight") == nullptr;
  return c;
}

namespace {

std::shared_ptr<Qwen3Weights> gguf_weights(const gguf::File& file) {
  auto w = std::make_shared<Qwen3Weights>();
  w->source = file.path;
  w->config = gguf_qwen3_config(file);
  assign_tensors(*w, kGgufNames, file.path, [&](const std::string& name) { return file.find_tensor(name); });
  validate_qwen3_weights(*w);
  w->storage = file.storage;
  return w;
}


}  // namespace

std::shared_ptr<const Qwen3Weights> weights_from_gguf(const gguf::File& file) { return gguf_weights(file); }

std::shared_ptr<const Qwen3Weights> load_gguf_weights(const std::string& path) {
  gguf::File file = gguf::open(path);
  return weights_from_gguf(file);
}

LoadedQwen3 load_gguf(const std::string& path, Residency residency, WeightPacking packing) {
  const std::shared_ptr<const MappedFile> map = MappedFile::open(path, residency);
  gguf::File file = gguf::parse(map->bytes(), path);
  file.storage.push_back(map);
  std::shared_ptr<Qwen3Weights> weights = gguf_weights(file);
  pack_matrices(*weights, std::span(&map, 1), packing);
  LoadedQwen3 out;
  out.weights = std::move(weights);
  out.format = "gguf";
  out.dtype = dtype_summary(*out.weights);
  out.tokenizer = checked_tokenizer(load_gguf_tokenizer(file), *out.weights, path + ":tokenizer.ggml.tokens");
  return out;
}

}  // namespace ninfer::models::qwen3
