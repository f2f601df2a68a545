// A whole file mapped read-only into memory, unmapped when the last owner lets go. Tensor views
// point straight into the mapping: loading a checkpoint copies nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ninfer::models {

class MappedFile {
 public:
  // Throws ModelError NotFound when the file cannot be opened, mapped or is not a regular file.
  static std::shared_ptr<const MappedFile> open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

// Maps `path` and parses the bytes with `parse(bytes, path)`; the returned file keeps the mapping
// alive in its `storage`, since its tensor views point into it.
template <class File, class Parse>
File open_mapped(const std::string& path, Parse parse) {
  std::shared_ptr<const MappedFile> map = MappedFile::open(path);
  File file = parse(map->bytes(), path);
  file.storage.push_back(std::move(map));
  return file;
}

}  // namespace ninfer::models
