#include "train/trainer.hpp"

#include <chrono>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <thread>
#include <unistd.h>

#include <omp.h>

#include "common/environment.hpp"
#include "common/files.hpp"
#include "common/json_int.hpp"
#include "common/rng.hpp"
#include "common/version.hpp"
#include "common/json_read.hpp"
#include "generators/dataset_io.hpp"
#include "train/batch_sampler.hpp"
#include "train/checkpoint.hpp"
#include "train/evaluate.hpp"
#include "train/run_data.hpp"
#include "train/run_json.hpp"
#include "train/schedule.hpp"
#include "train/step_log.hpp"
#include "train/training_state.hpp"
#include "train/stop_signal.hpp"

namespace popebench {

using Clock = std::chrono::steady_clock;
static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

namespace {

// Whether a config read from a file (written by this or an earlier version) is `cfg`: compared
// after normalized_config, so options added since it was written count as their defaults.
bool same_config(const nlohmann::json& written, const nlohmann::json& cfg) {
  try {
    return normalized_config(written) == cfg;
  } catch (const std::exception&) {
    return false;  // malformed: not the same run
  }
}

class Progress {
 public:
  // On a terminal a lone run rewrites one line; runs that share the terminal (they have labels)
  // each print a whole line every 10 s instead, since two runs rewriting one line overwrote each
  // other and glued the pool's "finished" lines onto theirs. Into a file or pipe: every N steps.
  Progress(int64_t total, int64_t log_every, std::string label)
      : total_(total), every_(log_every), tty_(isatty(2)), overwrite_(tty_ && label.empty()),
        label_(label.empty() ? "" : label + ": ") {}
  void update(int64_t step, double loss, double val_acc, double steps_per_s) {
    bool show = overwrite_ ? seconds_since(last_) > 0.5 : tty_ ? seconds_since(last_) > 10 : (every_ > 0 && step % every_ == 0);
    if (!show && step != total_) return;
    last_ = Clock::now();
    double left = steps_per_s > 0 ? (total_ - step) / steps_per_s : 0;
    char acc[32] = "-";
    if (val_acc >= 0) std::snprintf(acc, sizeof acc, "%.2f%%", 100 * val_acc);
    std::fprintf(stderr, "%s%sstep %lld/%lld  loss %.4f  val acc %s  %.1f steps/s  %.0f s left%s", overwrite_ ? "\r" : "",
                 label_.c_str(), static_cast<long long>(step), static_cast<long long>(total_), loss, acc, steps_per_s, left,
                 overwrite_ ? "   " : "\n");
    if (overwrite_ && step == total_) std::fprintf(stderr, "\n");
  }

 private:
  int64_t total_, every_;
  bool tty_, overwrite_;
  std::string label_;
  Clock::time_point last_ = Clock::now() - std::chrono::seconds(10);
};

}  // namespace

double estimated_cpu_seconds(const RunConfig& cfg, size_t n_params, int threads) {
  auto flops_per_step = [](const RunConfig& c, double params) {
    return 6.0 * params * double(c.train.batch) * double(c.train.grad_accum) * double(c.input_len());
  };
  // The paper model (the suite's defaults, 25,242,112 parameters) trained at 0.22 steps/s on 2
  // cores of this project's x86-64-v3 machine.
  const double per_thread = 0.22 * flops_per_step(RunConfig{}, 25242112.0) / 2.0;
  return double(cfg.train.steps) * flops_per_step(cfg, double(n_params)) / (per_thread * std::max(1, threads));
}

std::string kept_checkpoint_path(const std::string& checkpoint, int64_t step) {
  return checkpoint + ".step" + std::to_string(step);
}

namespace {

// One run being trained: its options and config, data, backend and sampler, and the typed state
// a checkpoint carries (train/training_state.hpp). train() below sets it up and drives the
// steps; these are the parts the loop, a stop and the end share.
class RunTraining {
 public:
  RunTraining(TrainOptions& opt, const Splits& data, std::unique_ptr<Backend> be, int threads)
      : opt_(opt), cfg_(opt.cfg), cfg_json_(opt.cfg), data_(data), be_(std::move(be)), threads_(threads),
        sampler_(cfg_.train.sampling, cfg_.train.seed, data.train.lengths, cfg_.train.curriculum_steps) {}

  Backend& backend() { return *be_; }
  BatchSampler& sampler() { return sampler_; }
  TrainingState& state() { return st_; }
  const nlohmann::json& config_json() const { return cfg_json_; }

