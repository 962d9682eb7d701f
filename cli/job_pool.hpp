// The run lists of `reproduce` and `extrapolate`: jobs run by `concurrent` threads per GPU (on a
// GPU each run has its own stream, graph and buffers, so runs overlap on the device).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/files.hpp"
#include "kernels/device.hpp"
#include "models/run_batch.hpp"
#include "models/stop_signal.hpp"
#include "models/trainer.hpp"

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

// Batches of runs (`--batch-runs N`, models/run_batch.hpp): the jobs in list order, each joining
// the first open batch of jobs whose configs differ only in their seeds (batch_key), up to N a
// batch; a job that cannot be batched (gradient accumulation) is a batch of its own, trained as
// before. Returns each batch's job indices.
inline std::vector<std::vector<size_t>> form_run_batches(const std::vector<TrainOptions>& jobs, int batch_runs) {
  std::vector<std::vector<size_t>> batches;
  std::vector<std::string> keys;  // of each batch
  for (size_t k = 0; k < jobs.size(); ++k) {
    const RunConfig& c = jobs[k].cfg;
    const bool batchable = batch_runs > 1 && c.train.grad_accum == 1;
    const std::string key = batchable ? batch_key(c) : std::string();
    size_t b = 0;
    if (batchable)
      while (b < batches.size() && !(keys[b] == key && batches[b].size() < size_t(batch_runs))) ++b;
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

// The runs of `reproduce` and `sweep`: each job's run trained by train(), with a line when it
// starts and one with its test accuracy and the time left for the whole command when it ends
// (the unfinished runs' steps at the finished runs' mean speed, `concurrent` at once on each
// GPU: an estimate, which ignores what the runs in flight have done), under one StopSignalScope for the whole
// list (a signal stops the sweep, not only the run in flight). results[k]: job k's run JSON, or
// null when it stopped early. Returns what run_jobs returns.
//
// batch_runs > 1: the runs train in batches (form_run_batches), `concurrent` batches at once on
// each GPU, batch b on GPU b % gpus; each run of a batch on a thread of its own, as a member of
// the batch. A run that stops early or fails leaves its batch and is reported as above; the
// others of its batch go on.
//
// after(k, run), if given, is called with each run that finished, on the thread that trained it
// (for a member of a batch, once it has left its batch, so that the batch does not wait on it);
// what it throws is that job's failure, as a training error would be.
using AfterJob = std::function<void(size_t, const nlohmann::json&)>;
inline bool run_training_jobs(const std::vector<TrainOptions>& jobs, int concurrent, int gpus,
                              std::vector<nlohmann::json>& results, const std::function<std::string(size_t)>& label,
                              int batch_runs = 1, const AfterJob& after = nullptr) {
  results.assign(jobs.size(), nullptr);
  std::mutex log_mu;
  StopSignalScope signals;
  const auto t0 = std::chrono::steady_clock::now();
  size_t started = 0, finished = 0;  // under log_mu
  std::vector<char> done(jobs.size(), 0);
  double speed_sum = 0;  // steps/s of the finished runs
  // Runs in flight at once: the time-left estimate's divisor.
  const size_t in_flight = size_t(concurrent) * size_t(std::max(1, gpus)) * size_t(std::max(1, batch_runs));
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
  if (batch_runs <= 1)
    return run_jobs(
        jobs.size(), concurrent, gpus,
        [&](size_t k) {
          train_one(k, jobs[k]);
          after_one(k);
        },
        label);

  for (const auto& j : jobs) require_batch_device(j.cfg);  // before any run starts
  const std::vector<std::vector<size_t>> batches = form_run_batches(jobs, batch_runs);
  std::atomic<bool> member_stopped{false};
  auto batch_label = [&](size_t b) {
    return batches[b].size() == 1 ? label(batches[b][0]) : "batch of " + std::to_string(batches[b].size()) + " runs";
  };
  auto train_batch = [&](size_t b) {
    const std::vector<size_t>& members = batches[b];
    if (members.size() == 1) {
      train_one(members[0], jobs[members[0]]);
      return after_one(members[0]);
    }
    RunBatch batch(static_cast<int>(members.size()), make_batch_engine);
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
