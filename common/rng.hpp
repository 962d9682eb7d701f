// Random numbers whose output is defined by this project, not by a standard library:
// the same seed gives the same stream with any compiler, libstdc++ or libc++, on any machine.
// std::uniform_int_distribution is deliberately not used (its output is implementation-defined).
#pragma once
#include <cstdint>
#include <cmath>

namespace popebench {

// SplitMix64 (Steele, Lea, Flood 2014): used only to turn user seeds into well-mixed states.
inline uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Derives an independent 64-bit seed for a named sub-stream (a split, the batch sampler, init...).
// Different (seed, stream) pairs give unrelated states; the mapping is part of the dataset format.
inline uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
  splitmix64(x);
  return splitmix64(x);
}

// PCG32 (O'Neill 2014, XSH-RR variant): small state, good statistics, fully specified output.
class Pcg32 {
 public:
  Pcg32() : Pcg32(0, 0) {}
  Pcg32(uint64_t seed, uint64_t stream) {
    uint64_t s = seed;
    inc_ = (splitmix64(s) ^ stream) << 1u | 1u;
    state_ = 0;
    next_u32();
    state_ += splitmix64(s);
    next_u32();
  }
  uint32_t next_u32() {
    uint64_t old = state_;
    state_ = old * 6364136223846793005ull + inc_;
    uint32_t xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = static_cast<uint32_t>(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }
  // Unbiased integer in [0, bound) by Lemire's multiply-and-reject (bound >= 1).
  uint32_t bounded(uint32_t bound) {
    uint64_t m = static_cast<uint64_t>(next_u32()) * bound;
    uint32_t low = static_cast<uint32_t>(m);
    if (low < bound) {
      uint32_t threshold = (0u - bound) % bound;
      while (low < threshold) {
        m = static_cast<uint64_t>(next_u32()) * bound;
        low = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }
  // Uniform integer in [lo, hi] inclusive.
  int64_t uniform_int(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(bounded(static_cast<uint32_t>(hi - lo + 1)));
  }
  // Uniform double in [0, 1) with 53 random bits.
  double uniform01() {
    uint64_t hi = next_u32(), lo = next_u32();
    return static_cast<double>(((hi << 32) | lo) >> 11) * 0x1.0p-53;
  }
  // Standard normal by Box-Muller on our own uniforms (no std::normal_distribution: same reason).
  double normal() {
    double u1 = uniform01(), u2 = uniform01();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  uint64_t state() const { return state_; }
  uint64_t inc() const { return inc_; }
  void set_state(uint64_t state, uint64_t inc) { state_ = state; inc_ = inc; }

 private:
  uint64_t state_ = 0, inc_ = 1;
};

}  // namespace popebench

namespace popebench {
// Every random stream of a run, derived from the one user seed. Fixed ids: changing one changes
// every dataset and run, so they are part of the dataset format version.
enum class Stream : uint64_t { kTrain = 1, kVal = 2, kTest = 3, kInit = 10, kBatches = 11 };
inline Pcg32 make_stream(uint64_t seed, Stream s) {
  return Pcg32(derive_seed(seed, static_cast<uint64_t>(s)), static_cast<uint64_t>(s));
}
}  // namespace popebench
