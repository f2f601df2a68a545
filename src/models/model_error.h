// Typed errors for model files: a truncated or inconsistent checkpoint is reported with the file and
// the place inside it (tensor name, header offset, config key), never a crash.
#pragma once

#include <stdexcept>
#include <string>

namespace ninfer::models {

enum class ModelErrorKind {
  NotFound,       // no such file/folder, or a shard named by the index is missing
  BadHeader,      // unreadable header: bad magic, bad JSON, bad lengths, unsupported version
  Truncated,      // a tensor or the header extends past the end of the file
  MissingTensor,  // a tensor the architecture needs is absent
  WrongShape,     // a tensor's shape disagrees with the config
  UnknownDtype,   // a dtype / GGML type we do not load
  BadConfig,      // config.json / GGUF metadata missing a key or holding an impossible value
  Unsupported,    // a well-formed file for an architecture or feature we do not run
};

const char* model_error_kind_name(ModelErrorKind kind);

class ModelError : public std::runtime_error {
 public:
  ModelError(ModelErrorKind kind, std::string message, std::string location)
      : std::runtime_error(std::move(message)), kind_(kind), location_(std::move(location)) {}
  ModelErrorKind kind() const { return kind_; }
  // "file", "file:tensor name", "file:byte offset" or "config.json:/key".
  const std::string& location() const { return location_; }

 private:
  ModelErrorKind kind_;
  std::string location_;
};

}  // namespace ninfer::models
