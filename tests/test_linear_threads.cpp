// A CPU run computes the same bits whatever its thread count (kernels/cpu/linear.hpp): the
// products at shapes where Eigen's own threading would block the summed dimension otherwise
// (sums of 300 and 1,000 terms), then whole training runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <omp.h>
#include <random>
#include <vector>

#include "kernels/cpu/linear.hpp"
#include "train/trainer.hpp"
#include "tests/test_configs.hpp"
#include "tests/test_util.hpp"

using namespace popebench;

namespace {
// Restores the OpenMP thread count a test changed, however it ends.
struct ThreadCount {
  int saved = omp_get_max_threads();
  ~ThreadCount() { omp_set_num_threads(saved); }
};

template <typename T>
std::vector<T> random_values(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) x = T(u(g));
  return v;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// N, in, out: none a multiple of the 64-row chunks, so every product has a short last chunk;
// in = 300 and N = 1000 are the summed lengths of y and dx, and of dw.
constexpr int N = 1000, in = 300, out = 70;

template <typename T>
struct LinearInputs {
  std::vector<T> x = random_values<T>(static_cast<size_t>(N) * in, 1);     // (N, in)
  std::vector<T> w = random_values<T>(static_cast<size_t>(out) * in, 2);   // (out, in)
  std::vector<T> dy = random_values<T>(static_cast<size_t>(N) * out, 3);   // (N, out)
  std::vector<T> dw0 = random_values<T>(static_cast<size_t>(out) * in, 4); // (out, in), accumulated into, as in a step
};

template <typename T>
struct LinearOutputs {
  std::vector<T> y, dx, dw;  // (N, out), (N, in), (out, in)
};

template <typename T>
LinearOutputs<T> run_linear(int threads, const LinearInputs<T>& a) {
  omp_set_num_threads(threads);
  LinearOutputs<T> o{std::vector<T>(static_cast<size_t>(N) * out), std::vector<T>(static_cast<size_t>(N) * in), a.dw0};
  cpu::linear_fwd(a.x.data(), a.w.data(), o.y.data(), N, in, out);
  cpu::linear_bwd(a.dy.data(), a.x.data(), a.w.data(), o.dx.data(), o.dw.data(), N, in, out);
  return o;
}

template <typename T>
void check_linear_threads(double tol) {
  ThreadCount restore;
  const LinearInputs<T> a;
  auto one = run_linear<T>(1, a);
  for (int threads : {2, 3, 5}) {
    INFO("threads " << threads);
    auto many = run_linear<T>(threads, a);
    CHECK(same_bits(one.y, many.y));
    CHECK(same_bits(one.dx, many.dx));
    CHECK(same_bits(one.dw, many.dw));
  }
  // And the chunks are the whole product: every element against a sum in long double.
  double worst = 0;
  for (int n = 0; n < N; n += 37)
    for (int o = 0; o < out; ++o) {
      long double s = 0;
      for (int i = 0; i < in; ++i) s += static_cast<long double>(a.x[n * in + i]) * a.w[o * in + i];
      worst = std::max(worst, std::abs(double(s) - double(one.y[n * out + o])));
    }
  for (int n = 0; n < N; n += 41)
    for (int i = 0; i < in; ++i) {
      long double s = 0;
      for (int o = 0; o < out; ++o) s += static_cast<long double>(a.dy[n * out + o]) * a.w[o * in + i];
      worst = std::max(worst, std::abs(double(s) - double(one.dx[n * in + i])));
    }
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; i += 7) {
      long double s = a.dw0[o * in + i];
      for (int n = 0; n < N; ++n) s += static_cast<long double>(a.dy[n * out + o]) * a.x[n * in + i];
      worst = std::max(worst, std::abs(double(s) - double(one.dw[o * in + i])));
    }
  CHECK(worst < tol);
}
}  // namespace

