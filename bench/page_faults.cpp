// page_faults.cpp - ilmap_page_faults: what a page fault costs on this machine, the figure that
// decides the whole-process timings of BENCHMARKS.md (a short process faults in every page it
// touches once).
//
//   ilmap_page_faults [--mib N] [--rounds R]
//     prints "fault_4k_us=F huge_2mib_us=H huge_faults=K pages=P": the median over R rounds
//     (default 7) of N MiB (default 16) of fresh anonymous memory touched once per 4 KiB page,
//     first as ordinary 4 KiB pages (F: microseconds per page), then as a 2 MiB-aligned
//     mapping with huge-page advice, as the compiler's large buffers are (support/HugePages.h;
//     H: microseconds per 2 MiB), and how many faults that took (K, getrusage's minor faults).
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "support/HugePages.h"

namespace {

long minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Touches one byte of each 4 KiB page of [p, p + bytes); returns the microseconds it took.
double touch(volatile unsigned char* p, std::size_t bytes) {
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mib = 16;
  int rounds = 7;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--mib") && i + 1 < argc) {
      mib = std::strtoul(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: ilmap_page_faults [--mib N] [--rounds R]\n");
      return 1;
    }
  }
  if (mib < 2 || mib > 4096 || rounds < 1 || rounds > 1000) {
    std::fprintf(stderr, "ilmap_page_faults: --mib takes 2..4096 and --rounds 1..1000\n");
    return 1;
  }
  const std::size_t bytes = mib << 20, pages = bytes / 4096;
  std::vector<double> small, huge, huge_faults;
  for (int r = 0; r < rounds; ++r) {
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return std::perror("mmap"), 2;
    small.push_back(touch(static_cast<unsigned char*>(m), bytes) / double(pages));
    ::munmap(m, bytes);
    const std::size_t size = ilmap::huge_mapping_size(bytes);
    std::uint8_t* h = ilmap::map_huge(size);
    if (!h) return std::perror("mmap"), 2;
    const long f0 = minor_faults();
    huge.push_back(touch(h, bytes) / double(bytes / ilmap::kHugePageBytes));
    huge_faults.push_back(double(minor_faults() - f0));
    ::munmap(h, size);
  }
  std::printf("fault_4k_us=%.2f huge_2mib_us=%.1f huge_faults=%.0f pages=%zu\n", median(small), median(huge),
              median(huge_faults), pages);
  return 0;
}
