// Address space reserved up front and backed by memory only where it is written: the operating
// system commits a page (zeroed) the first time it is touched. A buffer that grows inside it never
// moves, so growing costs nothing beyond the pages written, where a std::vector that doubles copies
// everything it holds: a KV slot crossing 2,048 positions of Qwen3-0.6B copied ~235 MB in the middle
// of a step, and every stream sharing that step waited ~1 s for it.
#pragma once

#include <cstddef>

namespace ninfer::models {

class ReservedMemory {
 public:
  ReservedMemory() = default;
  // Reserves `bytes` of zero-filled, page-aligned address space. Throws std::bad_alloc when the
  // system refuses the reservation. `huge_pages`: aligned to 2 MiB and advised for transparent huge
  // pages (where the system allows them), so the first touch of each 2 MiB commits all of it.
  explicit ReservedMemory(size_t bytes, bool huge_pages = false);
  ~ReservedMemory();
  ReservedMemory(ReservedMemory&& other) noexcept;
  ReservedMemory& operator=(ReservedMemory&& other) noexcept;
  ReservedMemory(const ReservedMemory&) = delete;
  ReservedMemory& operator=(const ReservedMemory&) = delete;

  // Commits the pages of bytes [begin, end) now, leaving what they hold as it is, so that the
  // writes to them later do not stop for page faults. On a VM the first touch of a page is what
  // costs (~6 us a 4 KiB page on the Zen 5 VM of 2026-12-05, also after MADV_POPULATE_WRITE, which
  // there only fills the guest's page tables), so each page is also read once.
  void populate(size_t begin, size_t end);

  void* data() const { return data_; }
  size_t size() const { return size_; }  // at least the bytes asked for (whole huge pages)

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ninfer::models
