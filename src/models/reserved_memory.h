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
  // system refuses the reservation.
  explicit ReservedMemory(size_t bytes);
  ~ReservedMemory();
  ReservedMemory(ReservedMemory&& other) noexcept;
  ReservedMemory& operator=(ReservedMemory&& other) noexcept;
  ReservedMemory(const ReservedMemory&) = delete;
  ReservedMemory& operator=(const ReservedMemory&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ninfer::models
