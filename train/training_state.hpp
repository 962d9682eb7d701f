// What a run carries between steps and across a checkpoint, typed: the step, the learning curve,
// the time spent so far, and the running sums of the training loss since the last curve point.
// The trainer (train/trainer.cpp) keeps one; a checkpoint stores it beside the weights
// (Checkpoint::extra) and a resumed run reads it back, so its curve is the one it would have had.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace popebench {

// One point of the learning curve (results/SCHEMA.md, a run JSON's "curve").
struct CurvePoint {
  int64_t step = 0;
  double lr = 0;  // the learning rate of the step that ended here
  // Means over the steps since the previous point; none at step 0 (nothing trained yet).
  std::optional<double> train_loss, train_acc;
  double val_loss = 0, val_acc = 0;
  std::optional<double> val_bits_per_byte;  // the text task's (EvalResult::bits_per_byte)
  int64_t val_n = 0;     // validation examples evaluated
  double elapsed_s = 0;  // training and evaluation time so far, over every resume
};
void to_json(nlohmann::json& j, const CurvePoint& p);
void from_json(const nlohmann::json& j, CurvePoint& p);  // UserError names a missing or mistyped field

struct TrainingState {
  int64_t step = 0;                // optimizer steps done
  std::vector<CurvePoint> curve;
  double train_s = 0, eval_s = 0;  // time in earlier sessions of the run (before a resume)
  double loss_sum = 0;             // sum of the training steps' losses since the last point
  int64_t loss_n = 0;              // steps in that sum
  int64_t hits = 0;                // their correct answers

  // Checkpoint::extra: every field but the step, which the checkpoint holds itself, and beside
  // them the batch sampler's state (BatchSampler::state) taken when the checkpoint is made.
  nlohmann::json checkpoint_extra(const nlohmann::json& sampler_state) const;
  // Reads what checkpoint_extra wrote. Throws UserError on a missing or mistyped field.
  static TrainingState from_checkpoint(int64_t step, const nlohmann::json& extra);
  // The sampler state checkpoint_extra stored; null in checkpoints made before shuffled epochs.
  static nlohmann::json sampler_state(const nlohmann::json& extra);
};

}  // namespace popebench
