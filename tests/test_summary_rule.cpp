// The summary rule (report/summary_rule.hpp) and the stop signal of a whole command
// (train/stop_signal.hpp).
#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>

#include "cli/job_pool.hpp"
#include "config/config.hpp"
#include "train/stop_signal.hpp"
#include "report/summary.hpp"

using namespace popebench;

namespace {
nlohmann::json run_of(const std::string& pe, uint64_t seed, double acc, int64_t n = 100) {
  RunConfig c;
  c.pe.kind = pe;
  c.train.seed = seed;
  return {{"schema", "popebench.run"}, {"schema_version", 1}, {"status", "complete"}, {"config", c},
          {"final", {{"val", {{"acc", acc}, {"loss", 1.0}, {"n", n}}}, {"test", {{"acc", acc}, {"loss", 1.0}, {"n", n}}}}},
          {"timing", {{"steps_per_s", 1.0}}}};
}
}  // namespace

TEST_CASE("a summary counts distinct runs of one setting, rows differing only in the PE", "[summary]") {
  auto ok = summarise_runs({run_of("rope", 0, 0.1), run_of("rope", 1, 0.3), run_of("pope", 0, 0.9)}, "t");
  REQUIRE(ok["rows"].size() == 2);
  CHECK(ok["rows"][0]["pe"] == "rope");
  CHECK(ok["rows"][0]["n"] == 2);
  // The default task is the paper's: its numbers stand beside ours, in the table too.
  CHECK(ok["paper_task"] == true);
  CHECK(ok["rows"][0]["paper"]["mean"] == 11.16);
  const std::string md = summary_markdown(ok);
  CHECK(md.rfind("indirect-indexing, trained on lengths 20-40; 1 or 2 seeds per PE; chance 1.92 %; test accuracy on 10000 examples.", 0) == 0);
  CHECK(md.find("| rope | 2 | 20.00 ± 14.14 | 11.16 ± 2.45 |") != std::string::npos);
  CHECK(md.find("| pope | 1 | 90.00 | 94.82 ± 2.91 |") != std::string::npos);
  CHECK(ok["rows"][0]["mean"].get<double>() == Approx(20.0));

  // the same run twice: n would be inflated and the spread shrunk
  CHECK_THROWS_WITH(summarise_runs({run_of("rope", 0, 0.1), run_of("rope", 0, 0.1)}, "t", {"a.json", "b.json"}),
                    Catch::Contains("rope seed 0 is in more than one input (a.json and b.json)"));
  // runs of different settings in one table
  auto other = run_of("rope", 1, 0.2);
  other["config"]["optim"]["lr"] = 1e-3;
  CHECK_THROWS_WITH(summarise_runs({run_of("rope", 0, 0.1), other}, "t", {"a.json", "b.json"}),
                    Catch::Contains("b.json and a.json were made with different settings"));
  auto task = run_of("pope", 1, 0.2);
  task["config"]["task"]["n_train"] = 5;
  CHECK_THROWS_WITH(summarise_runs({run_of("rope", 0, 0.1), task}, "t"), Catch::Contains("different settings"));
  // two PoPE settings in one row
  auto delta0 = run_of("pope", 1, 0.2);
  delta0["config"]["pe"]["delta_init"] = "zero";
  CHECK_THROWS_WITH(summarise_runs({run_of("pope", 0, 0.1), delta0}, "t"), Catch::Contains("different PE settings"));
  // a split of no examples is no measurement
  CHECK_THROWS_WITH(summarise_runs({run_of("rope", 0, 0.0, 0)}, "t", {"z.json"}),
                    Catch::Contains("z.json was tested on no examples"));
  // files written before an option existed are the same setting as new ones
  auto old = run_of("rope", 2, 0.5);
  old["config"].erase("input");
  old["config"]["pe"].erase("freqs");
  CHECK(summarise_runs({run_of("rope", 0, 0.1), old}, "t")["rows"][0]["n"] == 2);
}

TEST_CASE("a stop signal reaches every run of a command and no new run starts", "[stop]") {
  {
    StopSignalScope outer;
    CHECK(stop_signal() == 0);
    {
      StopSignalScope inner;  // a run's own scope inside a sweep's: installs nothing, clears nothing
      std::raise(SIGTERM);    // caught: the test process goes on
    }
    CHECK(stop_signal() == SIGTERM);  // the inner scope's end did not restore the default handler
    CHECK(stopped_exit_code() == 128 + SIGTERM);
  }
  {
    StopSignalScope scope;  // a new command starts with the flag cleared
    CHECK(stop_signal() == 0);
    CHECK(stopped_exit_code() == kExitStoppedToResume);
    std::atomic<int> started{0};
    const bool finished = cli::run_jobs(
        5, /*concurrent=*/1, /*gpus=*/1,
        [&](size_t k) {
          ++started;
          if (k == 1) std::raise(SIGINT);
        },
        [](size_t k) { return "job " + std::to_string(k); });
    CHECK_FALSE(finished);
    CHECK(started == 2);  // jobs 2-4 never started
  }
}