TEST_CASE("the CPU products give the same bits with 1, 2, 3 and 5 threads", "[cpu][threads]") {
  // Tolerances against the long-double sums: terms in [-1, 1], at most 1,000 of them, so a
  // float sum's rounding error is below ~1,000 x 2^-24 x (the partial sums' size, <= ~30 for
  // random signs) ~ 2e-3 in the worst case and ~1e-4 typically; 1e-3 fails any element summed
  // wrongly (a missing or doubled term moves it by ~0.3 on average). Double: the same at 2^-53.
  check_linear_threads<float>(1e-3);
  check_linear_threads<double>(1e-11);
}

TEST_CASE("a CPU training run gives the same numbers with 1 and 3 threads", "[cpu][threads][train]") {
  // The quick preset's model and task (d 64, 4 heads; strings 5-8 of 8 letters), batch 64: ~960
  // token rows, the summed length of every weight gradient, where Eigen's threaded products gave
  // other numbers after 6 steps (with d 32 and 2 heads they happened not to).
  RunConfig c = test::small_run_config("pope", {5, 8, 2, 8}, /*d_model=*/64, /*n_head=*/4, /*n_train=*/1000);
  c.task.n_val = 64;
  c.task.n_test = 64;
  c.train.steps = 6;
  c.optim.warmup_steps = 2;
  c.train.batch = 64;
  c.train.eval_every = 3;
  c.train.checkpoint_every = 0;
  c.train.device = DeviceChoice::kCpu;
  ThreadCount restore;
  std::string dir = test::fresh_tmpdir("linear_threads");
  TrainOptions one = test::quiet_run(c, dir + "/one.json");
  TrainOptions three = test::quiet_run(c, dir + "/three.json");
  three.threads = 3;
  auto a = train(one), b = train(three);
  CHECK(a["environment"]["threads"] == 1);
  CHECK(b["environment"]["threads"] == 3);
  CHECK(test::run_numbers(a) == test::run_numbers(b));
  std::filesystem::remove_all(dir);
}

// Eigen cuts a long sum into pieces whose length comes from the L1 size it reads from the CPU:
// the ops fix it (kernels/cpu/eigen_types.hpp), so the same run gives the same bits on a CPU with
// another L1 (tests/quick_prefix.sh checks a committed run end to end).
TEST_CASE("the CPU products block their sums as on a 32 KiB L1 whatever the CPU, Eigen unthreaded", "[cpu][threads]") {
  std::vector<float> x(70 * 1000, 0.5f), w(3 * 1000, 0.25f), y(70 * 3);
  cpu::linear_fwd(x.data(), w.data(), y.data(), 70, 1000, 3);
  CHECK(Eigen::l1CacheSize() == 32 * 1024);
  CHECK(Eigen::nbThreads() == 1);
  // A sum of 1,000 terms made with the blocking fixed equals the same product made after
  // setting that blocking explicitly: the fix is what the products use.
  const std::ptrdiff_t l2 = Eigen::l2CacheSize(), l3 = Eigen::l3CacheSize();
  std::mt19937 rng(3);
  std::normal_distribution<float> nd;
  for (float& v : x) v = nd(rng);
  for (float& v : w) v = nd(rng);
  cpu::linear_fwd(x.data(), w.data(), y.data(), 70, 1000, 3);
  Eigen::setCpuCacheSizes(48 * 1024, l2, l3);
  cpu::MatR<float> other = cpu::CMapR<float>(x.data(), 70, 1000) * cpu::CMapR<float>(w.data(), 3, 1000).transpose();
  Eigen::setCpuCacheSizes(32 * 1024, l2, l3);
  cpu::MatR<float> same = cpu::CMapR<float>(x.data(), 70, 1000) * cpu::CMapR<float>(w.data(), 3, 1000).transpose();
  CHECK(std::memcmp(same.data(), y.data(), y.size() * sizeof(float)) == 0);
  // ... and the 48 KiB blocking does add up otherwise (else this test could not see a change).
  CHECK(std::memcmp(other.data(), y.data(), y.size() * sizeof(float)) != 0);
}
