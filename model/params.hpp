// All parameters of a model live in one contiguous buffer; this layout names the views into it.
// The optimizer, gradient clipping, checkpoints and the GPU copy treat the buffer as one array.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace popebench {

enum class ParamKind { kEmbedding, kMatrix, kNormGain, kPeParam, kBias, kAttnTemp };

struct ParamView {
  std::string name;       // e.g. "layer3.w_qkv"
  size_t offset = 0;      // in elements
  int rows = 0, cols = 0; // a vector has rows == 1
  ParamKind kind = ParamKind::kMatrix;
  double init_std = 0;    // kMatrix / kEmbedding: N(0, init_std)
  size_t size() const { return static_cast<size_t>(rows) * cols; }
  // Whether weight decay applies (OptimConfig::weight_decay_on; SPEC §4's choice is matrices
  // only) and the view's learning-rate multiplier. The CPU and CUDA optimizers both ask here.
  bool decays(const OptimConfig& o) const {
    // Biases, norm gains and attention log-temperatures are vectors: no rule decays them.
    return o.weight_decay_on == WeightDecayOn::kAll2d
               ? kind != ParamKind::kNormGain && kind != ParamKind::kBias && kind != ParamKind::kAttnTemp
               : kind == ParamKind::kMatrix;
  }
  double lr_mult(const OptimConfig& o) const { return kind == ParamKind::kPeParam ? o.pe_lr_mult : 1.0; }
};

// Offsets of one transformer block's parameters.
struct LayerParams {
  size_t ln1, w_qkv, w_o, ln2, w_fc, w_proj, pe;
  // pe: the layer's PE params (PoPE delta), if any (shared: the same for all).
  size_t b_qkv, b_o, b_fc, b_proj;  // biases (ModelConfig::bias), else 0
  size_t attn_temp;                 // (H) log-temperatures (ModelConfig::attn_temp learned), else 0
};

// Every view starts on a multiple of kViewAlign elements (256 bytes in fp32, 128 in the bf16
// mirror): cuBLASLt picks an algorithm once per product shape, assuming 256-byte-aligned operands
// (its default), and the GPU then runs that shape on every layer's weights and gradients. A
// view after an odd-sized one (2 heads' learned temperatures in the GPU tests' model) handed it a
// misaligned pointer: CUBLAS_STATUS_NOT_SUPPORTED. The padding is zero and stays zero (no view
// covers it: no init, gradient or update). Every view of the paper's model is a multiple of 64
// long, so its layout, and its checkpoints, have no padding.
constexpr size_t kViewAlign = 64;

struct ParamLayout {
  std::vector<ParamView> views;
  size_t total = 0;     // buffer length, padding included
  size_t n_params = 0;  // parameters: the views' sizes summed
  size_t wte = 0, lnf = 0, w_head = 0;  // w_head == wte when the embeddings are tied
  size_t pos = 0;  // absolute position embedding (max_len, C), learned PE only (pos_size > 0)
  size_t pos_size = 0;
  bool has_bias = false;  // the layers' b_* offsets are real (ModelConfig::bias)
  bool has_attn_temp = false;  // the layers' attn_temp offsets are real (ModelConfig::attn_temp)
  std::vector<LayerParams> layers;

  // pe_params_per_layer: e.g. n_head * head_dim for PoPE's delta, 0 for RoPE.
  // pe_embed_params: a learned absolute position embedding, max_len * d_model, or 0.
  // pe_shared: one PE parameter block for every layer (PEConfig::delta_shared): a single view
  // "pe_shared", every layer's offset pointing at it.
  static ParamLayout build(const ModelConfig& m, size_t pe_params_per_layer, size_t pe_embed_params = 0,
                           bool pe_shared = false);
  const ParamView& find(const std::string& name) const;
};

}  // namespace popebench
