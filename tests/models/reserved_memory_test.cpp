// ReservedMemory (models/reserved_memory.h): zero-filled address space, aligned for huge pages when
// asked, and populate() commits pages without changing what they hold.
#include "models/reserved_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace ninfer::models {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(ReservedMemory, HugePagesAreAlignedAndWholeAndPopulateKeepsTheContents) {
  for (bool huge : {false, true}) {
    ReservedMemory m(5 * kMiB + 123, huge);
    ASSERT_NE(m.data(), nullptr);
    auto* p = static_cast<unsigned char*>(m.data());
    EXPECT_GE(m.size(), 5 * kMiB + 123);
    if (huge) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2 * kMiB), 0u);
      EXPECT_EQ(m.size() % (2 * kMiB), 0u);
    }
    // Written bytes, some inside the pages populated below (whose bounds are not page-aligned):
    // every page's first byte and bytes at other offsets.
    auto written = [](size_t i) { return i % 4096 == 0 || i % 4093 == 0; };
    for (size_t i = 0; i < 3 * kMiB; ++i)
      if (written(i)) p[i] = static_cast<unsigned char>(i % 251 + 1);
    m.populate(1 * kMiB + 17, 4 * kMiB + 5);
    m.populate(4 * kMiB, 100 * kMiB);  // past the end: up to it
    for (size_t i = 0; i < 3 * kMiB; ++i) {
      if (written(i)) {
        ASSERT_EQ(p[i], i % 251 + 1) << "huge " << huge << " at " << i;
      }
    }
    for (size_t i = 3 * kMiB; i < m.size(); i += 4096) ASSERT_EQ(p[i], 0) << "huge " << huge << " at " << i;
    p[m.size() - 1] = 9;  // the whole size is usable
    ReservedMemory moved = std::move(m);
    EXPECT_EQ(moved.data(), p);
    EXPECT_EQ(m.data(), nullptr);
  }
}

}  // namespace
}  // namespace ninfer::models
