// Causal attention on bf16 tensor cores for long sequences (AttentionArgs::bf16_flash), forward:
// FlashAttention-2's loop (a block owns 64 query rows, streams the keys in tiles of 64, keeps the
// softmax's running max and sum per row in fp32 and never holds a T x T buffer). The rows it reads
// come from the call's bf16 copies (attention_flash_scratch.cuh), written once per call with the
// PE applied (RoPE's rotation, PoPE's [mu cos(a + delta), mu sin(a + delta)]: delta turns the key
// angles in that pass) by attention_flash_copies.cu; the block's own queries are transformed here
// (each is read by one block only). Key tiles come into shared memory by cp.async, two buffers:
// the next tile's copy is in flight while the current one is in the tensor cores. PoPE's 2D-wide
// queries and keys exist only in those copies and in shared memory. ALiBi's bias, masked left pads
// and learned temperatures as the fp32 kernels.
//
// Forward products: mma.sync m16n8k16 (kernels/cuda/mma_bf16.cuh), bf16 operands loaded with
// ldmatrix, fp32 accumulation, in FlashAttention-2's layout: each warp owns 16 query rows; its
// scores S (16 x 64) stay in registers, where the mask, the bias and the online softmax apply
// (a row's max and sum over the 4 lanes that hold it), and become, rounded to bf16, the A
// operand of O += P V; O (16 x D, fp32) stays in registers to the end. The first version (wmma,
// S, P and O through shared memory) ran at 1.5-2 % of the bf16 peak (bench/log/031); the second
// converted every key tile in every block (bench/log/032); entry 033 has the counts behind the
// copies and the double buffer, and what they were predicted and measured to do.
//
// The backward in FlashAttention-2's form, on the same register tiles, deterministic (no
// atomics: every gradient element is written by one warp): one kernel per block of 64 keys for
// dK, dV and PoPE's per-key delta terms (query tiles of 32 streamed past them; S^T, dP^T and the
// dK', dV accumulators in registers), one per block of 64 queries for dQ and the log-temperature
// terms (key tiles of 64; S, dP and dQ in registers). Both read the backward's copies (the scaled
// queries rounded as the forward rounded them, dO, the forward's lse, dO . O), recompute P from
// the same bf16 operands the forward used, and stream their tiles with the same double buffer.
// P and dS are rounded to bf16 for their products, as FlashAttention-2 does. The PE's backward
// then runs on fp32 rows of dK' and dQ in shared memory (attention_common.cuh's pe_backward_row).
//
// The tile sizes, the forward's softmax and output rows, and the dQ kernel's dS and end are shared
// with the kernels on Hopper's warpgroup products (attention_flash_wgmma_fwd.cu, _bwd.cu) in
// attention_flash_tile.cuh.

#include "kernels/cuda/attention_flash.hpp"

#include <cuda_bf16.h>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/attention_flash_scratch.cuh"
#include "kernels/cuda/attention_flash_tile.cuh"
#include "kernels/cuda/cp_async.cuh"
#include "kernels/cuda/mma_bf16.cuh"

namespace popebench::cuda::attn {

namespace {

using bf16 = __nv_bfloat16;

// Rows of bf16 in shared memory are padded by 8 elements (16 bytes): ldmatrix wants 16-byte
// aligned rows, and the pad puts the 8 rows one ldmatrix reads in different banks.
constexpr size_t smem_up(size_t bytes) { return (bytes + 127) / 128 * 128; }

// Blocks an SM should hold (the launch bounds' second number), so that ptxas keeps a kernel within
// 128 registers a thread (4 x 128 threads x 128 = the SM's 65,536) where it can without spilling
// (ptxas, sm_90): the forward at head dims up to 64 (PoPE's took 152 registers unbounded, the SM
// held three blocks; bounded 128, no spill), and the dQ kernel there except for PoPE (168
// unbounded; bounded 128, no spill; PoPE's would spill ~300 bytes). The dK, dV kernel spills under
// the bound at every PE and keeps its count.
template <int D>
constexpr int kFwdMinBlocks = D <= 64 ? 4 : 1;
template <int D, PEKind PE>
constexpr int kDqMinBlocks = D <= 64 && PE != PEKind::kPope ? 4 : 1;

static_assert(FlashScratch::kRowsPad % kTileK == 0 && FlashScratch::kRowsPad % kBlockQ == 0,
              "whole tiles of the copies lie inside their padded rows");

// Shared memory of the forward: the block's 64 queries (transformed and scaled) and two buffers of
// a tile of 64 keys (transformed) and their values, all bf16.
template <int D, PEKind PE>
struct FlashFwdSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8;  // row strides
  static constexpr size_t kQBytes = smem_up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kKBytes = smem_up(sizeof(bf16) * kTileK * LQ), kVBytes = smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t bytes = kQBytes + 2 * (kKBytes + kVBytes);

