#include "models/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "models/model_error.h"

namespace ninfer::models {

namespace {

// The file's bytes copied into anonymous memory aligned to 2 MiB (at data) and advised as huge pages:
// the region to unmap later, or null when it cannot be mapped.
void* huge_page_copy(const void* bytes, size_t size, size_t& region_bytes, const uint8_t*& data) {
  constexpr size_t kHuge = size_t(2) << 20;
  region_bytes = (size + kHuge - 1) / kHuge * kHuge + kHuge;
  void* region = ::mmap(nullptr, region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  auto* aligned = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(region) + kHuge - 1) & ~(kHuge - 1));
  ::madvise(aligned, region_bytes - static_cast<size_t>(aligned - static_cast<uint8_t*>(region)), MADV_HUGEPAGE);
  std::memcpy(aligned, bytes, size);
  ::mprotect(region, region_bytes, PROT_READ);
  data = aligned;
  return region;
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, Residency residency) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ModelError(ModelErrorKind::NotFound, "cannot open " + path + ": " + std::strerror(errno), path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ModelError(ModelErrorKind::NotFound, path + " is not a regular file", path);
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  if (st.st_size > 0) {
    // MAP_PRIVATE + PROT_READ: the kernel shares clean pages with the page cache; nothing is copied.
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw ModelError(ModelErrorKind::NotFound, "cannot map " + path + ": " + std::strerror(err), path);
    }
    file->data_ = static_cast<const uint8_t*>(p);
    file->size_ = static_cast<size_t>(st.st_size);
    file->region_ = p;
    file->region_bytes_ = file->size_;
    if (residency == Residency::HugePages) {
      size_t bytes = 0;
      if (void* region = huge_page_copy(p, file->size_, bytes, file->data_)) {
        ::munmap(p, file->size_);
        file->region_ = region;
        file->region_bytes_ = bytes;
        file->copied_ = true;
      }
    }
  }
  ::close(fd);
  return file;
}

bool MappedFile::rewrite(const std::function<void(uint8_t* bytes)>& fn) const {
  if (!copied_ || ::mprotect(region_, region_bytes_, PROT_READ | PROT_WRITE) != 0) return false;
  struct ReadOnlyAgain {
    void* region;
    size_t bytes;
    ~ReadOnlyAgain() { ::mprotect(region, bytes, PROT_READ); }
  } again{region_, region_bytes_};
  fn(const_cast<uint8_t*>(data_));
  return true;
}

MappedFile::~MappedFile() {
  if (region_) ::munmap(region_, region_bytes_);
}

}  // namespace ninfer::models
