// The run lists of `reproduce`, `extrapolate` and `sweep`: jobs run by `concurrent` threads per
// GPU (on a GPU each run, or each batch of runs, has its own stream, graph and buffers, so they
// overlap on the device).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "kernels/device.hpp"
#include "backend/run_batch.hpp"
#include "train/stop_signal.hpp"
#include "train/trainer.hpp"

namespace popebench::cli {

// Runs job(0..n-1). With gpus > 1, job k runs on GPU k % gpus (dealt in list order, so that a
// sweep's PEs and seeds spread evenly whatever order the threads start in), by `concurrent`
// threads per GPU, each of which makes its GPU current before its first job; with gpus <= 1 the
// jobs share one queue and the current device. A job that stops early on purpose
// (RunInterrupted: time limit, --stop-at) is reported and the others go on; after SIGINT or
// SIGTERM no job starts (the caller holds a StopSignalScope; runs in flight checkpoint). Returns
// false when any job stopped early or did not start. The first job that failed (in list order) is
// rethrown after every thread has finished, named by label(k) and of its own kind: a UserError stays
// one (exit 2), any other error stays internal (a CUDA error is not the user's), out of memory stays
// std::bad_alloc.
// A failed job's exception again, named by its label and of its own kind (see run_jobs).
[[noreturn]] inline void rethrow_labelled(std::exception_ptr error, const std::string& label) {
  try {
    std::rethrow_exception(error);
  } catch (const UserError& e) {
    throw UserError(label + ": " + e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "popebench: %s: out of memory\n", label.c_str());
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(label + ": " + e.what());
  } catch (...) {
    throw std::runtime_error(label + ": an unknown error");
  }
}

inline bool run_jobs(size_t n, int concurrent, int gpus, const std::function<void(size_t)>& job,
                     const std::function<std::string(size_t)>& label) {
  const int queues = std::max(1, gpus);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::atomic<size_t>> next(queues);
  for (int g = 0; g < queues; ++g) next[g] = g;
  std::atomic<bool> interrupted{false};
  std::mutex log_mu;
  auto worker = [&](int g) {
    bool device_set = gpus <= 1;
    for (size_t k = next[g].fetch_add(queues); k < n; k = next[g].fetch_add(queues)) {
      if (stop_signal()) {  // Ctrl-C, SIGTERM: the runs in flight checkpoint; no new one starts
        interrupted = true;
        break;
      }
      try {
        if (!device_set) {
          use_device(g);
          device_set = true;
        }
        job(k);
      } catch (const RunInterrupted& e) {
        interrupted = true;
        std::lock_guard<std::mutex> lk(log_mu);
        std::fprintf(stderr, "popebench: %s: %s\n", label(k).c_str(), e.what());
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int g = 0; g < queues; ++g) {
    const size_t jobs_here = n > size_t(g) ? (n - g + queues - 1) / queues : 0;
    const int threads = std::min<int>(concurrent, static_cast<int>(jobs_here));
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, g);
  }
  for (auto& t : pool) t.join();
  for (size_t k = 0; k < n; ++k)
    if (errors[k]) rethrow_labelled(errors[k], label(k));
  return !interrupted;
}

// How a job list is batched (`--batch-runs`, backend/run_batch.hpp); cli/cell_sweep.cpp's
// batching_for makes it from SweepOptions::batch_runs.
struct Batching {
  // Runs in a batch at most; 1: every run alone (on a GPU, on its own stream).
  int max_runs = 1;
  // true (--batch-runs auto): only the jobs that train on a GPU are batched (the others train
  // alone), and `concurrent` counts runs in flight on each GPU, a batch of R taking R of them, so
  // that batching changes how the runs at once are computed, not how many there are. false
  // (--batch-runs N): batching was asked for, so a job without a GPU is an error, and
  // `concurrent` counts batches.
  bool automatic = false;
  // Which jobs may share a batch (jobs with gradient accumulation never do). Null: automatic,
  // runs_batch_on_gpu; asked for, every job, and a job without a GPU is refused before any run
  // starts. Tests put their own, with a stand-in engine.
  std::function<bool(const RunConfig&)> eligible;
  BatchEngineFactory make_engine = make_batch_engine;
  // --batch-runs N.
  static Batching up_to(int runs) {
    Batching b;
    b.max_runs = runs;
    return b;
  }
  // --batch-runs auto with --concurrent N.
  static Batching automatic_at(int concurrent) {
    Batching b;
    b.automatic = true;
    b.max_runs = concurrent;
    return b;
  }
  bool may_batch(const RunConfig& c) const {
    if (max_runs <= 1 || c.train.grad_accum != 1) return false;
    if (eligible) return eligible(c);
    return !automatic || runs_batch_on_gpu(c);
  }
};

// The batches: the jobs in list order, each joining the first open batch of jobs whose configs
// differ only in their seeds (batch_key), up to max_runs a batch; a job that cannot be batched
// (not eligible, gradient accumulation) is a batch of its own, trained as before. Returns each
// batch's job indices.
inline std::vector<std::vector<size_t>> form_run_batches(const std::vector<TrainOptions>& jobs, const Batching& batching) {
  std::vector<std::vector<size_t>> batches;
  std::vector<std::string> keys;  // of each batch
  for (size_t k = 0; k < jobs.size(); ++k) {
    const RunConfig& c = jobs[k].cfg;
    const bool batchable = batching.may_batch(c);
    const std::string key = batchable ? batch_key(c) : std::string();
    size_t b = 0;
    if (batchable)
      while (b < batches.size() && !(keys[b] == key && batches[b].size() < size_t(batching.max_runs))) ++b;
    else
      b = batches.size();
    if (b == batches.size()) {
      batches.emplace_back();
      keys.push_back(key);
    }
    batches[b].push_back(k);
  }
  return batches;
}

// The batches in the order the job pool deals them (batch b on GPU b % gpus). Asked for
// (--batch-runs N): form_run_batches' batches in turn. Automatic with gpus > 1: each GPU gets the
// runs it gets without batching (run k on GPU k % gpus), batched among themselves, so that
// batching never moves a run to a GPU whose run slots are taken; a GPU with fewer batches than
// another gets empty ones (nothing to train) to keep the dealing in step.
inline std::vector<std::vector<size_t>> deal_run_batches(const std::vector<TrainOptions>& jobs, const Batching& batching,
                                                         int gpus) {
  if (!batching.automatic || gpus <= 1) return form_run_batches(jobs, batching);
  std::vector<std::vector<std::vector<size_t>>> per_gpu(static_cast<size_t>(gpus));
  for (int g = 0; g < gpus; ++g) {
    std::vector<TrainOptions> mine;
    std::vector<size_t> index;  // mine[i] is jobs[index[i]]
    for (size_t k = size_t(g); k < jobs.size(); k += size_t(gpus)) {
      mine.push_back(jobs[k]);
      index.push_back(k);
    }
    for (auto batch : form_run_batches(mine, batching)) {
      for (size_t& i : batch) i = index[i];
      per_gpu[size_t(g)].push_back(std::move(batch));
    }
  }
  std::vector<std::vector<size_t>> dealt;
  size_t longest = 0;
  for (const auto& b : per_gpu) longest = std::max(longest, b.size());
  for (size_t i = 0; i < longest; ++i)
    for (int g = 0; g < gpus; ++g) dealt.push_back(i < per_gpu[size_t(g)].size() ? per_gpu[size_t(g)][i] : std::vector<size_t>{});
  return dealt;
}

// Run slots of one GPU (Batching::automatic): a batch of R runs takes R of them
// before it starts and gives them back when it ends. take() returns false, taking nothing, once a
// stop was asked for (SIGINT, SIGTERM) while it waited: no run starts after a stop.
class RunSlots {
 public:
  explicit RunSlots(int slots) : free_(slots) {}
  bool take(int n) {
    std::unique_lock<std::mutex> lk(mu_);
    while (free_ < n) {
      if (stop_signal()) return false;
      cv_.wait_for(lk, std::chrono::milliseconds(100));  // a signal handler cannot notify: poll it
    }
    free_ -= n;
    return true;
  }
  void give(int n) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      free_ += n;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
};

// The runs of `reproduce` and `sweep`: each job's run trained by train(), with a line when it
// starts and one with its test accuracy and the time left for the whole command when it ends
// (the unfinished runs' steps at the finished runs' mean speed, `concurrent` at once on each
// GPU: an estimate, which ignores what the runs in flight have done), under one StopSignalScope for the whole
// list (a signal stops the sweep, not only the run in flight). results[k]: job k's run JSON, or
// null when it stopped early. Returns what run_jobs returns.
//
// batching.max_runs > 1: the runs train in batches (form_run_batches), batch b on GPU b % gpus,
// `concurrent` batches at once on each GPU, or (automatic) as many batches as fit in
// `concurrent` runs; each run of a batch on a thread of its own, as a member of the batch. A run
// that stops early or fails leaves its batch and is reported as above; the others of its batch
// go on.
//
// after(k, run), if given, is called with each run that finished, on the thread that trained it
// (for a member of a batch, once it has left its batch, so that the batch does not wait on it);
// what it throws is that job's failure, as a training error would be.
using AfterJob = std::function<void(size_t, const nlohmann::json&)>;
inline bool run_training_jobs(const std::vector<TrainOptions>& jobs, int concurrent, int gpus,
                              std::vector<nlohmann::json>& results, const std::function<std::string(size_t)>& label,
                              const Batching& batching = {}, const AfterJob& after = nullptr) {
  results.assign(jobs.size(), nullptr);
  std::mutex log_mu;
  StopSignalScope signals;
  const auto t0 = std::chrono::steady_clock::now();
  size_t started = 0, finished = 0;  // under log_mu
  std::vector<char> done(jobs.size(), 0);
  double speed_sum = 0;  // steps/s of the finished runs
  // Runs in flight at once: the time-left estimate's divisor.
  const size_t in_flight = size_t(concurrent) * size_t(std::max(1, gpus)) *
                           size_t(batching.automatic ? 1 : std::max(1, batching.max_runs));
  auto train_one = [&](size_t k, const TrainOptions& opt) {
        {
          std::lock_guard<std::mutex> g(log_mu);
          std::fprintf(stderr, "popebench: run %zu of %zu: %s -> %s\n", ++started, jobs.size(), label(k).c_str(),
                       jobs[k].out_json.c_str());
        }
        nlohmann::json run = train(opt);
        std::lock_guard<std::mutex> g(log_mu);
        const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 60;
        done[k] = 1;
        ++finished;
        if (run.contains("timing") && run["timing"].contains("steps_per_s")) speed_sum += run["timing"]["steps_per_s"].get<double>();
        double steps_left = 0;
        size_t runs_left = 0;
        for (size_t i = 0; i < jobs.size(); ++i)
          if (!done[i]) {
            const int64_t steps = jobs[i].cfg.train.steps;
            steps_left += double(jobs[i].stop_at > 0 ? std::min(jobs[i].stop_at, steps) : steps);
            ++runs_left;
          }
        const double parallel = double(std::min<size_t>(runs_left, in_flight));
        std::string left;
        if (runs_left > 0 && speed_sum > 0) {
          char buf[96];
          std::snprintf(buf, sizeof buf, "; about %.0f min left for the command",
                        steps_left / (speed_sum / double(finished) * parallel) / 60);
          left = buf;
        }
        std::fprintf(stderr, "popebench: %s test acc %.2f%% (%zu of %zu runs finished, %.1f min since the first started%s)\n",
                     label(k).c_str(), 100 * run["final"]["test"]["acc"].get<double>(), finished, jobs.size(), minutes,
                     left.c_str());
        results[k] = std::move(run);
  };
  auto after_one = [&](size_t k) {  // results[k] is this thread's to read: only train_one(k) wrote it
    if (after && results[k].is_object()) after(k, results[k]);
  };
  if (batching.max_runs <= 1)
    return run_jobs(
        jobs.size(), concurrent, gpus,
        [&](size_t k) {
          train_one(k, jobs[k]);
          after_one(k);
        },
        label);

  if (!batching.automatic && !batching.eligible)  // asked for: no GPU is an error, before any run starts
    for (const auto& j : jobs) require_batch_device(j.cfg);
  const std::vector<std::vector<size_t>> batches = deal_run_batches(jobs, batching, gpus);
  std::vector<std::unique_ptr<RunSlots>> slots;  // per GPU, when `concurrent` counts runs
  // A batch takes one slot per run: one larger than the slots would wait for them forever.
  if (batching.automatic && batching.max_runs > concurrent)
    throw std::logic_error("auto batching of up to " + std::to_string(batching.max_runs) + " runs with only " +
                           std::to_string(concurrent) + " run slots: make it with Batching::automatic_at(concurrent)");
  if (batching.automatic)
    for (int g = 0; g < std::max(1, gpus); ++g) slots.push_back(std::make_unique<RunSlots>(concurrent));
  std::atomic<bool> member_stopped{false};
  auto batch_label = [&](size_t b) {
    return batches[b].size() == 1 ? label(batches[b][0]) : "batch of " + std::to_string(batches[b].size()) + " runs";
  };
  auto train_batch = [&](size_t b) {
    const std::vector<size_t>& members = batches[b];
    if (members.empty()) return;  // deal_run_batches' filler
    // Checked above: under auto no batch needs more slots than there are.
    const int need = static_cast<int>(members.size());
    RunSlots* gpu_slots = slots.empty() ? nullptr : slots[b % slots.size()].get();
    if (gpu_slots && !gpu_slots->take(need)) throw RunInterrupted("stopped before it started");
    struct GiveBack {
      RunSlots* s;
      int n;
      ~GiveBack() {
        if (s) s->give(n);
      }
    } give_back{gpu_slots, need};
    if (members.size() == 1) {
      train_one(members[0], jobs[members[0]]);
      return after_one(members[0]);
    }
    RunBatch batch(static_cast<int>(members.size()), batching.make_engine);
    std::vector<std::exception_ptr> errors(members.size());
    // Runs fn for member i: a stop on purpose is reported and leaves the others going, any other
    // error is the member's, rethrown below.
    auto guarded = [&](size_t i, const std::function<void()>& fn) {
      try {
        fn();
      } catch (const RunInterrupted& e) {
        member_stopped = true;
        std::lock_guard<std::mutex> g(log_mu);
        std::fprintf(stderr, "popebench: %s: %s\n", label(members[i]).c_str(), e.what());
      } catch (...) {
        errors[i] = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    for (size_t i = 0; i < members.size(); ++i)
      threads.emplace_back([&, i] {
        const size_t k = members[i];
        guarded(i, [&] {
          if (gpus > 1) use_device(static_cast<int>(b % size_t(gpus)));  // the batch's GPU, as run_jobs chose it
          TrainOptions opt = jobs[k];
          opt.make_backend = [&batch, i](const RunConfig& cfg) { return batch.join(static_cast<int>(i), cfg); };
          train_one(k, opt);
        });
        batch.leave(static_cast<int>(i));  // whatever the way the run ended: the others go on
        if (!errors[i]) guarded(i, [&] { after_one(k); });
      });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < members.size(); ++i)
      if (errors[i]) rethrow_labelled(errors[i], label(members[i]));
  };
  const bool all = run_jobs(batches.size(), concurrent, gpus, train_batch, batch_label);
  return all && !member_stopped;
}

}  // namespace popebench::cli
