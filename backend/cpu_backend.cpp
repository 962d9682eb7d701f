// The CPU backend: the float reference transformer plus AdamW over the one parameter buffer.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/adamw.hpp"
#include "kernels/cpu/clamp.hpp"
#include "kernels/cpu/pope.hpp"
#include "backend/backend.hpp"
#include "model/transformer.hpp"

namespace popebench {

namespace {
class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const RunConfig& cfg)
      : cfg_(cfg), model_(cfg.model, cfg.pe), p_(model_.layout().total), g_(p_.size()), m_(p_.size(), 0.f), v_(p_.size(), 0.f) {
    model_.init_params(p_.data(), cfg.train.seed);
  }
  std::string device_name() const override { return "cpu"; }
  const ParamLayout& layout() const override { return model_.layout(); }
  void get_state(std::vector<float>& p, std::vector<float>& m, std::vector<float>& v) override {
    p = p_;
    m = m_;
    v = v_;
  }
  void set_state(const std::vector<float>& p, const std::vector<float>& m, const std::vector<float>& v) override {
    p_ = p;
    m_ = m;
    v_ = v;
  }
  using Backend::train_step;
  StepResult train_step(const std::vector<Batch>& micro, double lr, long step) override {
    if (micro.empty()) throw UserError("a training step needs at least one micro-batch");
    StepResult r;
    std::fill(g_.begin(), g_.end(), 0.f);
    double loss = 0;
    for (const Batch& b : micro) {  // backward accumulates into g_: the sum of the micro-batches' gradients
      loss += model_.forward(p_.data(), b, every_token_);
      for (int c : model_.correct()) r.correct += c;
      model_.backward(p_.data(), g_.data());
    }
    r.loss = loss / double(micro.size());
    if (micro.size() > 1) {
      const float inv = 1.f / float(micro.size());
      for (float& g : g_) g *= inv;
    }
    r.grad_norm = std::sqrt(cpu::sum_squares(g_.data(), g_.size()));
    const auto& o = cfg_.optim;
    double scale = (o.grad_clip > 0 && r.grad_norm > o.grad_clip) ? o.grad_clip / r.grad_norm : 1.0;
    for (const auto& view : model_.layout().views)
      cpu::adamw_update(p_.data() + view.offset, g_.data() + view.offset, m_.data() + view.offset,
                        v_.data() + view.offset, view.size(), lr * view.lr_mult(o), view.decays(o) ? o.weight_decay : 0.0, o.beta1,
                        o.beta2, o.eps, step, scale);
    if (project_delta_)  // PEConfig::delta_bound: PoPE's delta back onto [-2 pi, 0]
      for (const auto& view : model_.layout().views)
        if (view.kind == ParamKind::kPeParam)
          cpu::clamp_range(p_.data() + view.offset, view.size(), cpu::pope_delta_min_float(), float(cpu::kPopeDeltaMax));
    return r;
  }
  double eval_batch(const Batch& b, std::vector<int32_t>& correct) override {
    double loss = model_.forward(p_.data(), b);
    correct = model_.correct();
    return loss;
  }
  TokenLoss eval_every_token(const Batch& b, std::vector<int32_t>& correct) override {
    // forward's every-token loss is the mean over the counted positions (weights 1/count)
    const TokenTargets tt = every_token_targets(b);
    const long counted = std::count_if(tt.weights.begin(), tt.weights.end(), [](double w) { return w > 0; });
    TokenLoss t{model_.forward(p_.data(), b, true) * double(counted), counted};
    correct = model_.correct();
    // The answers' cross-entropy from their rows' logits (B T rows of V after this forward).
    const std::vector<float>& lg = model_.logits();
    const int V = cfg_.model.vocab_size;
    for (int r = 0; r < b.B; ++r) {
      const float* row = lg.data() + (size_t(r) * b.T + b.answer_pos[r]) * V;
      const double mx = *std::max_element(row, row + V);
      double sum = 0;
      for (int v = 0; v < V; ++v) sum += std::exp(double(row[v]) - mx);
      t.answer_nats += mx + std::log(sum) - double(row[b.targets[r]]);
    }
    return t;
  }

 private:
  RunConfig cfg_;
  Transformer<float> model_;
  std::vector<float> p_, g_, m_, v_;  // params, grads, Adam m and v: (layout().total,) each
  const bool every_token_ = cfg_.train.loss == TrainLoss::kAll;        // TrainConfig::loss
  const bool project_delta_ = cfg_.pe.delta_bound == DeltaBound::kProject;  // PEConfig::delta_bound
};
}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const RunConfig& cfg) { return std::make_unique<CpuBackend>(cfg); }

}  // namespace popebench
