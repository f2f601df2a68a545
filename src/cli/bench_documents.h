// The documents `ninfer grammar bench` walks, read from --inputs: a MaskBench file (its valid
// tests), a JSONL file of {"text": ...} lines, a plain .json file holding one document, or a
// folder of such *.json / *.jsonl files.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace ninfer::cli {

// Why the inputs gave no document to walk; `path` names the folder or file, `line` a JSONL line (0 = none).
class BenchInputsError : public std::runtime_error {
 public:
  BenchInputsError(const std::string& message, std::string path, size_t line = 0)
      : std::runtime_error(message), path_(std::move(path)), line_(line) {}
  const std::string& path() const { return path_; }
  size_t line() const { return line_; }

 private:
  std::string path_;
  size_t line_;
};

// At most `max_docs` documents, serialised compactly (`compact`) or with the generation
// language's separators otherwise. Throws BenchInputsError when a file cannot be read or parsed,
// and when no document is found.
std::vector<std::string> load_bench_documents(const std::string& inputs, size_t max_docs, bool compact);

// Prints the error JSON ({"error": {"kind": "inputs", "message", "location": {"path", "line"?}}}); returns 2.
int report_bench_inputs_error(const BenchInputsError& e);

}  // namespace ninfer::cli
