#include "models/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "models/model_error.h"

namespace ninfer::models {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
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
  }
  ::close(fd);
  return file;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace ninfer::models
