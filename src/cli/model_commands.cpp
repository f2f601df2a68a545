#include "cli/model_commands.h"

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/option_checks.h"
#include "cli/error_report.h"
#include "models/model_error.h"
#include "models/qwen3/make_model.h"
#include "models/qwen3/qwen3_loader.h"

namespace ninfer::cli {
namespace {

struct MakeModelArgs {
  std::string tokenizer = "qwen3";
  std::string preset = "tiny";
  uint64_t seed = 0;
  std::string out;
  std::string dtype = "bf16";
  std::string gguf;
  std::string gguf_type = "q8_0";
  bool force = false;
  std::string from;  // --preset draft: the target folder
  int layers = 0;    // --preset draft: its first layers kept
};

models::DType parse_dtype(const std::string& s) {
  if (s == "f32") return models::DType::F32;
  if (s == "f16") return models::DType::F16;
  if (s == "bf16") return models::DType::BF16;
  return models::DType::Q8_0;
}

int run_make_model(const MakeModelArgs& a) {
  try {
    models::qwen3::MakeModelOptions o;
    if (a.preset == "draft") {
      if (a.from.empty() || a.layers < 1) throw std::invalid_argument("--preset draft needs --from TARGET_DIR and --layers N");
      o = models::qwen3::draft_model_options(a.from, a.layers);
    } else {
      o.preset = a.preset;
      o.seed = a.seed;
      o.tokenizer = a.tokenizer;
      o.dtype = parse_dtype(a.dtype);
    }
    o.gguf_path = a.gguf.empty() ? "" : std::filesystem::absolute(a.gguf).string();
    o.gguf_type = parse_dtype(a.gguf_type);
    o.overwrite = a.force;
    const auto r = models::qwen3::make_model(a.out, o);
    nlohmann::ordered_json j;
    j["dir"] = r.dir;
    j["gguf"] = r.gguf_path.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.gguf_path);
    j["preset"] = a.preset;
    j["seed"] = o.seed;
    j["dtype"] = a.preset == "draft" ? std::string(models::dtype_name(o.dtype)) : a.dtype;
    if (a.preset == "draft") {
      j["from"] = a.from;
      j["layers"] = a.layers;
    }
    if (!r.gguf_path.empty()) j["gguf_type"] = a.gguf_type;
    j["parameters"] = r.parameters;
    j["safetensors_bytes"] = r.safetensors_bytes;
    j["gguf_bytes"] = r.gguf_bytes;
    j["seconds"] = r.seconds;
    std::cout << j.dump() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    return report_request_error(e);
  }
}

int run_model_info(const std::string& path) {
  try {
    std::error_code ec;
    const bool folder = std::filesystem::is_directory(path, ec);
    const auto loaded = folder ? models::qwen3::load_hf_folder(path) : models::qwen3::load_gguf(path);
    const auto& c = loaded.weights->config;
    nlohmann::ordered_json j;
    j["path"] = path;
    j["format"] = loaded.format;
    j["architecture"] = "qwen3";
    j["dtype"] = loaded.dtype;
    j["config"] = {{"vocab_size", c.vocab_size},
                   {"hidden_size", c.hidden_size},
                   {"intermediate_size", c.intermediate_size},
                   {"num_hidden_layers", c.num_layers},
                   {"num_attention_heads", c.num_heads},
                   {"num_key_value_heads", c.num_kv_heads},
                   {"head_dim", c.head_dim},
                   {"rope_theta", c.rope_theta},
                   {"rms_norm_eps", c.rms_norm_eps},
                   {"tie_word_embeddings", c.tie_word_embeddings},
                   {"max_position_embeddings", c.max_position_embeddings}};
    uint64_t bytes = 0;
    int64_t params = 0;
    const auto add = [&](const models::TensorView& t) {
      bytes += t.bytes;
      params += t.elements();
    };
    add(loaded.weights->embed);
    add(loaded.weights->final_norm);
    if (!c.tie_word_embeddings) add(loaded.weights->lm_head);
    for (const auto& l : loaded.weights->layers)
      for (const auto* t : {&l.attn_norm, &l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.q_norm, &l.k_norm, &l.ffn_norm,
                            &l.gate_proj, &l.up_proj, &l.down_proj})
        add(*t);
    j["parameters"] = params;
    j["weight_bytes"] = bytes;
    j["tokenizer"] = {{"vocab_size", loaded.tokenizer->vocab_size()}, {"eos_ids", loaded.tokenizer->eos_ids()}};
    std::cout << j.dump() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    return report_request_error(e);
  }
}

}  // namespace

void register_model_commands(CLI::App& app, int& status) {
  auto args = std::make_shared<MakeModelArgs>();
  auto* make = app.add_subcommand("make-model", "Write a random-weight Qwen3 model (HF folder, optionally GGUF) with a real tokenizer");
  make->add_option("--tokenizer", args->tokenizer, "qwen3 (npm asset), a tokenizer.json or a folder holding one")
      ->capture_default_str();
  make->add_option("--preset", args->preset,
                   "tiny | small | 0.6b | draft (a layer-skip draft of --from: its embeddings, first --layers layers and "
                   "head, same seed, dtype and tokenizer)")
      ->check(CLI::IsMember({"tiny", "small", "0.6b", "draft"}))
      ->capture_default_str();
  make->add_option("--from", args->from, "--preset draft: the target model folder (written by make-model)");
  make->add_option("--layers", args->layers, "--preset draft: layers kept")->check(integer_option<int>(1));
  make->add_option("--seed", args->seed, "random seed")->check(integer_option<uint64_t>(0))->capture_default_str();
  make->add_option("--out", args->out, "output folder (written under a temporary name, then renamed)")->required();
  make->add_option("--dtype", args->dtype, "safetensors dtype")->check(CLI::IsMember({"bf16", "f16", "f32"}))->capture_default_str();
  make->add_option("--gguf", args->gguf, "also write the same weights as this GGUF file");
  make->add_option("--gguf-type", args->gguf_type, "GGUF matrix type (norms stay f32)")
      ->check(CLI::IsMember({"f16", "bf16", "f32", "q8_0"}))
      ->capture_default_str();
  make->add_flag("--force", args->force, "replace an existing folder / GGUF file");
  make->callback([args, &status] { status = run_make_model(*args); });

  auto path = std::make_shared<std::string>();
  auto* info = app.add_subcommand("model-info", "Load a model's weights and tokenizer and print its configuration");
  info->add_option("path", *path, "Hugging Face folder or GGUF file")->required();
  info->callback([path, &status] { status = run_model_info(*path); });
}

}  // namespace ninfer::cli
