#include "cli/bench_documents.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "text/json_text.h"

namespace ninfer::cli {
namespace {

namespace fs = std::filesystem;

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw BenchInputsError("cannot read file", p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A MaskBench file is an object with a "schema" and a "tests" array; any other JSON value is one document.
bool is_maskbench_file(const nlohmann::ordered_json& j) {
  return j.is_object() && j.contains("schema") && j.contains("tests") && j["tests"].is_array();
}

}  // namespace

std::vector<std::string> load_bench_documents(const std::string& inputs, size_t max_docs, bool compact) {
  std::vector<fs::path> files;
  std::error_code ec;
  const bool folder = fs::is_directory(inputs, ec);
  if (folder) {
    for (const auto& e : fs::directory_iterator(inputs, ec))
      if (e.path().extension() == ".json" || e.path().extension() == ".jsonl") files.push_back(e.path());
    if (ec) throw BenchInputsError("cannot list folder: " + ec.message(), inputs);
    std::sort(files.begin(), files.end());
    if (files.empty()) throw BenchInputsError("no usable documents: the folder holds no *.json or *.jsonl file", inputs);
  } else {
    if (!fs::exists(inputs, ec)) throw BenchInputsError("no such file or folder", inputs);
    files.push_back(inputs);
  }
  std::vector<std::string> docs;
  const text::JsonStyle style{!compact, !compact};
  size_t maskbench_files = 0;
  for (const auto& f : files) {
    if (docs.size() >= max_docs) break;
    const std::string content = read_whole(f);
    if (f.extension() == ".jsonl") {
      std::istringstream ss(content);
      std::string line;
      for (size_t n = 1; docs.size() < max_docs && std::getline(ss, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("text") || !j["text"].is_string())
          throw BenchInputsError("a JSONL line must be an object with a string \"text\"", f.string(), n);
        docs.push_back(j["text"].get<std::string>());
      }
      continue;
    }
    auto j = nlohmann::ordered_json::parse(content, nullptr, false);
    if (j.is_discarded()) throw BenchInputsError("not a JSON document", f.string());
    if (!is_maskbench_file(j)) {
      docs.push_back(text::dump_json(j, style));
      continue;
    }
    ++maskbench_files;
    for (const auto& t : j["tests"]) {
      if (docs.size() >= max_docs) break;
      if (t.is_object() && t.value("valid", false) && t.contains("data")) docs.push_back(text::dump_json(t["data"], style));
    }
  }
  if (docs.empty())
    throw BenchInputsError(maskbench_files ? "no usable documents: the MaskBench files hold no valid test"
                                           : "no usable documents: the JSONL lines are all blank",
                           inputs);
  return docs;
}

int report_bench_inputs_error(const BenchInputsError& e) {
  nlohmann::json loc{{"path", e.path()}};
  if (e.line() > 0) loc["line"] = e.line();
  std::cout << nlohmann::json{{"error", {{"kind", "inputs"}, {"message", e.what()}, {"location", loc}}}}.dump()
            << std::endl;
  return 2;
}

}  // namespace ninfer::cli