  // Continues from opt.checkpoint: weights, moments, sampler and state. Returns false when
  // there is none.
  bool resume() {
    if (!file_exists(opt_.checkpoint)) return false;
    if (!opt_.resume) throw UserError("checkpoint " + opt_.checkpoint + " exists: pass --resume to continue it, or remove it");
    Checkpoint ck = load_checkpoint(opt_.checkpoint);
    if (!same_config(ck.config, cfg_json_))
      throw UserError("checkpoint " + opt_.checkpoint + " was made with a different config; refusing to resume");
    if (ck.params.size() != be_->layout().total) throw UserError(opt_.checkpoint + ": parameter count does not match the model");
    try {
      st_ = TrainingState::from_checkpoint(ck.step, ck.extra);
    } catch (const UserError& e) {
      throw UserError(opt_.checkpoint + ": " + e.what());
    }
    be_->set_state(ck.params, ck.m, ck.v);
    sampler_.set_stream_state(ck.rng_state, ck.rng_inc);
    const nlohmann::json sampler_state = TrainingState::sampler_state(ck.extra);
    if (!sampler_state.is_null()) sampler_.set_state(sampler_state);
    std::fprintf(stderr, "popebench: resuming %s at step %lld\n", opt_.checkpoint.c_str(), static_cast<long long>(st_.step));
    return true;
  }

  // Fine-tuning (TrainConfig::init_from): the parameters of another run's checkpoint, fresh
  // moments. Returns what the run JSON records of it (init_record).
  nlohmann::json init_from_checkpoint() {
    const auto [ck, from] = read_init_source();
    const std::string& path = cfg_.train.init_from;
    nlohmann::json a = from.model, b = cfg_.model;
    a.erase("max_len");
    b.erase("max_len");
    if (a != b || from.pe.kind != cfg_.pe.kind)
      throw UserError("--init-from " + path + ": its model (" + from.pe.kind + ", " + std::to_string(from.model.n_layer) +
                      " layers of " + std::to_string(from.model.d_model) + ") is not this run's (" + cfg_.pe.kind + ", " +
                      std::to_string(cfg_.model.n_layer) + " layers of " + std::to_string(cfg_.model.d_model) +
                      "); only the maximum length may differ");
    if (ck.params.size() != be_->layout().total)
      throw UserError("--init-from " + path + ": " + std::to_string(ck.params.size()) + " parameters, this run's model has " +
                      std::to_string(be_->layout().total) + " (a learned position table sized for another length?)");
    const std::vector<float> zeros(ck.params.size(), 0.f);
    be_->set_state(ck.params, zeros, zeros);
    return init_record(ck, from);
  }
  // What a run JSON records of the checkpoint it started from: the file, its step, its length and
  // task, so a fine-tuned run names what it started from. A resumed run reads it again.
  nlohmann::json init_record() const {
    const auto [ck, from] = read_init_source();
    return init_record(ck, from);
  }

  std::pair<Checkpoint, RunConfig> read_init_source() const {
    const std::string& path = cfg_.train.init_from;
    try {
      Checkpoint ck = load_checkpoint(path);
      RunConfig from = checkpoint_run_config(ck, path);
      return {std::move(ck), std::move(from)};
    } catch (const UserError& e) {
      throw UserError(std::string("--init-from: ") + e.what());
    }
  }
  nlohmann::json init_record(const Checkpoint& ck, const RunConfig& from) const {
    return {{"checkpoint", cfg_.train.init_from}, {"step", ck.step}, {"max_len", from.model.max_len}, {"task", from.task}};
  }

  // A checkpoint at `path` with the time so far (this session's train_s and eval_s added).
  void save(double train_s, double eval_s, const std::string& path) {
    Checkpoint ck;
    ck.config = cfg_json_;
    TrainingState s = st_;
    s.train_s += train_s;
    s.eval_s += eval_s;
    ck.extra = s.checkpoint_extra(sampler_.state());
    ck.step = st_.step;
    ck.rng_state = sampler_.stream_state();
    ck.rng_inc = sampler_.stream_inc();
    be_->get_state(ck.params, ck.m, ck.v);
    save_checkpoint(path, ck);
  }

  // The fields every run JSON has (results/SCHEMA.md); status-specific ones are added to it.
  nlohmann::json run_json(const char* status) const {
    nlohmann::json j{{"schema", "popebench.run"}, {"schema_version", kRunSchemaVersion}, {"status", status},
                     {"config", cfg_json_}, {"data", data_.source}, {"curve", st_.curve},
                     {"environment", environment_json(be_->device_name(), threads_, opt_.command, be_->device_index())},
                     {"checkpoint", opt_.checkpoint}};
    if (opt_.step_log_every > 0) j["step_log"] = {{"file", step_log_path(opt_.out_json)}, {"every", opt_.step_log_every}};
    if (!opt_.origin.empty()) j["origin"] = opt_.origin;
    if (nlohmann::json batch = be_->batch_info(); !batch.is_null()) j["environment"]["batch"] = batch;
    return j;
  }