  unsigned char* base;
  // (64, LQ) queries; buffer i's (64, LQ) keys and (64, LV) values (the tile in use and the next).
  // Offsets computed, not held in arrays: an array indexed by the loop's buffer would live in
  // local memory.
  __device__ explicit FlashFwdSmem(unsigned char* b) : base(b) {}
  __device__ bf16* Q() const { return reinterpret_cast<bf16*>(base); }
  __device__ bf16* K(int i) const { return reinterpret_cast<bf16*>(base + kQBytes + i * (kKBytes + kVBytes)); }
  __device__ bf16* V(int i) const { return K(i) + kKBytes / sizeof(bf16); }
};

// Starts the block's copies of key tile k0 (keys and values, from the call's copies) into K and V
// (row strides LQ and LV), and commits them.
template <int D, int DQ, int LQ, int LV>
__device__ __forceinline__ void start_key_tile(const FlashScratch& fs, int b, int h, int k0, bf16* K, bf16* V) {
  const size_t row = fs.row(b, h, k0);
  async_copy::copy_rows<DQ, LQ, kTileK, kThreads>(K, fs.K + row * DQ);
  async_copy::copy_rows<D, LV, kTileK, kThreads>(V, fs.V + row * D);
  async_copy::commit();
}

// C (16 x 8 NT) += A X over the 16 k of A's fragment fa, from X (bf16, row-major in shared
// memory, row stride ldx): with KRows, a row of X per k (B = X[k0.., :]: values, dO, queries, keys
// as the right operand of P V, dS K ...); without, a row of X per n (B = X[:, k0..]^T: keys or
// queries as the right operand of Q K^T ...).
template <bool KRows, int NT>
__device__ __forceinline__ void mma_times_x(mma::Acc (&c)[NT], const mma::FragA& fa, const bf16* X, int ldx, int k0,
                                            int lane) {
#pragma unroll
  for (int n = 0; n < NT; n += 2) {
    uint32_t fb[4];
    if constexpr (KRows)
      mma::load_b_cols(fb, X, ldx, k0, 8 * n, lane);
    else
      mma::load_b_rows(fb, X, ldx, 8 * n, k0, lane);
    mma::mma_bf16(c[n], fa, fb[0], fb[1]);
    mma::mma_bf16(c[n + 1], fa, fb[2], fb[3]);
  }
}
// C (16 x 8 NT) += A X^T with A (16 x 16 KB, bf16, shared memory, rows r0.., stride lda) and X a
// row per n: S = Q K^T, S^T = K Q^T, dP = dO V^T, dP^T = V dO^T.
template <int KB, int NT>
__device__ __forceinline__ void mma_rows_xt(mma::Acc (&c)[NT], const bf16* A, int lda, int r0, const bf16* X, int ldx,
                                            int lane) {
#pragma unroll
  for (int kb = 0; kb < KB; ++kb) mma_times_x<false>(c, mma::load_a(A, lda, r0, 16 * kb, lane), X, ldx, 16 * kb, lane);
}
// C (16 x 8 NT) += P X with P (16 x 16 KB) in accumulator registers (rounded to bf16 here) and X a
// row per k: O = P V, dV = P^T dO, dK' = dS^T Q, dQ = dS K.
template <int KB, int NT>
__device__ __forceinline__ void mma_acc_x(mma::Acc (&c)[NT], const mma::Acc (&p)[2 * KB], const bf16* X, int ldx,
                                          int lane) {
#pragma unroll
  for (int kb = 0; kb < KB; ++kb)
    mma_times_x<true>(c, mma::pack_a_from_acc(p[2 * kb], p[2 * kb + 1]), X, ldx, 16 * kb, lane);
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads, kFwdMinBlocks<D>)
    attention_fwd_flash_kernel(AttentionArgs a, FlashScratch fs, float* out, float* lse) {
  using Sm = FlashFwdSmem<D, PE>;
  constexpr int DQ = Sm::DQ;
  constexpr int NS = kTileK / 8, NO = D / 8;  // the n-tiles (8 columns each) of S and of O
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);  // the accumulator rows (g, g + 8) and columns (c2, c2 + 1) of a lane
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const int key_start = a.key_start ? a.key_start[b] : 0;  // the first key past b's left pads
  const int r0 = w * kRows;  // this warp's first row in the block

