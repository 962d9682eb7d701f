// popebench's CPU model in double on one batch of real examples, written out for an independent
// implementation to check against (tests/torch_crosscheck.py): the run config, every parameter
// (its view name, kind, shape and values, as initialised from the seed), the batch exactly as the
// model saw it, the loss and the gradient of every parameter.
//
//   popebench_model_dump CASE.json OUT.json
//
// CASE is {"config": PATCH, "perturb": S}: PATCH a JSON merge patch (RFC 7396) on the default run
// config in the run JSON's "config" form, e.g. {"pe": {"kind": "rope"}}; the model's vocabulary
// and length follow the task as in training. S >= 0 (default 0): after the seeded init, every
// parameter gets N(0, S) noise, so that what starts at zero or one (biases, norm gains,
// log-temperatures) takes part in the check with a value of its own. The batch is the first
// train.batch examples of the training split, made as the trainer makes them (InputConfig: pads,
// crop, masked pads); the loss is train.loss's.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "common/rng.hpp"
#include "generators/task.hpp"
#include "model/batch.hpp"
#include "config/config.hpp"
#include "model/transformer.hpp"
#include "train/evaluate.hpp"

using namespace popebench;
using nlohmann::json;

namespace {

const char* kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::kEmbedding: return "embedding";
    case ParamKind::kMatrix: return "matrix";
    case ParamKind::kNormGain: return "norm_gain";
    case ParamKind::kPeParam: return "pe";
    case ParamKind::kBias: return "bias";
    case ParamKind::kAttnTemp: return "attn_temp";
  }
  return "?";
}

json dump(const json& case_in) {
  json cj = RunConfig{};
  if (case_in.contains("config")) cj.merge_patch(case_in.at("config"));
  const double perturb = case_in.value("perturb", 0.0);
  if (!(perturb >= 0)) throw UserError("perturb must be a number >= 0");
  RunConfig c = cj.get<RunConfig>();
  c.size_model_for_task();
  c.validate();
  const Dataset d = generate_split(c.task, c.train.data_seed, Split::kTrain);
  if (static_cast<size_t>(c.train.batch) > d.size()) throw UserError("the batch is larger than the training split");
  std::vector<size_t> idx;
  for (int i = 0; i < c.train.batch; ++i) idx.push_back(i);
  // As the trainer (batch_row_len): left pads need rows of the full input length.
  const Batch b = make_batch(d, idx, c.input.pad == PadSide::kLeft ? c.input_len() : 0, c.input);

  Transformer<double> model(c.model, c.pe);
  const ParamLayout& L = model.layout();
  std::vector<double> P(L.total), G(L.total, 0.0);
  model.init_params(P.data(), c.train.seed);
  Pcg32 noise(c.train.seed, 0x7065727475726221ull);
  for (double& p : P) p += perturb * noise.normal();
  const double loss = model.forward(P.data(), b, c.train.loss == TrainLoss::kAll);
  model.backward(P.data(), G.data());

  json out;
  out["schema"] = "popebench.model_dump";
  out["schema_version"] = 1;
  out["config"] = c;
  out["perturb"] = perturb;
  out["batch"] = {{"B", b.B}, {"T", b.T}, {"tokens", b.tokens}, {"answer_pos", b.answer_pos},
                  {"targets", b.targets}, {"key_start", b.key_start}};
  out["loss"] = loss;
  json params = json::array();
  for (const ParamView& v : L.views) {
    params.push_back({{"name", v.name}, {"kind", kind_name(v.kind)}, {"rows", v.rows}, {"cols", v.cols},
                      {"value", std::vector<double>(P.begin() + v.offset, P.begin() + v.offset + v.size())},
                      {"grad", std::vector<double>(G.begin() + v.offset, G.begin() + v.offset + v.size())}});
  }
  out["params"] = params;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: popebench_model_dump CONFIG.json OUT.json\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw UserError(std::string("cannot read ") + argv[1]);
    json cfg;
    try {
      in >> cfg;
    } catch (const json::exception&) {
      throw UserError(std::string(argv[1]) + " is not JSON");
    }
    // nlohmann writes each double in its shortest exact (round-trip) form
    write_file_atomic(argv[2], dump(cfg).dump());
  } catch (const std::exception& e) {
    std::cerr << "popebench_model_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
