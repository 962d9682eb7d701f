#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "common/files.hpp"
#include "tests/test_util.hpp"
#include "generators/dataset_io.hpp"
#include "train/checkpoint.hpp"
#include "train/run_json.hpp"
#include "train/step_log.hpp"
#include "train/stop_signal.hpp"
#include "report/summary.hpp"
#include "train/trainer.hpp"
#include "tests/test_configs.hpp"
#include "common/environment.hpp"
#include "train/evaluate.hpp"

using namespace popebench;
namespace fs = std::filesystem;

namespace {
RunConfig tiny_run(const std::string& pe) {
  RunConfig c = test::small_run_config(pe, {5, 8, 2, 10}, /*d_model=*/32, /*n_head=*/2, /*n_train=*/500);
  c.task.n_val = 64;
  c.task.n_test = 64;
  c.optim.lr = 3e-3;
  c.optim.lr_min = 3e-4;
  c.optim.warmup_steps = 5;
  c.train.steps = 30;
  c.train.batch = 16;
  c.train.eval_every = 10;
  c.train.eval_batch = 32;
  c.train.checkpoint_every = 0;
  c.train.device = DeviceChoice::kCpu;
  return c;
}
TrainOptions opts(const RunConfig& c, const std::string& out) { return test::quiet_run(c, out); }
nlohmann::json numbers(const nlohmann::json& run) { return test::run_numbers(run); }
}  // namespace

TEST_CASE("a tiny model overfits a handful of examples to 100%", "[train]") {
  // Fails when a gradient is wrong or the optimizer does not descend: 8 fixed examples, so the
  // model can only reach 100% by fitting them.
  for (std::string pe : {"rope", "pope"}) {
    RunConfig c = tiny_run(pe);
    c.optim.weight_decay = 0;
    auto be = make_backend(c, DeviceChoice::kCpu);
    Dataset d = generate_split(c.task, 0, Split::kTrain);
    std::vector<size_t> idx = {0, 1, 2, 3, 4, 5, 6, 7};
    Batch b = make_batch(d, idx);
    double first = 0, last = 0;
    for (long s = 1; s <= 150; ++s) {
      StepResult r = be->train_step(b, 3e-3, s);
      if (s == 1) first = r.loss;
      last = r.loss;
    }
    std::vector<int32_t> correct;
    be->eval_batch(b, correct);
    int hits = 0;
    for (int x : correct) hits += x;
    INFO("pe=" << pe << " loss " << first << " -> " << last);
    CHECK(hits == 8);
    CHECK(last < 0.05 * first);
  }
}

TEST_CASE("the same seed and config give the same numbers twice", "[train]") {
  std::string dir = test::fresh_tmpdir("train_det");
  auto a = train(opts(tiny_run("pope"), dir + "/a.json"));
  auto b = train(opts(tiny_run("pope"), dir + "/b.json"));
  CHECK(numbers(a) == numbers(b));
  RunConfig other = tiny_run("pope");
  other.train.seed = 1;
  auto c = train(opts(other, dir + "/c.json"));
  CHECK(numbers(a) != numbers(c));
  fs::remove_all(dir);
}