  // The block's queries (transformed and scaled by the copies' pass) and the first key tile, one
  // group of copies; each later tile's copy starts before the tile before it is used.
  async_copy::copy_rows<DQ, Sm::LQ, kBlockQ, kThreads>(sm.Q(), fs.Q + fs.row(b, h, q0) * DQ);
  start_key_tile<D, DQ, Sm::LQ, Sm::LV>(fs, b, h, 0, sm.K(0), sm.V(0));
  // This lane's two rows: [0] row g of the warp's 16, [1] row g + 8.
  int t_row[2], first[2];
  lane_rows(a, b, q0, r0, g, t_row, first);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // running max and sum
  mma::Acc o[NO];                                           // O: (16, D) as NO tiles of (16, 8)

  const int warp_last_row = warp_last_row_of(q0, r0, T), tiles = key_tiles_of(q0, T);
  for (int it = 0; it < tiles; ++it) {
    const int k0 = it * kTileK, buf = it & 1;
    // The next tile goes into the other buffer, which every warp left at the end of the last
    // iteration; then this tile's copies (and the queries, with the first) must have landed.
    if (it + 1 < tiles) {
      start_key_tile<D, DQ, Sm::LQ, Sm::LV>(fs, b, h, k0 + kTileK, sm.K(buf ^ 1), sm.V(buf ^ 1));
      async_copy::wait<1>();
    } else {
      async_copy::wait<0>();
    }
    __syncthreads();
    // Warp-uniform: a warp with no row left, or whose rows all precede the tile, adds nothing.
    if (warp_last_row >= q0 + r0 && k0 <= warp_last_row) {
      // S = Q K^T for the warp's 16 rows and the tile's 64 keys, in registers.
      mma::Acc s[NS];
      mma_rows_xt<DQ / 16, NS>(s, sm.Q(), Sm::LQ, r0, sm.K(buf), Sm::LQ, lane);

      // Mask, ALiBi and the online softmax; each row's 64 scores are held by 4 lanes (16 each).
      online_softmax_any(whole_tile(k0, q0 + r0, warp_last_row, key_start), s, m, l, o, t_row, first, k0, c2, T,
                         slope);

      // O += P V: P (16 x 64, rounded to bf16) straight from S's registers.
      mma_acc_x<NS / 2, NO>(o, s, sm.V(buf), Sm::LV, lane);
    }
    __syncthreads();  // every warp is done with this buffer before the next iteration refills it
  }

  out_rows<D>(o, m, l, t_row, a, b, h, c2, lane, out, lse);
}

// ---- Backward ----

constexpr int kBwdQ = 32;  // query rows per tile in the dK, dV kernel (64 would not fit PoPE at D 128)

