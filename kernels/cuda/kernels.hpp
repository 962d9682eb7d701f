// Host-side launchers of the CUDA kernels (plain C++: included by the backend and the tests).
// One op per .cu file in this folder, each the twin of kernels/cpu/<op>.hpp; shapes as there.
// Every launcher enqueues on `stream` and checks the launch; none synchronises.
//
// The gradient contract of the twins differs, on purpose: a CPU op adds parameter gradients
// into its output (dw, db, dg, ddelta, dwte: the CPU model zeroes its gradient buffer once per
// step and every op, micro-batch and layer sharing a parameter adds into it), while a CUDA
// launcher overwrites what it writes unless its comment says it adds (embedding_bwd's
// `accumulate` for a tied head, rmsnorm's dx into the residual stream, axpy over micro-batches):
// on the GPU each gradient is written by one launch and added to only where a parameter is used
// twice (a tied head, a δ shared by the layers: backend/cuda/passes.cu), so no buffer is zeroed
// per step and no atomics are needed. Activation gradients are overwritten on both sides, the residual
// stream's excepted. A test that compares the two zeroes the CPU's gradients first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/attention_pe_kind.hpp"

typedef struct CUstream_st* cudaStream_t;

namespace popebench::cuda {


#ifdef __CUDACC__
#define POPEBENCH_HOST_DEVICE __host__ __device__
#else
#define POPEBENCH_HOST_DEVICE
#endif

// Several runs batched as one model (backend/cuda/cuda_backend.cuh): every activation holds the runs'
// rows one run after another (run r owns rows [r * rows, (r + 1) * rows)), and every parameter
// exists once per run, run r's copy `param_stride` floats after run r - 1's. A launcher that reads
// or writes a parameter takes a RunStride to find each row's copy; the default is one run, so
// every single-run caller is unchanged. Kernels that read no parameter need none: the runs' rows
// are just more rows.
struct RunStride {
  int rows = 0;             // rows per run; 0: one run (every row reads the first copy)
  size_t param_stride = 0;  // floats between two runs' copies of a parameter
  // How many runs `total_rows` rows hold.
  int count(long long total_rows) const { return rows > 0 ? int(total_rows / rows) : 1; }
  // Offset of the parameter copy that row `row` reads.
  POPEBENCH_HOST_DEVICE size_t offset(long long row) const { return rows > 0 ? size_t(row / rows) * param_stride : 0; }
};

// embedding.cu. tok (N = B T), wte (V, C) -> x (N, C) = scale * wte[tok], plus pos (>= T, C) at
// each row's position n % T when pos != nullptr (absolute position embeddings). Backward writes
// dwte (V, C) = scale * (sum of its rows' dx), or adds it when accumulate (tied embeddings: the
// head's gradient is there already); each vocabulary row sums its positions in order, so the
// result is deterministic. (A learned position table's gradient is column_sum over B of dx seen
// as (B, T C).)
// Batched runs: wte_runs strides wte, pos_runs the position table (a learned one is a parameter;
// the sinusoidal table is shared: RunStride{}), and the backward writes each run's dwte from its
// own rows.
void embedding_fwd(const int32_t* tok, const float* wte, const float* pos, float* x, int N, int T, int C,
                   cudaStream_t s, float scale = 1.f, RunStride wte_runs = {}, RunStride pos_runs = {});
void embedding_bwd(const int32_t* tok, const float* dx, float* dwte, int N, int C, int V, cudaStream_t s,
                   float scale = 1.f, bool accumulate = false, RunStride runs = {});

// axpy.cu. y (n) += alpha * x (n) (gradient accumulation over micro-batches).
void axpy(float alpha, const float* x, float* y, size_t n, cudaStream_t s);
// bias.cu. y (rows, cols) += b (cols) (a linear layer's bias; its gradient is column_sum of dy).
void add_bias(float* y, const float* b, int rows, int cols, cudaStream_t s, RunStride runs = {});
// clamp.cu. x (n) = min(max(x, lo), hi) (PoPE's delta projected after an update).
void clamp_range(float* x, size_t n, float lo, float hi, cudaStream_t s);

// The optional `*_bf16` outputs below are bf16 mirrors (same shape, rounded to nearest even,
// exactly what to_bf16 would make of the fp32 result) written by the producer itself, for the
// bf16 matrix products that read the result next (nullptr: none). A mirror costs 2 bytes per
// element in a kernel that runs anyway; converting afterwards costs 6 and a launch. The forward
// kernels also take y == nullptr when they have a mirror: in bf16 mode nothing reads their fp32
// result (the products read the mirror, the backward reads x), so writing it would waste 4 bytes
// per element.

// rmsnorm.cu. x (N, C), g (C) -> y (N, C), rstd (N). Backward: dx (N, C) accumulated (+=),
// dg_part (N, C) per-row contributions, to be summed by column_sum.
// Batched runs: row n reads g + runs.offset(n).
void rmsnorm_fwd(const float* x, const float* g, float* y, float* rstd, int N, int C, cudaStream_t s,
                 void* y_bf16 = nullptr, RunStride runs = {});
void rmsnorm_bwd(const float* dy, const float* x, const float* g, const float* rstd, float* dx, float* dg_part,
                 int N, int C, cudaStream_t s, void* dx_bf16 = nullptr, RunStride runs = {});

// reduce.cu. out (cols) = sum over rows of in (rows, cols), in a fixed order (deterministic).
// Batched runs: each run's rows summed alone, in the order a single run sums them, into
// out + r * runs.param_stride.
void column_sum(const float* in, float* out, int rows, int cols, cudaStream_t s, RunStride runs = {});
// *out = sqrt(sum of squares of x (n)), deterministic two-pass reduction; partial: 1024 floats
// per run. Batched runs: run r's norm of x + r * x_stride (n floats) into out[r * out_stride],
// each reduced exactly as one run alone.
void l2_norm(const float* x, size_t n, float* partial, float* out, cudaStream_t s, int runs = 1, size_t x_stride = 0,
             size_t out_stride = 0);
constexpr int kL2NormPartials = 1024;

// convert.cu. y (n, bf16) = x (n, fp32) rounded to nearest even.
void to_bf16(const float* x, void* y, size_t n, cudaStream_t s);

// gelu.cu (erf form). y = gelu(x); dx = dy * gelu'(x) (dx may alias dy).
void gelu_fwd(const float* x, float* y, size_t n, cudaStream_t s, void* y_bf16 = nullptr);
// dx or dx_bf16 may be nullptr (not both): the backend leaves out the fp32 gradient where only
// bf16 products read it.
void gelu_bwd(const float* dy, const float* x, float* dx, size_t n, cudaStream_t s, void* dx_bf16 = nullptr);

// answer.cu. Rows of x (B*T, C) at each example's answer position -> out (B, C), and back
// (scatter-add into dx, which holds only zeros at those rows' other users' positions).
void gather_rows(const float* x, const int32_t* pos, float* out, int B, int T, int C, cudaStream_t s);
void scatter_add_rows(const float* d, const int32_t* pos, float* dx, int B, int T, int C, cudaStream_t s);

// cross_entropy.cu. logits (B, V), targets (B) -> loss_rows (B), correct (B), dlogits (B, V)
// = (softmax - onehot) / B (when dlogits != nullptr), or times weight (B, device) instead of 1/B
// (the loss on every next token: rows are (B T) positions, weights 1/count or 0). Batched runs:
// rows_per_run > 0 divides by each run's batch instead of all B rows.
void cross_entropy(const float* logits, const int32_t* targets, float* loss_rows, int32_t* correct,
                   float* dlogits, int B, int V, cudaStream_t s, const float* weight = nullptr, int rows_per_run = 0);

// adamw.cu. One update over the whole parameter buffer. hyper (device): see AdamWHyper.
struct AdamWHyper {
  float lr;
  float step;      // 1-based optimizer step (float: bias corrections only)
  float grad_norm; // written by the norm kernel, read by the update
  float active = 1.f;  // 0: leave this run's parameters and moments as they are (a batch's idle slot)
};
// Parameter groups: group (n, device) holds each element's group index; the group's learning
// rate multiplier and weight decay are kernel arguments (4 groups: decay or not, times PE
// parameter or not; model/params.hpp says which view is which).
struct AdamWGroups {
  static constexpr int kCount = 4;
  float lr_mult[kCount];
  float weight_decay[kCount];
};
// Batched runs: `runs` buffers of n floats at `stride` apart in p, g, m and v, run r with its own
// hyper[r] (learning rate, step and gradient norm: runs may be at different steps); group (n) is
// shared. Each run's elements are updated as one run alone. p_bf16 (laid out as p) or nullptr:
// also writes each updated parameter rounded to bf16 there, the bits to_bf16 would give (the bf16
// GEMMs' copy of the weights, written here rather than by a pass of its own over p).
void adamw_update(float* p, const float* g, float* m, float* v, const uint8_t* group, size_t n,
                  const AdamWHyper* hyper, const AdamWGroups& groups, float beta1, float beta2, float eps,
                  float grad_clip, cudaStream_t s, int runs = 1, size_t stride = 0, void* p_bf16 = nullptr);

// attention.cu (and attention_short.cu for T <= 64). Fused causal attention with the PE applied inside the kernel.
// qkv (B, T, 3, H, D) as produced by the qkv projection; theta (D for pope, n_rot/2 for rope) and
// delta (H, D, pope only, clamped in the kernel) on the device. rope rotates the first n_rot
// channels (D: RoPE, D/2: RoPE on half the channels). slopes (H, device) or nullptr: ALiBi bias.
// Forward -> out (B, T, H, D), lse (B, H, T).
// Backward -> dqkv (B, T, 3, H, D) overwritten, ddelta_part (B, T, H, D) per-key contributions
// to be summed over (B, T) by column_sum (pope only).
struct AttentionArgs {
  int B, T, H, D;
  PEKind pe;
  const double* theta;
  const float* delta;
  float scale;
  int n_rot = 0;                  // rope only
  const float* slopes = nullptr;  // ALiBi, any PE kind
  // (B) masked left pads: a query t of row b attends to keys [key_start[b], t], or to itself
  // alone when t < key_start[b] (as kernels/cpu/attention.hpp). nullptr: every key up to t.
  const int32_t* key_start = nullptr;
  // (H) learned log-temperatures: head h's scores times scale * exp(log_temp[h]). nullptr: scale.
  const float* log_temp = nullptr;
  // Batched runs: rows = batch rows per run; delta and log_temp of batch row b are at
  // runs.offset(b) (theta and slopes are the same for every run of a batch).
  RunStride runs = {};
  // T <= 64: the products on TF32 tensor cores (attention_short_tf32.cu) instead of fp32 FMAs.
  // Longer T runs the tiled fp32 kernels either way.
  bool tf32_products = false;
  // The products on bf16 tensor cores with fp32 accumulation and softmax (attention_flash.cu,
  // FlashAttention-2's forward and backward), at any T: the long-sequence kernels. The backward
  // needs the lse of a forward made with the same flag.
  bool bf16_flash = false;
  // Device scratch of angle_scratch_floats floats for the PE's angle table (attention_angles.cu;
  // attention_angle_floats says how many it needs), or nullptr. With it, where the whole-sequence
  // kernels (T <= 64) or the flash kernels run, attention_fwd / attention_bwd first compute each
  // position's cos and sin once per call, and every block reads them instead of computing its
  // own: the same function of the same inputs, so the same bits. Without it each block computes
  // them (the tiled fp32 kernels always do). Too small a scratch is an error.
  float* angle_scratch = nullptr;
  size_t angle_scratch_floats = 0;
  // The scratch already holds this call's table, so the call does not fill it again: the
  // backward of a training step, whose forward of the same layer and runs filled it, delta being
  // unchanged until the optimizer step; or any call on a table that holds no parameter, filled
  // once by attention_fill_angles. The model does both (attn_args in backend/cuda/passes.cu).
  bool angle_table_filled = false;
  // Device scratch of flash_scratch_bytes bytes for the flash kernels' bf16 copies of the rows
  // they read (attention_flash_scratch.cuh; attention_flash_scratch_bytes says how many), written
  // once per call: required with bf16_flash, too small a scratch is an error. Holds no state
  // between calls, so one scratch serves every layer.
  void* flash_scratch = nullptr;
  size_t flash_scratch_bytes = 0;
};
// Floats of angle scratch attention_fwd / attention_bwd use at this shape with `runs` runs of a
// batch (AttentionArgs::runs), for the whole-sequence kernels or, with flash, for the bf16 flash
// kernels (AttentionArgs::bf16_flash): 0 where no table is computed (no PE, or, without flash, T
// and D outside the whole-sequence kernels). Queries' (T, n) (cos, sin) pairs, n = D for PoPE
// and n_rot / 2 for RoPE; for PoPE and the whole-sequence kernels the keys' (runs, H, T, D) too,
// whose angles carry each run's per-head delta (the flash kernels turn the query rows by delta
// themselves as they write their copies: attention_flash_copies.cu).
size_t attention_angle_floats(int T, int D, int H, PEKind pe, int n_rot, int runs, bool flash = false);
// Bytes of flash scratch (AttentionArgs::flash_scratch) a flash call of this shape needs: bf16
// copies of the transformed keys and queries, the values and dO, and two floats, per row of T
// rounded up to 64, per batch row and head.
size_t attention_flash_scratch_bytes(int B, int T, int H, int D, PEKind pe);
// Whether the angle table holds a parameter (PoPE's keys carry delta, in the whole-sequence
// kernels' table) and so changes at every optimizer step; otherwise (RoPE, and every PE's flash
// table) it is a function of the shape and theta alone, which a caller can fill once
// (attention_fill_angles) and pass with angle_table_filled from then on.
inline bool attention_angles_hold_params(PEKind pe, bool flash = false) { return pe == PEKind::kPope && !flash; }
// Fills a.angle_scratch with the table attention_fwd would fill for a (a no-op without a scratch
// or where no table is computed); too small a scratch is an error.
void attention_fill_angles(const AttentionArgs& a, cudaStream_t s);
// Whether AttentionArgs::tf32_products changes anything at this T and head dim (the
// whole-sequence kernels': T <= 64, D 16, 32 or 64).
bool attention_has_tf32_form(int T, int D);
// Blocks an SM holds at once (CUDA's occupancy calculator, from the build's registers and shared
// memory) of the forward and backward kernels attention_fwd / attention_bwd run at a's shape and
// a.tf32_products: the whole-sequence kernels' (T <= 64, D 16, 32 or 64); std::nullopt where the
// tiled kernels run, whose grid and blocks depend on T.
struct AttentionOccupancy {
  int fwd_blocks_per_sm = 0, bwd_blocks_per_sm = 0;
};
std::optional<AttentionOccupancy> attention_blocks_per_sm(const AttentionArgs& a);
void attention_fwd(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s);
// dtemp_part (B, T, H), with log_temp: each query row's term of the log-temperature gradient,
// dq' . q' (q' the transformed query, dq' its gradient); a column sum over the B T rows gives it.
void attention_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                   float* dqkv, float* ddelta_part, cudaStream_t s, float* dtemp_part = nullptr);

}  // namespace popebench::cuda
