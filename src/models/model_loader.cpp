#include "models/model_loader.h"

#include <unistd.h>
#include <pwd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "models/kernels/simd_kernels.h"
#include "models/model_error.h"
#include "models/qwen3/make_model.h"
#include "models/qwen3/qwen3_loader.h"
#include "models/qwen3/qwen3_model.h"

namespace ninfer::models {
namespace {

namespace fs = std::filesystem;

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return "/tmp";
}

// The single .gguf file in a folder without config.json, or "".
std::string lone_gguf(const fs::path& dir) {
  std::string found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".gguf" || !e.is_regular_file(ec)) continue;
    if (!found.empty()) throw ModelError(ModelErrorKind::NotFound, "several .gguf files in " + dir.string() + ": name one", dir.string());
    found = e.path().string();
  }
  return found;
}

}  // namespace

std::unique_ptr<LanguageModel> load_model(const std::string& path, const ModelLoadOptions& options) {
  if (options.slots < 1) throw std::invalid_argument("load_model: slots must be at least 1");
  if (options.max_context < 0) throw std::invalid_argument("load_model: max_context must not be negative");
  std::error_code ec;
  const fs::path p(path);
  qwen3::LoadedQwen3 loaded;
  const Residency residency = options.huge_pages ? Residency::HugePages : Residency::Mapped;
  // Matrices packed for the kernels that run here (where the weights are our own copy).
  const WeightPacking packing = kernels::best_kernels().packing;
  if (fs::is_directory(p, ec)) {
    if (fs::is_regular_file(p / "config.json", ec)) {
      loaded = qwen3::load_hf_folder(path, residency, packing);
    } else {
      const std::string g = lone_gguf(p);
      if (g.empty()) throw ModelError(ModelErrorKind::NotFound, "no config.json or .gguf file in " + path, (p / "config.json").string());
      loaded = qwen3::load_gguf(g, residency, packing);
    }
  } else if (fs::is_regular_file(p, ec)) {
    loaded = qwen3::load_gguf(path, residency, packing);
  } else {
    throw ModelError(ModelErrorKind::NotFound, "no model at " + path, path);
  }
  qwen3::Qwen3ModelOptions mo;
  mo.slots = options.slots;
  const int model_max = loaded.weights->config.max_position_embeddings;
  mo.max_context = options.max_context > 0 ? std::min(options.max_context, model_max) : model_max;
  mo.threads = options.threads;
  mo.prompt_attention = options.prompt_attention;
  mo.tokenizer = loaded.tokenizer;
  std::string name = p.filename().string();
  if (name.empty()) name = p.parent_path().filename().string();
  mo.name = name + " " + loaded.format;
  return std::make_unique<qwen3::Qwen3Model>(loaded.weights, std::move(mo));
}

std::string default_model_dir() {
  if (const char* env = std::getenv("NINFER_MODEL_CACHE"); env && *env) return env;
  std::string cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) cache = xdg;
  else cache = home_dir() + "/.cache";
  return cache + "/ninfer/models/qwen3-tiny-s0";
}

std::string ensure_default_model() {
  const std::string dir = default_model_dir();
  std::error_code ec;
  if (fs::is_regular_file(fs::path(dir) / "config.json", ec)) return dir;
  qwen3::MakeModelOptions o;
  o.preset = "tiny";
  o.seed = 0;
  o.dtype = DType::BF16;
  o.gguf_in_folder = true;
  o.gguf_type = DType::Q8_0;
  o.keep_existing = true;
  qwen3::make_model(dir, o);
  if (!fs::is_regular_file(fs::path(dir) / "config.json", ec))
    throw ModelError(ModelErrorKind::NotFound, dir + " exists but holds no model (remove it or set NINFER_MODEL_CACHE)", dir);
  return dir;
}

}  // namespace ninfer::models
