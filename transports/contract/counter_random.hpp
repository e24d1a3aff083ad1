// Counter-based random numbers (SplitMix64's finaliser): the draw for a
// (seed, a, b) triple does not depend on the order anything is evaluated in,
// on which rank asks, or on the run, so simulated skews and --arrival's
// uniform delays repeat exactly.
#pragma once

#include <cstdint>

namespace cb {

inline std::uint64_t counter_mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1), from the top 53 bits.
inline double counter_uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return static_cast<double>(counter_mix(counter_mix(counter_mix(seed) ^ a) ^ b) >> 11) *
         0x1.0p-53;
}

}  // namespace cb
