// The coordination of a batch of runs (backend/run_batch.hpp, cli/job_pool.hpp's batches) on the
// CPU: a stand-in engine whose slots are CPU backends (one step of the batch is each staged
// slot's own train_step) shows that runs trained as members of a batch, each on its own thread
// through the trainer, give exactly the numbers they give alone; that a run which stops, finishes
// or fails leaves without holding up the others; that a failed step reaches every member; and
// which runs may share a batch. The CUDA engine itself is tested against runs alone on the GPU
// (tests/test_cuda_run_batch.cpp).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "cli/job_pool.hpp"
#include "common/files.hpp"
#include "backend/run_batch.hpp"
#include "train/stop_signal.hpp"
#include "train/trainer.hpp"
#include "tests/test_configs.hpp"
#include "tests/test_util.hpp"

using namespace popebench;
namespace fs = std::filesystem;

namespace {

// R CPU backends behind the BatchEngine interface. fail_at_step > 0: step_all throws there.
class CpuBatchEngine : public BatchEngine {
 public:
  CpuBatchEngine(int runs, long fail_at_step = 0) : slots_(runs), fail_at_(fail_at_step) {}
  std::string device_name() const override { return "cpu"; }
  int device_index() const override { return -1; }
  const ParamLayout& layout() const override { return slots_[0].be->layout(); }
  int static_len() const override { return 0; }
  void init_run(int r, const RunConfig& cfg) override {
    RunConfig c = cfg;
    c.train.device = DeviceChoice::kCpu;
    slots_[r].be = make_backend(c, DeviceChoice::kCpu);
  }
  void get_state(int r, std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) override {
    slots_[r].be->get_state(p, m, v);
  }
  void set_state(int r, const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) override {
    slots_[r].be->set_state(p, m, v);
  }
  void stage(int r, const Batch* b, double lr, long step) override {
    Slot& s = slots_[r];
    s.active = b != nullptr;
    if (b) s.batch = *b;
    s.lr = lr;
    s.step = step;
  }
  void step_all() override {
    ++steps_run;
    for (Slot& s : slots_)
      if (s.active && fail_at_ > 0 && s.step == fail_at_) throw std::runtime_error("device failure");
    for (Slot& s : slots_)
      if (s.active) s.result = s.be->train_step(s.batch, s.lr, s.step);
  }
  StepResult result(int r) const override { return slots_[r].result; }
  double eval_batch(int r, const Batch& b, std::vector<int32_t>& correct) override {
    return slots_[r].be->eval_batch(b, correct);
  }
  TokenLoss eval_every_token(int r, const Batch& b, std::vector<int32_t>& correct) override {
    return slots_[r].be->eval_every_token(b, correct);
  }
  std::atomic<int> steps_run{0};