// Shared memory of the dK, dV kernel: the block's 64 keys (16 a warp) and values, and two buffers
// of a query tile of 32 (scaled queries and dO in bf16, the tile's lse and Di); once the loop is
// done, the fp32 rows of dK' (the gradient of the transformed keys) for the PE's backward, over
// the tiles.
template <int D, PEKind PE>
struct FlashBwdKVSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8;  // bf16 row strides
  static constexpr int LK = DQ + 4;              // fp32 row stride
  static constexpr size_t kKBytes = smem_up(sizeof(bf16) * kTileK * LQ), kVBytes = smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kQBytes = smem_up(sizeof(bf16) * kBwdQ * LQ), kdOBytes = smem_up(sizeof(bf16) * kBwdQ * LV);
  static constexpr size_t kStatBytes = smem_up(sizeof(float) * kBwdQ);
  static constexpr size_t kStage = kQBytes + kdOBytes + 2 * kStatBytes;  // one query tile
  static constexpr size_t kTilesEnd = kKBytes + kVBytes + 2 * kStage;
  static constexpr size_t kdKEnd = smem_up(sizeof(float) * kTileK * LK);
  static constexpr size_t bytes = kTilesEnd > kdKEnd ? kTilesEnd : kdKEnd;

  unsigned char* base;
  // The block's (64, LQ) keys and (64, LV) values; buffer i's query tile (the one in use and the
  // next): (32, LQ) scaled queries, (32, LV) dO, (32) lse and (32) rowsum(dO o O); after the loop,
  // (64, LK) dK' over them all. Offsets computed, not held in arrays indexed by the loop's buffer
  // (those would live in local memory).
  __device__ explicit FlashBwdKVSmem(unsigned char* b) : base(b) {}
  __device__ bf16* K() const { return reinterpret_cast<bf16*>(base); }
  __device__ bf16* V() const { return reinterpret_cast<bf16*>(base + kKBytes); }
  __device__ unsigned char* stage(int i) const { return base + kKBytes + kVBytes + i * kStage; }
  __device__ bf16* Q(int i) const { return reinterpret_cast<bf16*>(stage(i)); }
  __device__ bf16* dO(int i) const { return reinterpret_cast<bf16*>(stage(i) + kQBytes); }
  __device__ float* L(int i) const { return reinterpret_cast<float*>(stage(i) + kQBytes + kdOBytes); }
  __device__ float* Di(int i) const { return reinterpret_cast<float*>(stage(i) + kQBytes + kdOBytes + kStatBytes); }
  __device__ float* dK() const { return reinterpret_cast<float*>(base); }
};

