// A whole file mapped read-only into memory, unmapped when the last owner lets go. Tensor views
// point straight into it: a Mapped file copies nothing; a HugePages one is copied once into
// anonymous memory backed by transparent huge pages (weights read on every decode step then cost one
// TLB entry per 2 MiB instead of per 4 KiB: B=1 q8_0 decode of the 0.6b shape ~28.2 -> ~27.2 ms on
// 2 threads, docs/models.md), at the price of its own resident copy instead of the page cache's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace ninfer::models {

enum class Residency { Mapped, HugePages };

class MappedFile {
 public:
  // Throws ModelError NotFound when the file cannot be opened, mapped or is not a regular file.
  // HugePages falls back to the mapping when the anonymous memory cannot be had.
  static std::shared_ptr<const MappedFile> open(const std::string& path, Residency residency = Residency::Mapped);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

  // Lets fn rewrite a HugePages copy in place (fn gets data(), writable for the call): the loader packs
  // weights for the kernels there before any view of them is shared. False, and fn is not called, for
  // a mapping of the file itself.
  bool rewrite(const std::function<void(uint8_t* bytes)>& fn) const;

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* region_ = nullptr;  // what to unmap: the file mapping, or the anonymous copy's region
  size_t region_bytes_ = 0;
  bool copied_ = false;  // region_ is an anonymous copy, not the file's mapping
  std::string path_;
};

// Maps `path` and parses the bytes with `parse(bytes, path)`; the returned file keeps the mapping
// alive in its `storage`, since its tensor views point into it.
template <class File, class Parse>
File open_mapped(const std::string& path, Parse parse, Residency residency = Residency::Mapped) {
  std::shared_ptr<const MappedFile> map = MappedFile::open(path, residency);
  File file = parse(map->bytes(), path);
  file.storage.push_back(std::move(map));
  return file;
}

}  // namespace ninfer::models