 private:
  struct Slot {
    std::unique_ptr<Backend> be;
    Batch batch;
    bool active = false;
    double lr = 0;
    long step = 0;
    StepResult result;
  };
  std::vector<Slot> slots_;
  long fail_at_;
};

RunConfig tiny(uint64_t seed) {
  RunConfig c = test::small_run_config("pope", {5, 8, 2, 10}, /*d_model=*/32, /*n_head=*/2, /*n_train=*/300);
  c.task.n_val = 32;
  c.task.n_test = 32;
  c.optim.lr = 3e-3;
  c.optim.warmup_steps = 3;
  c.train.steps = 12;
  c.train.batch = 8;
  c.train.eval_every = 4;
  c.train.eval_batch = 16;
  c.train.checkpoint_every = 0;
  c.train.device = DeviceChoice::kCpu;
  c.train.seed = seed;
  c.train.data_seed = seed % 2;  // members may differ in their data too
  return c;
}
TrainOptions opts(const RunConfig& c, const std::string& out) { return test::quiet_run(c, out); }
nlohmann::json numbers(const nlohmann::json& run) { return test::run_numbers(run); }

// Trains jobs[i] as member i of one batch, each on its own thread, as the job pool does; returns
// each run's JSON (null when it threw; its exception in errors[i]).
std::vector<nlohmann::json> train_as_batch(RunBatch& batch, std::vector<TrainOptions> jobs,
                                           std::vector<std::exception_ptr>& errors) {
  std::vector<nlohmann::json> out(jobs.size());
  errors.assign(jobs.size(), nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i)
    threads.emplace_back([&, i] {
      jobs[i].make_backend = [&batch, i](const RunConfig& c) { return batch.join(int(i), c); };
      try {
        out[i] = train(jobs[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
      batch.leave(int(i));
    });
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace

TEST_CASE("runs trained as members of a batch give exactly what they give alone", "[batch]") {
  const std::string dir = test::fresh_tmpdir("run_batch_equal");
  std::vector<TrainOptions> jobs;
  std::vector<nlohmann::json> alone;
  for (uint64_t seed : {0, 1, 2}) {
    alone.push_back(train(opts(tiny(seed), dir + "/alone" + std::to_string(seed) + ".json")));
    jobs.push_back(opts(tiny(seed), dir + "/batched" + std::to_string(seed) + ".json"));
  }
  CpuBatchEngine* engine = nullptr;
  RunBatch batch(3, [&](const RunConfig&, int runs) {
    auto e = std::make_unique<CpuBatchEngine>(runs);
    engine = e.get();
    return e;
  });
  std::vector<std::exception_ptr> errors;
  auto batched = train_as_batch(batch, jobs, errors);
  for (size_t i = 0; i < 3; ++i) {
    INFO("seed " << i);
    REQUIRE_FALSE(errors[i]);
    CHECK(numbers(batched[i]) == numbers(alone[i]));
    CHECK(batched[i]["environment"]["batch"] == nlohmann::json{{"runs", 3}, {"slot", int(i)}});
  }
  CHECK(engine->steps_run == 12);  // one step of the batch per training step, not one per run
  fs::remove_all(dir);
}

TEST_CASE("a run that stops or finishes early or fails leaves its batch and the others go on", "[batch]") {
  const std::string dir = test::fresh_tmpdir("run_batch_leave");
  auto job = [&](uint64_t seed) { return opts(tiny(seed), dir + "/run" + std::to_string(seed) + ".json"); };
  std::vector<TrainOptions> jobs = {job(0), job(1), job(2), job(3)};
  jobs[1].stop_at = 5;  // stops with a checkpoint after step 5
  // Fails before it joins: a checkpoint is there and --resume was not given.
  write_file_atomic(jobs[2].out_json + ".ckpt", "not a checkpoint");
  auto full = train(opts(tiny(0), dir + "/full0.json"));
  RunBatch batch(4, [](const RunConfig&, int runs) { return std::make_unique<CpuBatchEngine>(runs); });
  std::vector<std::exception_ptr> errors;
  auto out = train_as_batch(batch, jobs, errors);
  CHECK_FALSE(errors[0]);
  CHECK(numbers(out[0]) == numbers(full));
  REQUIRE(errors[1]);
  CHECK_THROWS_AS(std::rethrow_exception(errors[1]), RunInterrupted);
  REQUIRE(errors[2]);
  CHECK_THROWS_AS(std::rethrow_exception(errors[2]), UserError);
  CHECK_FALSE(errors[3]);
  CHECK(out[3]["final"]["step"] == 12);
  fs::remove_all(dir);
}

TEST_CASE("a failed step of the batch fails every member with its error", "[batch]") {
  const std::string dir = test::fresh_tmpdir("run_batch_fail");
  std::vector<TrainOptions> jobs = {opts(tiny(0), dir + "/a.json"), opts(tiny(1), dir + "/b.json")};
  RunBatch batch(2, [](const RunConfig&, int runs) { return std::make_unique<CpuBatchEngine>(runs, 6); });
  std::vector<std::exception_ptr> errors;
  train_as_batch(batch, jobs, errors);
  for (auto& e : errors) {
    REQUIRE(e);
    CHECK_THROWS_WITH(std::rethrow_exception(e), "device failure");
  }
  fs::remove_all(dir);
}

TEST_CASE("only runs that differ in their seeds share a batch", "[batch]") {
  RunConfig a = tiny(0), b = tiny(1);
  CHECK(batch_key(a) == batch_key(b));  // seed and data seed differ
  RunConfig c = tiny(0);
  c.optim.lr = 1e-3;
  CHECK(batch_key(c) != batch_key(a));
  RunConfig d = tiny(2);
  d.pe.kind = "rope";
  CHECK(batch_key(d) != batch_key(a));

  RunBatch batch(2, [](const RunConfig&, int runs) { return std::make_unique<CpuBatchEngine>(runs); });
  auto member = batch.join(0, a);
  CHECK_THROWS_AS(batch.join(1, c), std::logic_error);  // the runner's grouping is wrong: internal
  CHECK_THROWS_AS(batch.join(0, b), std::logic_error);  // a slot joins once

  // The job pool's batches: list order, seeds together up to N a batch, anything else apart, a
  // run with gradient accumulation alone.
  std::vector<TrainOptions> jobs;
  for (RunConfig cfg : {a, d, b, tiny(4), c, tiny(6)}) jobs.push_back(opts(cfg, ""));
  RunConfig acc = tiny(8);
  acc.train.grad_accum = 2;
  jobs.push_back(opts(acc, ""));
  using B = std::vector<std::vector<size_t>>;
  CHECK(cli::form_run_batches(jobs, cli::Batching::up_to(2)) == B{{0, 2}, {1}, {3, 5}, {4}, {6}});
  CHECK(cli::form_run_batches(jobs, cli::Batching::up_to(8)) == B{{0, 2, 3, 5}, {1}, {4}, {6}});
  CHECK(cli::form_run_batches(jobs, cli::Batching::up_to(1)) == B{{0}, {1}, {2}, {3}, {4}, {5}, {6}});
}

TEST_CASE("batched runs without a GPU are refused with the reason", "[batch]") {
  const std::string dir = test::fresh_tmpdir("run_batch_cpu");
  std::vector<TrainOptions> jobs = {opts(tiny(0), dir + "/a.json"), opts(tiny(1), dir + "/b.json")};
  std::vector<nlohmann::json> results;
  try {
    cli::run_training_jobs(jobs, 1, 1, results, [](size_t k) { return "run " + std::to_string(k); }, cli::Batching::up_to(2));
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK_THAT(e.what(), Catch::Contains("--batch-runs needs the GPU"));
  }
  fs::remove_all(dir);
}

namespace {

// A CpuBatchEngine that counts the runs of every engine alive at once (max_in_flight). Before
// its first step it waits, up to wait_ms, until engines holding `rendezvous` runs are alive: so
// batches that the pool lets train at once do overlap, however loaded the machine, and a pool
// that holds a batch back shows it as a maximum below `rendezvous`.
struct CountedEngine : CpuBatchEngine {
  static inline std::atomic<int> in_flight{0}, max_in_flight{0};
  static inline int rendezvous = 0, wait_ms = 0;
  explicit CountedEngine(int runs) : CpuBatchEngine(runs), runs_(runs) {
    const int now = in_flight += runs_;
    for (int m = max_in_flight; now > m && !max_in_flight.compare_exchange_weak(m, now);) {
    }
  }
  ~CountedEngine() override { in_flight -= runs_; }
  void step_all() override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    while (first_ && in_flight < rendezvous && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    first_ = false;
    CpuBatchEngine::step_all();
  }
  int runs_;
  bool first_ = true;
};

}  // namespace

TEST_CASE("auto batching trains the runs at once as batches and --concurrent still counts runs", "[batch]") {
  const std::string dir = test::fresh_tmpdir("run_batch_auto");
  std::vector<TrainOptions> jobs;
  std::vector<nlohmann::json> alone;
  for (uint64_t seed : {0, 1, 2, 3}) {
    jobs.push_back(opts(tiny(seed), dir + "/run" + std::to_string(seed) + ".json"));
    alone.push_back(train(opts(tiny(seed), dir + "/alone" + std::to_string(seed) + ".json")));
  }
  auto label = [](size_t k) { return "run " + std::to_string(k); };

  // What auto batches: only runs that train on a GPU. These are CPU runs, so on any machine each
  // trains alone; the default engine is never asked for.
  cli::Batching automatic = cli::Batching::automatic_at(2);
  using B = std::vector<std::vector<size_t>>;
  CHECK(cli::form_run_batches(jobs, automatic) == B{{0}, {1}, {2}, {3}});

  // The pool under auto, with the CPU stand-in for the GPU: four runs, --concurrent 2. The runs
  // go as two batches of two, one batch at a time (it takes both run slots), each run equal to
  // itself alone; asked for explicitly (--batch-runs 2), --concurrent 2 counts batches, and both
  // batches train at once.
  automatic.eligible = [](const RunConfig&) { return true; };
  automatic.make_engine = [](const RunConfig&, int runs) { return std::make_unique<CountedEngine>(runs); };
  CHECK(cli::form_run_batches(jobs, automatic) == B{{0, 1}, {2, 3}});
  std::vector<nlohmann::json> results;
  CountedEngine::max_in_flight = 0;
  CountedEngine::rendezvous = 4;  // never reached under auto: the second batch waits for run slots
  CountedEngine::wait_ms = 500;
  REQUIRE(cli::run_training_jobs(jobs, 2, 1, results, label, automatic));
  CHECK(CountedEngine::max_in_flight == 2);
  for (size_t k = 0; k < jobs.size(); ++k) {
    INFO("run " << k);
    CHECK(numbers(results[k]) == numbers(alone[k]));
    CHECK(results[k]["environment"]["batch"]["runs"] == 2);
  }

  for (auto& j : jobs) j.out_json = j.out_json + ".explicit.json";
  cli::Batching asked = automatic;
  asked.automatic = false;
  CountedEngine::max_in_flight = 0;
  CountedEngine::wait_ms = 20000;  // reached at once when both batches start together, as they must
  REQUIRE(cli::run_training_jobs(jobs, 2, 1, results, label, asked));
  CHECK(CountedEngine::max_in_flight == 4);
  for (size_t k = 0; k < jobs.size(); ++k) CHECK(numbers(results[k]) == numbers(alone[k]));
  fs::remove_all(dir);
}

TEST_CASE("auto batching on several GPUs batches the runs of each GPU among themselves", "[batch]") {
  // Without batching run k trains on GPU k % gpus; auto keeps every run there, so that no GPU gets
  // more runs than --concurrent can hold at once while another idles.
  std::vector<TrainOptions> jobs;
  for (const char* pe : {"rope", "pope"})
    for (uint64_t seed : {0, 1, 2}) {
      RunConfig c = tiny(seed);
      c.pe.kind = pe;
      jobs.push_back(opts(c, ""));
    }
  jobs.push_back(opts(tiny(7), ""));  // a seventh, PoPE: one GPU gets one run more
  cli::Batching automatic = cli::Batching::automatic_at(3);
  automatic.eligible = [](const RunConfig&) { return true; };
  using B = std::vector<std::vector<size_t>>;
  // One GPU: the seeds of each PE together.
  CHECK(cli::deal_run_batches(jobs, automatic, 1) == B{{0, 1, 2}, {3, 4, 5}, {6}});
  // Two: GPU 0 has runs 0, 2, 4, 6 (rope 0 and 2, pope 1 and the seventh), GPU 1 runs 1, 3, 5.
  CHECK(cli::deal_run_batches(jobs, automatic, 2) == B{{0, 2}, {1}, {4, 6}, {3, 5}});
  // Three, --concurrent 2: GPU 0 runs 0, 3, 6; GPU 1 runs 1, 4; GPU 2 runs 2, 5. An empty batch
  // keeps batch b on GPU b % 3.
  cli::Batching two = cli::Batching::automatic_at(2);
  two.eligible = automatic.eligible;
  const B three = cli::deal_run_batches(jobs, two, 3);
  CHECK(three == B{{0}, {1}, {2}, {3, 6}, {4}, {5}});
  for (int gpus : {2, 3, 4})
    for (const cli::Batching& b : {automatic, two}) {
      const B dealt = cli::deal_run_batches(jobs, b, gpus);
      std::vector<int> seen(jobs.size(), 0);
      for (size_t i = 0; i < dealt.size(); ++i)
        for (size_t k : dealt[i]) {
          CHECK(k % size_t(gpus) == i % size_t(gpus));
          ++seen[k];
        }
      CHECK(seen == std::vector<int>(jobs.size(), 1));
    }
  // Asked for (--batch-runs 3): the batches in turn, batch b on GPU b % gpus, as documented.
  CHECK(cli::deal_run_batches(jobs, cli::Batching::up_to(3), 2) == cli::form_run_batches(jobs, cli::Batching::up_to(3)));
}

TEST_CASE("auto batching with batches larger than the run slots is refused before any run starts", "[batch]") {
  std::vector<TrainOptions> jobs;
  for (uint64_t seed : {0, 1, 2}) jobs.push_back(opts(tiny(seed), ""));
  cli::Batching automatic = cli::Batching::automatic_at(3);
  automatic.eligible = [](const RunConfig&) { return true; };
  automatic.make_engine = [](const RunConfig&, int runs) { return std::make_unique<CountedEngine>(runs); };
  std::vector<nlohmann::json> results;
  CountedEngine::max_in_flight = 0;
  // A batch of three would wait forever for a third slot of two.
  CHECK_THROWS_AS(cli::run_training_jobs(jobs, 2, 1, results, [](size_t k) { return std::to_string(k); }, automatic),
                  std::logic_error);
  CHECK(CountedEngine::max_in_flight == 0);
}

TEST_CASE("a batch waiting for run slots does not start after a stop", "[batch]") {
  cli::RunSlots slots(2);
  REQUIRE(slots.take(2));
  slots.give(1);
  {
    StopSignalScope scope;
    CHECK(slots.take(1));  // free: taken at once
    std::raise(SIGINT);    // the scope's handler records it; nothing ends the process
    // None free and a stop asked for: gives up (after one poll at most) instead of waiting.
    CHECK_FALSE(slots.take(1));
  }
  slots.give(2);
  CHECK(slots.take(2));  // nothing was taken by the refused call
}