  // The curve's point at the current step from the running sums (none at step 0), then the sums
  // reset. Throws EvalInterrupted from the evaluation, before the point is added and with the
  // sums kept: the resumed run makes the point first, so the curve is the same. eval_s
  // accumulates the evaluation time; train_s so far is for elapsed_s.
  void curve_point(double train_s, double& eval_s) {
    const auto t0 = Clock::now();
    EvalResult v = evaluate(*be_, cfg_, data_.val, cfg_.train.eval_examples);
    eval_s += seconds_since(t0);
    CurvePoint p;
    p.step = st_.step;
    p.lr = lr_at(cfg_.optim, std::max<int64_t>(st_.step - 1, 0), cfg_.train.steps);
    if (st_.step > 0) {
      p.train_loss = st_.loss_sum / st_.loss_n;
      p.train_acc = double(st_.hits) / (st_.loss_n * cfg_.examples_per_step());
    }
    p.val_loss = v.loss;
    p.val_acc = v.acc;
    if (v.bits_per_byte >= 0) p.val_bits_per_byte = v.bits_per_byte;
    p.val_n = int64_t(v.n);
    p.elapsed_s = st_.train_s + train_s + st_.eval_s + eval_s;
    st_.curve.push_back(p);
    st_.loss_sum = 0;
    st_.loss_n = st_.hits = 0;
  }

  bool out_of_time() const {
    return opt_.deadline > 0 && std::chrono::duration<double>(Clock::now().time_since_epoch()).count() > opt_.deadline;
  }

  // Stops with a checkpoint and a partial run JSON (its curve so far, no final numbers).
  [[noreturn]] void stop_here(double train_s, double eval_s, int64_t start_step) {
    save(train_s, eval_s, opt_.checkpoint);
    const int sig = stop_signal();
    std::string why = sig ? "interrupted" : out_of_time() ? "time limit reached" : "stopped as asked (--stop-at)";
    nlohmann::json part = run_json("partial");
    part["steps_done"] = st_.step;
    part["timing"] = {{"train_s", st_.train_s + train_s}, {"eval_s", st_.eval_s + eval_s},
                      {"steps_per_s", (st_.step - start_step) / std::max(train_s, 1e-9)}};
    write_file_atomic(opt_.out_json, part.dump(2) + "\n");
    throw RunInterrupted(why + " at step " + std::to_string(st_.step) + "; checkpoint " + opt_.checkpoint + " saved: " +
                         opt_.resume_hint);
  }

