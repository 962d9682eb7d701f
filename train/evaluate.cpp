#include "train/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "train/stop_signal.hpp"

namespace popebench {

void to_json(nlohmann::json& j, const EvalResult& e) {
  j = {{"loss", e.loss}, {"acc", e.acc}, {"n", e.n}};
  if (e.bits_per_byte >= 0) {
    j["bits_per_byte"] = e.bits_per_byte;
    j["bytes"] = e.bytes;
  }
}

int batch_row_len(const Backend& be, const RunConfig& cfg) {
  if (be.static_len() > 0) return be.static_len();
  return cfg.input.pad == PadSide::kLeft ? cfg.input_len() : 0;
}

EvalResult evaluate(Backend& be, const RunConfig& cfg, const Dataset& d, size_t limit) {
  const int eval_batch = cfg.train.eval_batch, row_len = batch_row_len(be, cfg);
  EvalResult r;
  size_t n = limit ? std::min(limit, d.size()) : d.size();
  double loss_sum = 0;
  size_t hits = 0;
  std::vector<int32_t> correct;
  const bool language_model = cfg.task.language_model();  // bits per byte over every prediction
  TokenLoss every;
  for (size_t i = 0; i < n; i += eval_batch) {
    std::vector<size_t> idx;
    for (size_t j = i; j < std::min(n, i + eval_batch); ++j) idx.push_back(j);
    Batch b = make_batch(d, idx, row_len, cfg.input);
    if (language_model) {  // one pass for both: the answers' loss and accuracy, and every next token's
      const TokenLoss t = be.eval_every_token(b, correct);
      loss_sum += t.answer_nats;
      every.nats += t.nats;
      every.tokens += t.tokens;
    } else {
      loss_sum += be.eval_batch(b, correct) * idx.size();
    }
    for (int c : correct) hits += c;
    if (stop_signal()) throw EvalInterrupted("interrupted during an evaluation");
  }
  r.n = n;
  r.loss = n ? loss_sum / n : 0;
  r.acc = n ? double(hits) / n : 0;
  if (language_model && every.tokens > 0) {
    r.bits_per_byte = every.nats / double(every.tokens) / std::log(2.0);
    r.bytes = every.tokens;
  }
  return r;
}

}  // namespace popebench
