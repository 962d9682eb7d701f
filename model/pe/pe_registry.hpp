// Every positional embedding, declared once: its name and one line on what it is (`--pe`,
// `popebench list`, errors), the PEConfig options that apply to it, its CPU implementation
// (model/pe/positional.hpp's interface) and what the CUDA kernels take for it, or nothing, in which
// case the GPU refuses it with the reason (and `--device auto` trains it on the CPU).
//
// A PE is its own pair of files: model/pe/pe_<name>.hpp, the class, and model/pe/pe_<name>.cpp,
// which defines `std::vector<PEKindInfo> pe_kinds_<name>()` (one file may declare several kinds,
// as pe_alibi.cpp does alibi and alibi-half). CMake lists every model/pe/pe_*.cpp it finds
// (cmake/pe_list.cmake) and the registry holds what they return: adding a PE touches no other
// file. The tests loop over pe_kinds(), so a new PE is gradient-checked and, where it has a GPU
// description, compared with the CPU on the GPU without a test change.
#pragma once
#include <functional>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "kernels/attention_pe_kind.hpp"
#include "model/pe/positional.hpp"

namespace popebench {

// What the CUDA backend needs for a PE: its mode in the fused attention kernel and the tables
// that mode reads (kernels/cuda/kernels.hpp's AttentionArgs). Sizes are set by the config.
struct GpuPE {
  cuda::PEKind attention = cuda::PEKind::kNone;  // the kernels' mode (kernels/attention_pe_kind.hpp)
  int n_rot = 0;               // kRope: channels rotated, c paired with c + n_rot / 2 (half-split)
  std::vector<double> thetas;  // kRope: n_rot / 2 frequencies; kPope: head_dim
  std::vector<double> slopes;  // (H) per-head linear score bias (ALiBi), or empty
  std::vector<double> table;   // (max_len, C) fixed positions added to the token embedding, or empty
  // (a learned position table is a parameter of the model, ParamLayout::pos, not a GpuPE table)
};

template <typename T>
using PEFactory = std::function<std::unique_ptr<PositionalEmbedding<T>>(const PEConfig&, const ModelConfig&)>;

struct PEKindInfo {
  PEKindInfo(std::string name_, std::string help_, int rank_)
      : name(std::move(name_)), help(std::move(help_)), rank(rank_) {}
  std::string name, help;
  int rank = 0;  // listing order (`popebench list`, `--pe` help, errors): the paper's PEs first
  // The PEConfig options that apply (PEConfig::validate refuses the others for this PE):
  bool frequencies = false;   // --pe-base, --pe-freqs
  bool rope_scaling = false;  // test-time RoPE scaling (PEConfig::rope_scaling): pi, ntk
  bool yarn = false;          // and yarn, whose attention factor needs every channel rotated
  bool delta = false;         // PoPE's delta: --delta-init, --delta-bound, --delta-shared
  PEFactory<float> make_float;
  PEFactory<double> make_double;
  GpuPE (*gpu)(const PEConfig&, const ModelConfig&) = nullptr;  // nullptr: no GPU kernel

  // Both CPU factories from one generic one, called with a T{} that says the precision:
  //   k.cpu([](auto t, const PEConfig& pe, const ModelConfig& m) {
  //     return std::make_unique<RoPE<decltype(t)>>(m.head_dim(), pe); });
  template <typename Make>
  void cpu(Make make) {
    make_float = [make](const PEConfig& pe, const ModelConfig& m) -> std::unique_ptr<PositionalEmbedding<float>> {
      return make(float{}, pe, m);
    };
    make_double = [make](const PEConfig& pe, const ModelConfig& m) -> std::unique_ptr<PositionalEmbedding<double>> {
      return make(double{}, pe, m);
    };
  }
};

// Every registered kind, in rank order.
const std::vector<PEKindInfo>& pe_kinds();
// The kind called `name`; a UserError naming the known kinds if there is none.
const PEKindInfo& pe_kind(const std::string& name);
// Names of every kind, comma-separated; of the kinds for which `option` is true, as a phrase
// ("rope, pope and rope-half").
std::string pe_kind_list();
std::string pe_kind_list(bool PEKindInfo::*option);
std::string pe_kind_list(bool (*which)(const PEKindInfo&));

// The attention kernels' paths that the kinds with a GPU kernel take for m's heads, one per path,
// named by the first kind in rank order that takes it: kinds whose GpuPE gives the same kernel
// mode, rotated channels and presence of slopes run the same attention kernels (sinusoidal and
// learned add their positions to the embedding and attend as none; alibi-half runs ALiBi's
// kernels with half its slopes zero). What `popebench bench` times, each path once.
std::vector<std::pair<std::string, GpuPE>> gpu_attention_paths(const ModelConfig& m);

// The CPU implementation of a registered kind (make_float / make_double), for PositionalEmbedding<T>.
template <typename T>
std::unique_ptr<PositionalEmbedding<T>> make_positional_embedding(const PEConfig& pe, const ModelConfig& m);

}  // namespace popebench
