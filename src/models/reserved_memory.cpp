#include "models/reserved_memory.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace ninfer::models {

ReservedMemory::ReservedMemory(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  // MAP_NORESERVE: the reservation is address space only; pages count against memory as they are
  // first written, so a slot's long max_context costs nothing until its sequence gets there.
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = p;
}

ReservedMemory::~ReservedMemory() {
  if (data_) ::munmap(data_, size_);
}

ReservedMemory::ReservedMemory(ReservedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ReservedMemory& ReservedMemory::operator=(ReservedMemory&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace ninfer::models