// Starts the block's copies of query rows q0.. (rows of them: the scaled queries, dO, lse and Di,
// from the backward's copies) into Q, dO (row strides LQ, LV), L and Di, and commits them.
template <int D, int DQ, int LQ, int LV, int Rows>
__device__ __forceinline__ void start_query_rows(const FlashScratch& fs, int b, int h, int q0, bf16* Q, bf16* dO,
                                                 float* L, float* Di) {
  const size_t row = fs.row(b, h, q0);
  async_copy::copy_rows<DQ, LQ, Rows, kThreads>(Q, fs.Q + row * DQ);
  async_copy::copy_rows<D, LV, Rows, kThreads>(dO, fs.dO + row * D);
  async_copy::copy_rows<Rows, Rows, 1, kThreads>(L, fs.L + row);
  async_copy::copy_rows<Rows, Rows, 1, kThreads>(Di, fs.Di + row);
  async_copy::commit();
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads)
    attention_bwd_flash_dkdv_kernel(AttentionArgs a, FlashScratch fs, const float* qkv, float* dqkv, float* ddelta_part) {
  using Sm = FlashBwdKVSmem<D, PE>;
  constexpr int DQ = Sm::DQ, NQ = kBwdQ / 8;  // NQ: n-tiles of S^T (8 queries each)
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, k0 = blockIdx.x * kTileK, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const int key_start = a.key_start ? a.key_start[b] : 0;  // the first key past b's left pads
  const int j0 = w * kRows;  // this warp's first key row in the block
  // The block's keys and values with the first query tile, one group of copies; each later
  // tile's copy starts before the tile before it is used.
  const size_t krow = fs.row(b, h, k0);
  async_copy::copy_rows<DQ, Sm::LQ, kTileK, kThreads>(sm.K(), fs.K + krow * DQ);
  async_copy::copy_rows<D, Sm::LV, kTileK, kThreads>(sm.V(), fs.V + krow * D);
  start_query_rows<D, DQ, Sm::LQ, Sm::LV, kBwdQ>(fs, b, h, k0, sm.Q(0), sm.dO(0), sm.L(0), sm.Di(0));
  const int key[2] = {k0 + j0 + g, k0 + j0 + g + 8};  // this lane's two keys (accumulator rows)
  mma::Acc dk[DQ / 8], dv[D / 8];                     // dK' (16, DQ) and dV (16, D) of the warp's keys
  const int warp_first_key = k0 + j0;
  const int tiles = (T - k0 + kBwdQ - 1) / kBwdQ;
  for (int it = 0; it < tiles; ++it) {
    const int q0 = k0 + it * kBwdQ, buf = it & 1;
    if (it + 1 < tiles) {
      start_query_rows<D, DQ, Sm::LQ, Sm::LV, kBwdQ>(fs, b, h, q0 + kBwdQ, sm.Q(buf ^ 1), sm.dO(buf ^ 1),
                                                     sm.L(buf ^ 1), sm.Di(buf ^ 1));
      async_copy::wait<1>();
    } else {
      async_copy::wait<0>();
    }
    __syncthreads();
    // Warp-uniform: no key of the warp, or every query of the tile before the warp's first key.
    if (warp_first_key < T && q0 + kBwdQ - 1 >= warp_first_key) {
      const float *L = sm.L(buf), *Di = sm.Di(buf);
      // S^T = K Q^T and dP^T = V dO^T: the warp's 16 keys against the tile's 32 queries.
      mma::Acc st[NQ], dpt[NQ];
      mma_rows_xt<DQ / 16, NQ>(st, sm.K(), Sm::LQ, j0, sm.Q(buf), Sm::LQ, lane);
      mma_rows_xt<D / 16, NQ>(dpt, sm.V(), Sm::LV, j0, sm.dO(buf), Sm::LV, lane);
      // P^T (into st) and dS^T (into dpt), element by element, without a branch (bench/log/036).
      dkdv_p_ds_any(false, st, dpt, key, L, Di, q0, c2, T, key_start, slope);
      // dV += P^T dO and dK' += dS^T Q (the scaled queries: S = Q k', so dS/dk' = Q).
      mma_acc_x<NQ / 2, D / 8>(dv, st, sm.dO(buf), Sm::LV, lane);
      mma_acc_x<NQ / 2, DQ / 8>(dk, dpt, sm.Q(buf), Sm::LQ, lane);
    }
    __syncthreads();  // every warp is done with this buffer (and, at the end, with the tiles)
  }
  // dV, and dK' through the PE's backward, from fp32 rows in shared memory that reuse the tiles,
  // which every warp is past (the loop's last barrier).
  dkdv_rows_out<D, PE>(dk, dv, sm.dK(), Sm::LK, a, qkv, dqkv, ddelta_part, b, h, k0, j0, lane);
}