TEST_CASE("resume from a checkpoint equals an uninterrupted run", "[train]") {
  // Also with shuffled epochs and two micro-batches a step: 30 steps of 32 examples cross the
  // 500-example epoch, and the stop at 13 falls inside the first one, so the sampler's place in
  // its epoch must be saved and the epoch's order rebuilt. And under a curriculum over length
  // that lasts 20 steps: the stop falls inside it, where the batches depend on the step.
  const std::string mode = GENERATE(as<std::string>(), "replacement", "epochs", "curriculum");
  std::string dir = test::fresh_tmpdir("train_resume_" + mode);
  RunConfig c = tiny_run("pope");
  if (mode == "epochs") {
    c.train.sampling = BatchSampling::kEpochs;
    c.train.grad_accum = 2;
  }
  if (mode == "curriculum") c.train.curriculum_steps = 20;
  c.train.checkpoint_every = 7;  // not aligned with eval points: the running sums must be saved
  auto full = train(opts(c, dir + "/full.json"));
  if (mode == "curriculum") {  // recorded in the config, and it draws other batches than none
    CHECK(full["config"]["train"]["curriculum_steps"] == 20);
    RunConfig plain = c;
    plain.train.curriculum_steps = 0;
    auto p = train(opts(plain, dir + "/plain.json"));
    CHECK(!p["config"]["train"].contains("curriculum_steps"));
    CHECK(numbers(p) != numbers(full));
  }
  auto o = opts(c, dir + "/part.json");
  o.stop_at = 13;
  CHECK_THROWS_AS(train(o), RunInterrupted);
  CHECK(file_exists(dir + "/part.json.ckpt"));
  CHECK(read_run_file(dir + "/part.json").status == "partial");
  CHECK(load_checkpoint(dir + "/part.json.ckpt").step == 13);
  o.stop_at = 0;
  test::expect_user_error([&] { train(o); }, "pass --resume");
  o.resume = true;
  auto resumed = train(o);
  CHECK(resumed["resumed_from_step"] == 13);
  CHECK(numbers(resumed) == numbers(full));
  // A different config is refused.
  auto bad = o;
  bad.cfg.optim.lr = 1e-3;
  bad.out_json = dir + "/other.json";
  bad.checkpoint = dir + "/part.json.ckpt";
  test::expect_user_error([&] { train(bad); }, "different config");
  fs::remove_all(dir);
}

TEST_CASE("a stop during an evaluation stops there, and the resumed run equals an uninterrupted one", "[train][stop]") {
  std::string dir = test::fresh_tmpdir("train_eval_stop");
  RunConfig c = tiny_run("rope");
  auto full = train(opts(c, dir + "/full.json"));
  {  // evaluate() itself gives up between batches (two of 32 here)
    StopSignalScope scope;
    std::raise(SIGINT);
    auto be = make_backend(c, DeviceChoice::kCpu);
    CHECK_THROWS_AS(evaluate(*be, c, generate_split(c.task, 0, Split::kVal)), EvalInterrupted);
  }
  // A stop that is pending when the run starts lands in its step-0 evaluation: the run stops
  // with no curve point and a step-0 checkpoint; resumed, it makes that point first.
  auto o = opts(c, dir + "/part.json");
  {
    StopSignalScope scope;
    std::raise(SIGTERM);
    CHECK_THROWS_AS(train(o), RunInterrupted);
  }
  auto part = nlohmann::json::parse(read_file(dir + "/part.json"));
  CHECK(part["status"] == "partial");
  CHECK(part["curve"].empty());
  CHECK(load_checkpoint(dir + "/part.json.ckpt").step == 0);
  o.resume = true;
  auto resumed = train(o);
  CHECK(numbers(resumed) == numbers(full));
  fs::remove_all(dir);
}

TEST_CASE("keep_every keeps the checkpoint of every N-th step beside the run's own", "[train]") {
  std::string dir = test::fresh_tmpdir("train_keep");
  RunConfig c = tiny_run("rope");
  c.train.checkpoint_every = 5;  // at 10 and 20 the run's own checkpoint is written too (then copied); 30 is the last step
  auto o = opts(c, dir + "/r.json");
  o.keep_every = 10;
  train(o);
  const Checkpoint last = load_checkpoint(dir + "/r.json.ckpt");
  for (int step : {10, 20, 30}) {
    const std::string kept = kept_checkpoint_path(dir + "/r.json.ckpt", step);
    INFO(kept);
    REQUIRE(file_exists(kept));
    const Checkpoint k = load_checkpoint(kept);
    CHECK(k.step == step);
    if (step == 30) CHECK(k.params == last.params);
    else CHECK(k.params != last.params);
  }
  CHECK_FALSE(file_exists(kept_checkpoint_path(dir + "/r.json.ckpt", 15)));
  // A kept checkpoint resumes like the run's own: from step 20 to the end, the same run.
  auto r = opts(c, dir + "/from20.json");
  r.checkpoint = kept_checkpoint_path(dir + "/r.json.ckpt", 20);
  r.resume = true;
  auto resumed = train(r);
  CHECK(resumed["resumed_from_step"] == 20);
  CHECK(numbers(resumed) == numbers(read_run_file(dir + "/r.json").raw));
  fs::remove_all(dir);
}

