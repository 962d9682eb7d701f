// evaluate_buckets (report/extrapolation.hpp): a trained model on each length bucket. Apart from
// the table's format (extrapolation.cpp), which needs no backend and is read by the fuzzers.
#include <algorithm>

#include "backend/backend.hpp"
#include "report/extrapolation.hpp"
#include "model/pe/label.hpp"
#include "train/evaluate.hpp"

namespace popebench {

nlohmann::json evaluate_buckets(const RunConfig& run, const std::vector<float>& params, const std::vector<Bucket>& buckets,
                                RopeScaling scaling, DeviceChoice device) {
  const int train_input = run.task.width() - 1;
  const std::vector<float> no_moments(params.size(), 0.f);  // evaluation never steps the optimizer
  nlohmann::json acc = nlohmann::json::array(), loss = nlohmann::json::array(), n = nlohmann::json::array(),
                 factors = nlohmann::json::array(), rope_factor = nlohmann::json::array(), bits = nlohmann::json::array();
  for (const auto& b : buckets) {
    RunConfig ec = run;  // the trained model's config with the bucket's lengths (split sizes unused here)
    ec.task = b.task;
    ec.task.n_train = run.task.n_train;
    const int input = b.task.width() - 1;
    if (scaling != RopeScaling::kNone) {
      ec.pe.rope_scaling = scaling;
      ec.pe.rope_factor = std::max(1.0, double(input) / train_input);
      ec.pe.rope_train_len = train_input;
    }
    // Keep the activations' size (batch x length) near the training evaluation's.
    ec.train.eval_batch = std::max(1, std::min(run.train.eval_batch, run.train.eval_batch * train_input / input));
    ec.validate();
    Dataset d = generate_split(b.task, b.seed, Split::kTest);
    auto be = make_backend(ec, device);
    be->set_state(params, no_moments, no_moments);
    EvalResult r = evaluate(*be, ec, d);
    factors.push_back(b.factor);
    rope_factor.push_back(ec.pe.rope_factor);
    acc.push_back(r.acc);
    loss.push_back(r.loss);
    n.push_back(r.n);
    if (r.bits_per_byte >= 0) bits.push_back(r.bits_per_byte);
  }
  PEConfig labelled = run.pe;
  labelled.rope_scaling = scaling;
  nlohmann::json row = {{"label", pe_label(labelled)}, {"pe", run.pe.kind}, {"scaling", scaling}, {"factors", factors},
                        {"rope_factor", rope_factor}, {"acc", acc}, {"loss", loss}, {"n", n}};
  if (!bits.empty()) row["bits_per_byte"] = bits;  // the text task: every prediction of the windows
  return row;
}

}  // namespace popebench