// Shared memory of the dQ kernel: the block's 64 queries (scaled, and dO, in bf16), two buffers of
// a key tile of 64 (keys and values in bf16), the queries' lse and Di; once the loop is done, the
// fp32 rows of dQ over the tiles, and one fp32 row a warp for the transformed query of the
// temperature's term.
template <int D, PEKind PE>
struct FlashBwdQSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static constexpr int LQ = DQ + 8, LV = D + 8;  // bf16 row strides
  static constexpr int LK = DQ + 4;              // fp32 row stride
  static constexpr size_t kQBytes = smem_up(sizeof(bf16) * kBlockQ * LQ);
  static constexpr size_t kdOBytes = smem_up(sizeof(bf16) * kBlockQ * LV);
  static constexpr size_t kKBytes = smem_up(sizeof(bf16) * kTileK * LQ), kVBytes = smem_up(sizeof(bf16) * kTileK * LV);
  static constexpr size_t kTilesEnd = kQBytes + kdOBytes + 2 * (kKBytes + kVBytes);
  static constexpr size_t kdQEnd = smem_up(sizeof(float) * kBlockQ * LK);  // dQ from 0, after the loop
  static constexpr size_t kQt = kTilesEnd > kdQEnd ? kTilesEnd : kdQEnd;
  static constexpr size_t kStats = kQt + smem_up(sizeof(float) * kWarps * DQ);
  static constexpr size_t bytes = kStats + 2 * smem_up(sizeof(float) * kBlockQ);

  unsigned char* base;
  // The block's (64, LQ) scaled queries and (64, LV) dO; buffer i's key tile (the one in use and
  // the next): (64, LQ) keys, (64, LV) values; (64) lse and (64) Di; after the loop, (64, LK) dQ
  // over the tiles and (4, DQ) a row a warp for the transformed query. Offsets computed, as in
  // FlashFwdSmem.
  __device__ explicit FlashBwdQSmem(unsigned char* b) : base(b) {}
  __device__ bf16* Q() const { return reinterpret_cast<bf16*>(base); }
  __device__ bf16* dO() const { return reinterpret_cast<bf16*>(base + kQBytes); }
  __device__ bf16* K(int i) const {
    return reinterpret_cast<bf16*>(base + kQBytes + kdOBytes + i * (kKBytes + kVBytes));
  }
  __device__ bf16* V(int i) const { return K(i) + kKBytes / sizeof(bf16); }
  __device__ float* dQ() const { return reinterpret_cast<float*>(base); }
  __device__ float* qt() const { return reinterpret_cast<float*>(base + kQt); }
  __device__ float* L() const { return reinterpret_cast<float*>(base + kStats); }
  __device__ float* Di() const { return reinterpret_cast<float*>(base + kStats + smem_up(sizeof(float) * kBlockQ)); }
};

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads, kDqMinBlocks<D, PE>)
    attention_bwd_flash_dq_kernel(AttentionArgs a, FlashScratch fs, const float* qkv, float* dqkv, float* dtemp_part) {
  using Sm = FlashBwdQSmem<D, PE>;
  constexpr int DQ = Sm::DQ, NS = kTileK / 8;  // NS: n-tiles of S (8 keys each)
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f, mul = head_scale(a, b, h);
  const int key_start = a.key_start ? a.key_start[b] : 0;  // the first key past b's left pads
  const int r0 = w * kRows;
  // The block's queries (one group of copies), then the first key tile (the next group); the
  // queries' lse and Di are read into registers once their group has landed.
  start_query_rows<D, DQ, Sm::LQ, Sm::LV, kBlockQ>(fs, b, h, q0, sm.Q(), sm.dO(), sm.L(), sm.Di());
  start_key_tile<D, DQ, Sm::LQ, Sm::LV>(fs, b, h, 0, sm.K(0), sm.V(0));
  async_copy::wait<1>();
  __syncthreads();
  // This lane's two rows: [0] row g of the warp's 16, [1] row g + 8, with their lse (log2 units) and Di.
  int t_row[2], first[2];
  lane_rows(a, b, q0, r0, g, t_row, first);
  const float L2_row[2] = {sm.L()[r0 + g], sm.L()[r0 + g + 8]}, Di_row[2] = {sm.Di()[r0 + g], sm.Di()[r0 + g + 8]};
  mma::Acc dq[DQ / 8];  // dQ (16, DQ) of the warp's (scaled) queries
  const int warp_last_row = warp_last_row_of(q0, r0, T), tiles = key_tiles_of(q0, T);
  // The forward's double-buffered loop, written out again: a helper taking the next tile's copy as
  // a lambda cost this kernel up to 63 more registers a thread (ptxas, sm_90: 231 instead of 168
  // at D 64 with PoPE), and the forward 27 at D 128.
  for (int it = 0; it < tiles; ++it) {
    const int k0 = it * kTileK, buf = it & 1;
    if (it + 1 < tiles) {
      start_key_tile<D, DQ, Sm::LQ, Sm::LV>(fs, b, h, k0 + kTileK, sm.K(buf ^ 1), sm.V(buf ^ 1));
      async_copy::wait<1>();
    } else {
      async_copy::wait<0>();
    }
    __syncthreads();
    if (warp_last_row >= q0 + r0 && k0 <= warp_last_row) {
      // S = Q K^T and dP = dO V^T for the warp's 16 queries and the tile's 64 keys.
      mma::Acc s[NS], dp[NS];
      mma_rows_xt<DQ / 16, NS>(s, sm.Q(), Sm::LQ, r0, sm.K(buf), Sm::LQ, lane);
      mma_rows_xt<D / 16, NS>(dp, sm.dO(), Sm::LV, r0, sm.V(buf), Sm::LV, lane);
      // dS = P o (dP - Di), into dp; a whole tile (as the forward's, bench/log/035) unmasked.
      dq_ds_any(whole_tile(k0, q0 + r0, warp_last_row, key_start), dp, s, t_row, first, L2_row, Di_row, k0, c2,
                T, slope);
      // dQ (of the scaled queries) += dS K.
      mma_acc_x<NS / 2, DQ / 8>(dq, dp, sm.K(buf), Sm::LQ, lane);
    }
    __syncthreads();  // every warp is done with this buffer (and, at the end, with the tiles)
  }
  // dq' through the PE's backward and the temperature's term (attention_flash_tile.cuh), from
  // fp32 rows that reuse the tiles (every warp is past the loop's last barrier).
  dq_rows_out<D, PE>(dq, mul, sm.dQ(), Sm::LK, sm.qt() + w * DQ, a, qkv, dqkv, dtemp_part, b, h, q0, r0, lane);
}