TEST_CASE("bad input is refused with a clear message", "[train]") {
  std::string dir = test::fresh_tmpdir("train_bad");
  RunConfig c = tiny_run("sinusoidal-typo");
  test::expect_user_error([&] { train(opts(c, dir + "/x.json")); }, "unknown positional embedding");
  c = tiny_run("rope");
  c.model.n_head = 3;
  test::expect_user_error([&] { train(opts(c, dir + "/x.json")); }, "does not divide");
  c = tiny_run("rope");
  auto o = opts(c, dir + "/x.json");
  o.data_dir = dir + "/missing";
  test::expect_user_error([&] { train(o); }, "no dataset at");
  // A corrupt checkpoint.
  o = opts(c, dir + "/y.json");
  train(o);
  std::string bytes = read_file(dir + "/y.json.ckpt");
  bytes[bytes.size() / 2] ^= 0x10;
  write_file_atomic(dir + "/y.json.ckpt", bytes);
  test::expect_user_error([&] { load_checkpoint(dir + "/y.json.ckpt"); }, "checksum");
  o.resume = true;
  test::expect_user_error([&] { train(o); }, "checksum");
  write_file_atomic(dir + "/z.ckpt", "not a checkpoint at all");
  test::expect_user_error([&] { load_checkpoint(dir + "/z.ckpt"); }, "wrong magic");
  fs::remove_all(dir);
}

TEST_CASE("training from a dataset directory equals training on generated data", "[train]") {
  std::string dir = test::fresh_tmpdir("train_datadir");
  RunConfig c = tiny_run("rope");
  GenerateOptions g;
  g.task = c.task;
  g.seed = c.train.data_seed;
  write_dataset_dir(dir + "/data", g);
  auto a = train(opts(c, dir + "/a.json"));
  auto o = opts(c, dir + "/b.json");
  o.data_dir = dir + "/data";
  auto b = train(o);
  CHECK(numbers(a) == numbers(b));
  CHECK(b["data"]["kind"] == "directory");
  fs::remove_all(dir);
}

TEST_CASE("run JSON is written then read back and summarised", "[train][json]") {
  std::string dir = test::fresh_tmpdir("train_json");
  auto run = train(opts(tiny_run("pope"), dir + "/r.json"));
  RunRecord r = read_run_file(dir + "/r.json");
  CHECK(r.status == "complete");
  CHECK(r.pe == "pope");
  CHECK(r.steps == 30);
  CHECK(r.test_acc == run["final"]["test"]["acc"].get<double>());
  CHECK(run["curve"].size() == 4);  // steps 0, 10, 20, 30
  CHECK(run["environment"]["git_commit"].is_string());
  CHECK_FALSE(run["environment"].contains("gpu_index"));  // a CPU run names no GPU
  CHECK(environment_json("NVIDIA H200", 1, "x", 1)["gpu_index"] == 1);
  auto run_seed1 = run;  // the same numbers under another seed: two distinct runs, no spread
  run_seed1["config"]["train"]["seed"] = 1;
  auto s = summarise_runs({run, run_seed1}, "t");
  CHECK(s["rows"][0]["n"] == 2);
  CHECK(s["rows"][0]["std"] == 0.0);
  // A small version of the task is not the paper's: no paper column, and the table says what it is of.
  CHECK(s["rows"][0]["paper"].is_null());
  CHECK(s["paper_task"] == false);
  CHECK(s["chance"].get<double>() == Approx(1.0 / run["config"]["task"]["params"]["alphabet"].get<int>()));
  // One run has no spread: std is null, not 0, and the table shows the mean alone.
  auto one = summarise_runs({run}, "t");
  CHECK(one["rows"][0]["std"].is_null());
  char row[128];
  std::snprintf(row, sizeof row, "| pope | 1 | %.2f |\n", one["rows"][0]["mean"].get<double>());
  const std::string md = summary_markdown(one);
  CHECK(md.find(row) != std::string::npos);
  CHECK(md.find("paper") == std::string::npos);
  CHECK(md.rfind("indirect-indexing, trained on lengths ", 0) == 0);
  CHECK(md.find("1 seed per PE") != std::string::npos);
  // Rows follow the paper's order (RoPE before PoPE before the Table 9 rows), not the files' order.
  auto sinus = run, rope = run;
  sinus["config"]["pe"]["kind"] = "sinusoidal";
  rope["config"]["pe"]["kind"] = "rope";
  auto order = summarise_runs({sinus, run, rope}, "t");
  REQUIRE(order["rows"].size() == 3);
  CHECK(order["rows"][0]["pe"] == "rope");
  CHECK(order["rows"][1]["pe"] == "pope");
  CHECK(order["rows"][2]["pe"] == "sinusoidal");
  // Future versions are refused, foreign documents too.
  auto future = run;
  future["schema_version"] = kRunSchemaVersion + 1;
  test::expect_user_error([&] { read_run(future, "f"); }, "newer than this build reads");
  test::expect_user_error([&] { read_run(nlohmann::json{{"a", 1}}, "f"); }, "not a popebench run");
  fs::remove_all(dir);
}

