// PrefaultTest.cpp - prefault_for_write (HugePages.h): the whole pages of a range are resident
// afterwards, the bytes are unchanged, and ranges below kPrefaultMin or of partial pages only
// are left alone.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

#include "support/HugePages.h"

namespace ilmap {
namespace {

#if !defined(MADV_POPULATE_WRITE)
constexpr int MADV_POPULATE_WRITE = 23;
#endif

constexpr std::size_t kPage = 4096;

// A fresh anonymous mapping of `pages` pages, none of them faulted in yet.
struct Mapping {
  explicit Mapping(std::size_t pages) : size(pages * kPage) {
    void* m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p = m == MAP_FAILED ? nullptr : static_cast<std::uint8_t*>(m);
  }
  ~Mapping() {
    if (p) ::munmap(p, size);
  }
  std::size_t resident() const {
    std::vector<unsigned char> v(size / kPage);
    if (::mincore(p, size, v.data()) != 0) return SIZE_MAX;
    std::size_t n = 0;
    for (unsigned char c : v) n += c & 1;
    return n;
  }
  std::uint8_t* p = nullptr;
  std::size_t size;
};

bool kernel_populates() {
  Mapping m(1);
  return m.p && ::madvise(m.p, kPage, MADV_POPULATE_WRITE) == 0;
}

TEST(Prefault, WholePagesOfTheRangeBecomeResident) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14+)";
  Mapping m(64);
  ASSERT_NE(m.p, nullptr);
  ASSERT_EQ(m.resident(), 0u);
  // From the middle of page 1 to the middle of page 40: pages 2..39 are whole inside it.
  prefault_for_write(m.p + kPage + 100, 39 * kPage);
  std::vector<unsigned char> v(64);
  ASSERT_EQ(::mincore(m.p, m.size, v.data()), 0);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(v[i] & 1, i >= 2 && i <= 39 ? 1 : 0) << "page " << i;
}

TEST(Prefault, SmallRangesAreLeftAlone) {
  Mapping m(32);
  ASSERT_NE(m.p, nullptr);
  prefault_for_write(m.p, kPrefaultMin - 1);
  EXPECT_EQ(m.resident(), 0u);
  prefault_for_write(nullptr, kPrefaultMin * 4);  // no effect, no crash
}

TEST(Prefault, BytesAreUnchanged) {
  std::vector<std::uint8_t> buf(kPrefaultMin * 3 + 123);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<std::uint8_t>(i * 131 + 7);
  const std::vector<std::uint8_t> before = buf;
  prefault_for_write(buf.data() + 1, buf.size() - 1);
  EXPECT_EQ(buf, before);
}

}  // namespace
}  // namespace ilmap