// The backward's copies and its dK, dV kernel (all of the backward but dQ, which the mma.sync and
// the warpgroup dQ kernels each add).
template <int D, PEKind PE>
void launch_bwd_flash_dkdv(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                           const float* lse, float* dqkv, float* ddelta_part, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = FlashBwdKVSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dkdv_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(bytes)));
  });
  write_flash_copies(a, qkv, out, dout, lse, s);
  const dim3 grid((a.T + kTileK - 1) / kTileK, a.H, a.B);
  attention_bwd_flash_dkdv_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), qkv, dqkv, ddelta_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dkdv");
}

template <int D, PEKind PE>
void launch_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                      float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = FlashBwdQSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dq_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(bytes)));
  });
  launch_bwd_flash_dkdv<D, PE>(a, qkv, out, dout, lse, dqkv, ddelta_part, s);
  const dim3 grid((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_bwd_flash_dq_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), qkv, dqkv, dtemp_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dq");
}

template <int D, PEKind PE>
void launch_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = FlashFwdSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_fwd_flash_kernel<D, PE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(bytes)));
  });
  write_flash_copies(a, qkv, nullptr, nullptr, nullptr, s);
  dim3 grid((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_fwd_flash_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), out, lse);
  CUDA_CHECK_LAUNCH("attention_fwd_flash");
}

}  // namespace

void attention_bwd_flash(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                         float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  for_head_dim_and_pe(AllHeadDims{}, a, "flash attention", [&](auto d, auto pe) {
    launch_bwd_flash<decltype(d)::value, decltype(pe)::value>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  });
}

void attention_bwd_flash_dkdv(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                              const float* lse, float* dqkv, float* ddelta_part, cudaStream_t s) {
  for_head_dim_and_pe(AllHeadDims{}, a, "flash attention", [&](auto d, auto pe) {
    launch_bwd_flash_dkdv<decltype(d)::value, decltype(pe)::value>(a, qkv, out, dout, lse, dqkv, ddelta_part, s);
  });
}

void attention_fwd_flash(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  for_head_dim_and_pe(AllHeadDims{}, a, "flash attention", [&](auto d, auto pe) {
    launch_fwd_flash<decltype(d)::value, decltype(pe)::value>(a, qkv, out, lse, s);
  });
}

}  // namespace popebench::cuda::attn