TEST_CASE("a run JSON written by version 0.1.0 is still read", "[train][json]") {
  // tests/data/run_v1.json was written by `popebench train` at schema version 1 (see its
  // environment block); keep it unchanged when the schema grows.
  RunRecord r = read_run_file(std::string(POPEBENCH_SOURCE_DIR) + "/tests/data/run_v1.json");
  CHECK(r.status == "complete");
  CHECK(r.raw["schema_version"] == 1);
  CHECK(r.test_acc >= 0);
  CHECK(r.test_acc <= 1);
}

TEST_CASE("a complete run is skipped only when its whole config matches", "[train]") {
  std::string dir = test::fresh_tmpdir("train_skip");
  RunConfig c = tiny_run("rope");
  auto o = opts(c, dir + "/r.json");
  o.skip_if_complete = true;
  auto first = train(o);
  std::string before = read_file(dir + "/r.json");
  auto again = train(o);  // same config: returned as it is, nothing rewritten
  CHECK(again == first);
  CHECK(read_file(dir + "/r.json") == before);
  // Same PE, seed, model and optimizer but another task: must train again, not be taken as done.
  auto other = o;
  other.cfg.task.as<IndirectIndexingConfig>().max_shift = 1;
  other.cfg.size_model_for_task();
  std::filesystem::remove(dir + "/r.json.ckpt");
  auto retrained = train(other);
  CHECK(retrained["config"]["task"]["params"]["max_shift"] == 1);
  fs::remove_all(dir);
}

TEST_CASE("the step log has a row every N steps, and a stopped and resumed run writes the same file", "[train]") {
  std::string dir = test::fresh_tmpdir("train_step_log");
  RunConfig c = tiny_run("pope");
  auto full_opts = opts(c, dir + "/full.json");
  full_opts.step_log_every = 4;
  auto full = train(full_opts);
  CHECK(step_log_path(dir + "/full.json") == dir + "/full.steps.csv");
  CHECK(full["step_log"]["every"] == 4);
  const std::string log = read_file(dir + "/full.steps.csv");
  std::istringstream in(log);
  std::string line;
  std::getline(in, line);
  CHECK(line == "step,lr,loss,grad_norm,train_acc");
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    CHECK(std::stoll(line) == 4 * rows);  // steps 4, 8, ..., 28 of 30
  }
  CHECK(rows == 7);
  // Stopped at 13 (rows 4, 8, 12 written), then a row written after the checkpoint as a killed
  // run would leave it: the resumed run drops it and writes the rest as the uninterrupted run did.
  auto o = opts(c, dir + "/part.json");
  o.step_log_every = 4;
  o.stop_at = 13;
  CHECK_THROWS_AS(train(o), RunInterrupted);
  {
    std::ofstream stale(dir + "/part.steps.csv", std::ios::app);
    stale << "16,0.1,9,9,0\n";
  }
  o.stop_at = 0;
  o.resume = true;
  train(o);
  CHECK(read_file(dir + "/part.steps.csv") == log);
  fs::remove_all(dir);
}

TEST_CASE("the CPU time estimate is the measured paper-model rate, scaled by FLOPs and threads", "[train]") {
  RunConfig paper;  // the suite's defaults are the paper's recipe; 25,242,112 parameters as trained
  const size_t n = 25242112;
  CHECK(estimated_cpu_seconds(paper, n, 2) == Approx(100000 / 0.22));
  CHECK(estimated_cpu_seconds(paper, n, 4) == Approx(100000 / 0.44));
  RunConfig half = paper;
  half.train.steps = 50000;
  CHECK(estimated_cpu_seconds(half, n / 2, 2) == Approx(100000 / 0.22 / 4));
}
