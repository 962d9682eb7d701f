// Small helpers shared by the CPU tests.
#pragma once
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>

#include "common/error.hpp"
#include "train/trainer.hpp"

namespace popebench::test {

// A fresh, empty directory under the system temp dir, unique to this process.
inline std::string fresh_tmpdir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("popebench_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

// f must throw a UserError whose message contains `part`.
inline void expect_user_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    FAIL("expected an error containing: " << part);
  } catch (const UserError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains(part));
  }
}

// Options of a quiet single-threaded run of c into out.
inline TrainOptions quiet_run(const RunConfig& c, const std::string& out) {
  TrainOptions o;
  o.cfg = c;
  o.out_json = out;
  o.threads = 1;
  o.log_every = 0;
  return o;
}

// The numbers of a run JSON, without timings and paths: what two equal runs share.
inline nlohmann::json run_numbers(const nlohmann::json& run) {
  nlohmann::json curve = run["curve"];
  for (auto& p : curve) p.erase("elapsed_s");
  return {{"curve", curve}, {"final", run["final"]}};
}

}  // namespace popebench::test
