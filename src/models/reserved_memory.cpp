#include "models/reserved_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <utility>

namespace ninfer::models {

namespace {
constexpr size_t kPage = 4096;               // the smallest page
constexpr size_t kHugePage = size_t{2} << 20;  // x86-64's transparent huge page
}  // namespace

ReservedMemory::ReservedMemory(size_t bytes, bool huge_pages) : size_(bytes) {
  if (bytes == 0) return;
  // MAP_NORESERVE: the reservation is address space only; pages count against memory as they are
  // first written, so a slot's long max_context costs nothing until its sequence gets there.
  if (huge_pages) size_ = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  const size_t mapped = huge_pages ? size_ + kHugePage : size_;
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  if (!huge_pages) {
    data_ = p;
    return;
  }
  // A huge page needs 2 MiB of the mapping at a 2 MiB boundary: keep the aligned part, unmap the rest.
  auto* base = static_cast<char*>(p);
  auto* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + kHugePage - 1) & ~(kHugePage - 1));
  const size_t head = static_cast<size_t>(aligned - base);
  if (head > 0) ::munmap(base, head);
  if (mapped - head > size_) ::munmap(aligned + size_, mapped - head - size_);
  ::madvise(aligned, size_, MADV_HUGEPAGE);  // advice only: where refused, the pages stay 4 KiB ones
  data_ = aligned;
}

void ReservedMemory::populate(size_t begin, size_t end) {
  begin = begin / kPage * kPage;
  end = std::min(end, size_);
  if (!data_ || begin >= end) return;
  auto* p = static_cast<volatile const unsigned char*>(data_);
#ifdef MADV_POPULATE_WRITE
  // Best effort: before Linux 5.14 the reads below map the zero page and the first write commits.
  ::madvise(static_cast<char*>(data_) + begin, end - begin, MADV_POPULATE_WRITE);
#endif
  for (size_t at = begin; at < end; at += kPage) (void)p[at];
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
