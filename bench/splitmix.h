// splitmix.h - the benchmarks' random numbers: splitmix64, deterministic for a seed, fast, no
// dependencies (the PDB generator, the query generators and the benchmarks share it).
#pragma once

#include <cstdint>

namespace ilmap::bench {

struct Splitmix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); 0, without drawing, when n is 0.
  std::uint32_t below(std::uint32_t n) { return n ? static_cast<std::uint32_t>((next() >> 32) * n >> 32) : 0; }
  double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  bool chance(double p) { return unit() < p; }
};

}  // namespace ilmap::bench