 private:
  TrainOptions& opt_;
  const RunConfig& cfg_;
  const nlohmann::json cfg_json_;
  const Splits& data_;
  std::unique_ptr<Backend> be_;
  const int threads_;
  BatchSampler sampler_;
  TrainingState st_;
};

}  // namespace

nlohmann::json train(TrainOptions opt) {
  RunConfig& cfg = opt.cfg;
  if (opt.out_json.empty()) throw UserError("no output path for the run JSON (--out)");
  if (opt.checkpoint.empty()) opt.checkpoint = opt.out_json + ".ckpt";
  // Before any work: a run must not train for hours and then fail to save, or save its run JSON
  // over its own checkpoint.
  check_output_path(opt.out_json, "--out");
  check_output_path(opt.checkpoint, "--checkpoint");
  // The checkpoint is an output (and, resumed, an input of the same role): only the run JSON and
  // the dataset's files must stay apart from the outputs.
  std::vector<NamedPath> inputs;
  std::error_code ec;
  if (!opt.data_dir.empty())
    for (std::filesystem::directory_iterator it(opt.data_dir, ec), end; !ec && it != end; it.increment(ec))
      inputs.push_back({it->path().string(), "a file of the dataset --data"});
  refuse_outputs_over_inputs({{opt.out_json, "--out"}, {opt.checkpoint, "--checkpoint"}}, inputs);
  int threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  omp_set_num_threads(threads);
  Splits data = load_data(cfg, opt.data_dir);
  cfg.validate();
  if (data.val.size() == 0 || data.test.size() == 0)
    throw UserError(std::string("the ") + (data.val.size() == 0 ? "validation" : "test") +
                    " split is empty: a run reports its accuracy there");
  // The output folders, once the config is known to be good (a refused run leaves none behind).
  for (const std::string& f : {opt.out_json, opt.checkpoint}) {
    auto parent = std::filesystem::path(f).parent_path();
    if (!parent.empty()) make_dirs(parent.string());
    // Permissions can differ from what access() saw (read-only mounts, quotas): try it.
    const std::string probe = f + ".probe." + std::to_string(::getpid());
    write_file_atomic(probe, "");
    std::remove(probe.c_str());
  }

  if (opt.skip_if_complete && file_exists(opt.out_json)) {
    nlohmann::json done;
    try {
      done = read_json_file(opt.out_json);
    } catch (const UserError&) {  // not a run JSON that can be skipped: train it
    }
    if (done.is_object() && done.value("status", "") == "complete" &&
        same_config(done.value("config", nlohmann::json()), nlohmann::json(cfg))) {
      std::fprintf(stderr, "popebench: %s is complete; skipping\n", opt.out_json.c_str());
      return done;
    }
  }

  RunTraining run(opt, data, opt.make_backend ? opt.make_backend(cfg) : make_backend(cfg, cfg.train.device), threads);
  Backend& be = run.backend();
  TrainingState& st = run.state();
  // Fine-tuning starts from another run's weights, read before anything is printed so that a bad
  // --init-from is one line; a run with a checkpoint of its own resumes from that instead (below).
  nlohmann::json initialised_from = nullptr;
  if (!cfg.train.init_from.empty() && !file_exists(opt.checkpoint)) initialised_from = run.init_from_checkpoint();
  if (opt.log_every > 0) {  // what is about to train (--print-config gives the whole config)
    const std::string name = opt.label.empty() ? cfg.pe.kind + " seed " + std::to_string(cfg.train.seed) : opt.label;
    std::fprintf(stderr, "popebench: %s: %zu parameters (%d layers x %d, %d heads) on %s, %lld steps of %lld examples\n",
                 name.c_str(), be.layout().n_params, cfg.model.n_layer, cfg.model.d_model, cfg.model.n_head,
                 be.device_name().c_str(), static_cast<long long>(cfg.train.steps),
                 static_cast<long long>(cfg.examples_per_step()));
    // What sets this run apart from the suite's defaults (docs/spec.md), as config paths; the
    // whole config is in the run JSON and --print-config.
    const std::string diff = config_differences(run.config_json(), RunConfig{});
    std::fprintf(stderr, "popebench: %s: config: %s\n", name.c_str(), diff.empty() ? "the defaults" : diff.c_str());
  }
  if (opt.warn_if_long_on_cpu && be.device_name() == "cpu") {
    const double s = estimated_cpu_seconds(cfg, be.layout().n_params, threads) * double(cfg.train.steps - st.step) /
                     double(cfg.train.steps);
    if (s > 3600)
      std::fprintf(stderr,
                   "popebench: this run trains on the CPU: %lld steps of a %zu-parameter model, about %.0f hours on %d "
                   "threads (estimated). A GPU (--device cuda) or a smaller model (--preset quick) takes minutes; "
                   "Ctrl-C stops it with a checkpoint.\n",
                   static_cast<long long>(cfg.train.steps - st.step), be.layout().n_params, s / 3600, threads);
  }
  const bool resumed = run.resume();
  const nlohmann::json resumed_from = resumed ? nlohmann::json(st.step) : nlohmann::json(nullptr);
  // A resumed fine-tuning run has its weights from its own checkpoint; what it started from is
  // read again (the file must still be there: the run JSON's record of it is checked, not copied).
  if (resumed && !cfg.train.init_from.empty()) initialised_from = run.init_record();

  StepLog step_log(step_log_path(opt.out_json), opt.step_log_every, resumed ? st.step : -1);

  const auto& T = cfg.train;
  const auto t_start = Clock::now();
  double eval_s = 0, train_s = 0;  // this session's

  // SIGINT / SIGTERM: finish the current step, save a checkpoint, then stop. A sweep holds its
  // own scope around all its runs (train/stop_signal.hpp), so this one is then a no-op.
  StopSignalScope signals;

  Progress progress(T.steps, opt.log_every, opt.label);
  const int64_t start_step = st.step;
  auto last_val_acc = [&] { return st.curve.empty() ? -1.0 : st.curve.back().val_acc; };
  // A point whose evaluation was interrupted stops the run (the checkpoint keeps the sums).
  auto curve_point_or_stop = [&] {
    try {
      run.curve_point(train_s, eval_s);
    } catch (const EvalInterrupted&) {
      run.stop_here(train_s, eval_s, start_step);
    }
  };
  const bool point_due = st.step == T.steps || (T.eval_every > 0 && st.step % T.eval_every == 0);
  if (point_due && (st.curve.empty() || st.curve.back().step != st.step) && (st.step == 0 || st.loss_n > 0))
    curve_point_or_stop();
  // A stop that came during loading or the first evaluation is honoured before any training.
  if (st.step < T.steps && (stop_signal() || run.out_of_time())) run.stop_here(0, eval_s, start_step);
  std::vector<size_t> idx(T.batch);
  std::vector<Batch> micro(T.grad_accum);  // the optimizer step's micro-batches
  const int row_len = batch_row_len(be, cfg);
  double last_loss = 0;
  auto t_train = Clock::now();
  auto pause_clock = [&] { train_s += seconds_since(t_train); };
  auto resume_clock = [&] { t_train = Clock::now(); };
  while (st.step < T.steps) {
    for (auto& b : micro) {
      run.sampler().next(idx, st.step);
      b = make_training_batch(data.train, idx, row_len, cfg);
    }
    double lr = lr_at(cfg.optim, st.step, T.steps);
    StepResult r = be.train_step(micro, lr, static_cast<long>(st.step + 1));
    if (!std::isfinite(r.loss) || !std::isfinite(r.grad_norm)) {
      nlohmann::json diverged = run.run_json("diverged");
      diverged["diverged_at_step"] = st.step + 1;
      write_file_atomic(opt.out_json, diverged.dump(2) + "\n");
      throw UserError("loss became " + std::string(std::isnan(r.loss) ? "NaN" : "infinite") + " at step " +
                      std::to_string(st.step + 1) + "; " +
                      (file_exists(opt.checkpoint) ? "the last good checkpoint is kept at " + opt.checkpoint
                                                   : std::string("no checkpoint had been written yet")));
    }
    ++st.step;
    step_log.add(st.step, lr, r.loss, r.grad_norm, double(r.correct) / double(cfg.examples_per_step()));
    st.loss_sum += r.loss;
    last_loss = r.loss;
    st.hits += r.correct;
    ++st.loss_n;
    const bool last = st.step == T.steps;
    if ((T.eval_every > 0 && st.step % T.eval_every == 0) || last) {
      pause_clock();
      curve_point_or_stop();
      resume_clock();
    }
    const bool saved_now = T.checkpoint_every > 0 && st.step % T.checkpoint_every == 0 && !last;
    if (saved_now) {
      pause_clock();
      run.save(train_s, eval_s, opt.checkpoint);
      resume_clock();
    }
    if (opt.keep_every > 0 && st.step % opt.keep_every == 0) {
      pause_clock();
      // The checkpoint just written is this step's: copy it rather than fetch and write the state again.
      if (saved_now)
        copy_file_atomic(opt.checkpoint, kept_checkpoint_path(opt.checkpoint, st.step));
      else
        run.save(train_s, eval_s, kept_checkpoint_path(opt.checkpoint, st.step));
      resume_clock();
    }
    double elapsed = train_s + seconds_since(t_train);
    progress.update(st.step, last_loss, last_val_acc(), elapsed > 0 ? (st.step - start_step) / elapsed : 0);
    if (!last && (stop_signal() || run.out_of_time() || (opt.stop_at > 0 && st.step >= opt.stop_at))) {
      pause_clock();
      run.stop_here(train_s, eval_s, start_step);
    }
  }
  pause_clock();

  auto t0 = Clock::now();
  EvalResult val, test;
  try {
    val = evaluate(be, cfg, data.val);
    test = evaluate(be, cfg, data.test);
  } catch (const EvalInterrupted&) {  // the last step's checkpoint and point are kept; a rerun evaluates
    eval_s += seconds_since(t0);
    run.stop_here(train_s, eval_s, start_step);
  }
  eval_s += seconds_since(t0);
  run.save(train_s, eval_s, opt.checkpoint);
  const double total_train = st.train_s + train_s;
  nlohmann::json result = run.run_json("complete");
  result["final"] = {{"step", st.step}, {"val", val}, {"test", test}};
  result["timing"] = {{"wall_s", seconds_since(t_start) + st.train_s + st.eval_s},
                      {"train_s", total_train},
                      {"eval_s", st.eval_s + eval_s},
                      {"steps_per_s", total_train > 0 ? T.steps / total_train : 0.0}};
  result["resumed_from_step"] = resumed_from;
  if (!initialised_from.is_null()) result["init_from"] = initialised_from;
  write_file_atomic(opt.out_json, result.dump(2) + "\n");
  return result;
}

}  // namespace popebench
