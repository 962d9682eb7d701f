// The job pool of `reproduce` and `extrapolate` (cli/job_pool.hpp) on one device: every job runs
// exactly once whatever the thread count, failures are rethrown by name after the others ran,
// and a run stopped on purpose makes the pool report "not finished" without failing.
// (The spread over several GPUs is tested where GPUs are: tests/test_cuda_model.cpp.)
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/job_pool.hpp"
#include "test_configs.hpp"
#include "test_util.hpp"

using popebench::cli::run_jobs;

TEST_CASE("run_jobs runs every job once at any concurrency", "[jobs]") {
  for (int concurrent : {1, 2, 5, 64}) {
    std::vector<std::atomic<int>> ran(23);
    for (auto& r : ran) r = 0;
    const bool finished = run_jobs(ran.size(), concurrent, 1, [&](size_t k) { ++ran[k]; },
                                   [](size_t k) { return std::to_string(k); });
    CHECK(finished);
    for (size_t k = 0; k < ran.size(); ++k) CHECK(ran[k] == 1);
  }
  CHECK(run_jobs(0, 3, 1, [](size_t) {}, [](size_t) { return std::string(); }));
}

TEST_CASE("run_jobs rethrows a failed job by name after running the rest", "[jobs]") {
  std::atomic<int> ran{0};
  auto job = [&](size_t k) {
    ++ran;
    if (k == 2) throw popebench::UserError("bad input");
    if (k == 4) throw std::runtime_error("boom");
  };
  auto label = [](size_t k) { return "job " + std::to_string(k); };
  try {
    run_jobs(6, 2, 1, job, label);
    FAIL("no exception");
  } catch (const popebench::UserError& e) {  // the first failure in list order
    CHECK(std::string(e.what()) == "job 2: bad input");
  }
  CHECK(ran == 6);
}

TEST_CASE("run_jobs keeps a failure's kind: internal stays internal, out of memory stays bad_alloc", "[jobs]") {
  auto label = [](size_t k) { return "job " + std::to_string(k); };
  bool user_error = false;
  try {
    run_jobs(3, 2, 1, [](size_t k) { if (k == 1) throw std::logic_error("a broken invariant"); }, label);
    FAIL("no exception");
  } catch (const popebench::UserError&) {
    user_error = true;
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "job 1: a broken invariant");
  }
  CHECK_FALSE(user_error);  // main() reports it as an internal error (exit 4), not the user's (exit 2)
  CHECK_THROWS_AS(run_jobs(2, 1, 1, [](size_t k) { if (k == 0) throw std::bad_alloc(); }, label), std::bad_alloc);
}

TEST_CASE("run_jobs reports interrupted runs as unfinished without failing", "[jobs]") {
  std::atomic<int> ran{0};
  const bool finished = run_jobs(
      4, 2, 1,
      [&](size_t k) {
        ++ran;
        if (k == 1) throw popebench::RunInterrupted("time limit");
      },
      [](size_t k) { return std::to_string(k); });
  CHECK_FALSE(finished);
  CHECK(ran == 4);
}

TEST_CASE("run_training_jobs hands each finished run to after on its own thread, and a throw there fails that job",
          "[jobs]") {
  using namespace popebench;
  const std::string dir = test::fresh_tmpdir("job_pool_after");
  std::vector<TrainOptions> jobs;
  for (uint64_t seed : {0, 1, 2}) {
    RunConfig c = test::small_run_config("rope", {5, 8, 2, 10}, /*d_model=*/16, /*n_head=*/2, /*n_train=*/100);
    c.task.n_val = 8;
    c.task.n_test = 8;
    c.optim.warmup_steps = 1;
    c.train.steps = 3;
    c.train.batch = 4;
    c.train.eval_every = 0;
    c.train.device = DeviceChoice::kCpu;
    c.train.seed = seed;
    jobs.push_back(test::quiet_run(c, dir + "/run" + std::to_string(seed) + ".json"));
  }
  std::mutex mu;
  std::map<size_t, nlohmann::json> seen;  // job -> the run JSON after was given
  std::map<size_t, std::thread::id> threads;
  auto after = [&](size_t k, const nlohmann::json& run) {
    {
      std::lock_guard<std::mutex> g(mu);
      CHECK(seen.count(k) == 0);
      seen[k] = run;
      threads[k] = std::this_thread::get_id();
    }
    if (k == 1) throw UserError("its evaluation failed");
  };
  std::vector<nlohmann::json> results;
  try {
    cli::run_training_jobs(jobs, 2, 1, results, [](size_t k) { return "job " + std::to_string(k); }, cli::Batching{}, after);
    FAIL("no exception");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == "job 1: its evaluation failed");
  }
  REQUIRE(seen.size() == 3);
  for (size_t k = 0; k < 3; ++k) {
    INFO("job " << k);
    CHECK(seen[k] == results[k]);  // the run JSON the pool returns, handed over once
    CHECK(seen[k]["config"]["train"]["seed"] == k);
    CHECK(threads[k] != std::this_thread::get_id());  // a worker's, not the caller's
  }
}
