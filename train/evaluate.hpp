// One evaluation of a model on a split: the loss and accuracy at the answer position, and for
// the text task bits per byte over every prediction. Shared by training (its curve and final
// numbers), `eval`, `extrapolate` and `inspect`.
#pragma once
#include <cstddef>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "config/config.hpp"
#include "generators/dataset.hpp"

namespace popebench {

struct EvalResult {
  double loss = 0, acc = 0;  // at the answer position (the text task: a window's last byte)
  size_t n = 0;
  // The text task: the loss on every next byte of the windows, in bits (< 0: not measured).
  double bits_per_byte = -1;
  long bytes = 0;  // the predictions it averages
};
// The first `limit` examples (0: all) in order, in batches of cfg.train.eval_batch, made into
// inputs as cfg.input says. Throws EvalInterrupted when a stop signal arrives (checked after
// every batch).
EvalResult evaluate(Backend& be, const RunConfig& cfg, const Dataset& d, size_t limit = 0);
// The row length of the batches fed to `be`: its static length, else the config's input length
// for left padding (the visible pads are part of the input), else 0 (each batch's longest).
int batch_row_len(const Backend& be, const RunConfig& cfg);
void to_json(nlohmann::json& j, const EvalResult& e);

}  // namespace popebench
