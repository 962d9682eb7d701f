// The flash forward on Hopper's warpgroup products (wgmma, sm_90a; kernels/cuda/wgmma_bf16.cuh),
// head dims 64 and 128: the loop of attention_flash.cu's forward (a block owns 64 query rows,
// streams the keys in tiles of 64 from the call's bf16 copies through two cp.async buffers, the
// online softmax in fp32 registers), with each tile's two products issued as warpgroup
// instructions instead of 64 mma.sync a warp: S = Q K^T as DQ / 16 instructions of 64 x 64 x 16
// reading Q and K from shared memory, and O += P V as 4 of 64 x D x 16 with P from the registers
// the softmax left it in. Why: bench/log/034 and 036 found the mma.sync forward bound by the
// instructions it issues; a wgmma replaces 32 of them, and the tensor cores read the tiles
// themselves (no ldmatrix). The tiles are stored 128-byte-swizzled (the layout wgmma reads).
//
// Scores and outputs sit in the same registers as in the mma.sync kernel (wgmma's accumulators
// repeat the m16n8 layout per warp), so the mask, ALiBi's term and the online softmax are
// attention_flash_tile.cuh's, shared with it. Every warp takes part in every product (they are
// warpgroup instructions): a warp whose rows all precede a tile gets P = 0 from the general
// softmax path, which masks them. Built for sm_90a only (popebench_flash_wgmma in CMakeLists.txt).
// attention_fwd / attention_bwd run it wherever it runs (bench/log/037, one H100: every flash GPU
// test passed; forward 1.30x, backward 1.19x the mma.sync kernels at T 4096, D 64).
//
// The dQ kernel of the backward the same way (S = Q K^T and dP = dO V^T from the tiles, dQ += dS K
// with dS from registers and K as the MN-major operand); the backward's copies and its dK, dV
// kernel stay attention_flash.cu's (attention_bwd_flash_dkdv).

#include "kernels/cuda/attention_flash_wgmma.hpp"

#include <cuda_bf16.h>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/attention_flash_scratch.cuh"
#include "kernels/cuda/attention_flash_tile.cuh"
#include "kernels/cuda/cp_async.cuh"
#include "kernels/cuda/mma_bf16.cuh"
#include "kernels/cuda/wgmma_bf16.cuh"

namespace popebench::cuda::attn {

namespace {

using bf16 = __nv_bfloat16;
namespace wg = wgmma;

// Shared memory: the block's (64, DQ) queries, then two buffers of a tile's (64, DQ) keys and
// (64, D) values, every tile sw128 (column blocks of 64 rows x 128 bytes, each a multiple of 1024
// bytes, so every tile starts on the swizzle's 1024-byte repeat); 1024 bytes of slack to align
// the start.
template <int D, PEKind PE>
struct WgFwdSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static_assert(DQ % 64 == 0 && D % 64 == 0, "sw128 tiles are whole 64-column blocks");
  static constexpr uint32_t kQBytes = 2 * kBlockQ * DQ, kKBytes = 2 * kTileK * DQ, kVBytes = 2 * kTileK * D;
  static constexpr size_t bytes = 1024 + kQBytes + 2 * (kKBytes + kVBytes);

  unsigned char* base;
  __device__ explicit WgFwdSmem(unsigned char* raw) : base(wg::align_1024(raw)) {}
  __device__ unsigned char* Q() const { return base; }
  __device__ unsigned char* K(int i) const { return base + kQBytes + i * (kKBytes + kVBytes); }
  __device__ unsigned char* V(int i) const { return K(i) + kKBytes; }
};

// The block's threads start cp.async copies of Rows rows of W bf16 (rows contiguous in src) into
// an sw128 tile; each thread keeps one 16-byte column chunk and steps down the rows.
template <int W, int Rows>
__device__ __forceinline__ void copy_rows_sw128(unsigned char* tile, const bf16* src) {
  constexpr int kChunks = W / 8;
  static_assert(kThreads % kChunks == 0 && Rows * kChunks % kThreads == 0, "whole rows per pass");
  const int c = threadIdx.x % kChunks, r0 = threadIdx.x / kChunks;
#pragma unroll
  for (int j = 0; j < Rows * kChunks / kThreads; ++j) {
    const int r = r0 + j * (kThreads / kChunks);
    async_copy::copy16(tile + wg::sw128_offset(Rows, r, 8 * c), src + size_t(r) * W + 8 * c);
  }
}

// Starts the block's copies of key tile k0 (keys and values, from the call's copies) into sw128
// tiles K and V, and commits them.
template <int D, int DQ>
__device__ __forceinline__ void start_key_tile_sw128(const FlashScratch& fs, int b, int h, int k0, unsigned char* K,
                                                     unsigned char* V) {
  const size_t row = fs.row(b, h, k0);
  copy_rows_sw128<DQ, kTileK>(K, fs.K + row * DQ);
  copy_rows_sw128<D, kTileK>(V, fs.V + row * D);
  async_copy::commit();
}

// The loop's head, the same in both kernels: the next tile's copies start (start_tile(k0, buf))
// before this tile's are waited for, and their writes are made visible to every warp's products.
template <typename Start>
__device__ __forceinline__ void next_tile_in(int it, int tiles, int k0, int buf, Start&& start_tile) {
  if (it + 1 < tiles) {
    start_tile(k0 + kTileK, buf ^ 1);
    async_copy::wait<1>();
  } else {
    async_copy::wait<0>();
  }
  wg::fence_proxy_async();  // the copies' writes, before the tensor cores read them
  __syncthreads();
}

// d (the block's 64 rows x the tile's 64 keys) = A B^T over W columns, A and B sw128 tiles of 64
// rows (queries or dO; keys or values): W / 16 products, 16 columns an instruction, 32 bytes into
// a 128-byte row of a column block. Issued, not waited for.
template <int W>
__device__ __forceinline__ void rows_times_keys(float (&d)[kTileK / 2], const unsigned char* A, const unsigned char* B) {
  static_assert(kBlockQ == kTileK, "both tiles' column blocks are 64 rows x 128 bytes");
#pragma unroll
  for (int kk = 0; kk < W / 16; ++kk) {
    const int off = kk / 4 * kTileK * 128 + 32 * (kk % 4);
    wg::mma_ss<kTileK>(d, wg::sw128_desc(A + off, 16, 1024), wg::sw128_desc(B + off, 16, 1024), kk > 0);
  }
}

// d (the block's 64 rows x N) += P X over the tile's 64 keys, P in the registers of a (64, 64)
// accumulator (rounded to bf16), X an sw128 tile of 64 key rows, N wide, as the MN-major operand
// (the values for O += P V, the keys for dQ += dS K): 16 keys an instruction from row 16 j, the
// column blocks kTileK x 128 bytes apart. Issued, not waited for. The four A operands are packed
// before the fence: registers written between a warpgroup's products make ptxas serialise them
// (its C7519 note, "warpgroup.arrive is injected").
template <int N>
__device__ __forceinline__ void acc_times_keys(float (&d)[N / 2], const mma::Acc (&p)[kTileK / 8],
                                               const unsigned char* X) {
  mma::FragA a[kTileK / 16];
#pragma unroll
  for (int j = 0; j < kTileK / 16; ++j) a[j] = mma::pack_a_from_acc(p[2 * j], p[2 * j + 1]);
  wg::fence();
#pragma unroll
  for (int j = 0; j < kTileK / 16; ++j)
    wg::mma_rs_mn<N>(d, a[j].r, wg::sw128_desc(X + 16 * j * 128, kTileK * 128, 1024), 1);
}

template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads)
    attention_fwd_flash_wgmma_kernel(AttentionArgs a, FlashScratch fs, float* out, float* lse) {
  using Sm = WgFwdSmem<D, PE>;
  constexpr int DQ = Sm::DQ;
  constexpr int NS = kTileK / 8, NO = D / 8;  // the n-tiles (8 columns each) of S and of O
  extern __shared__ unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const int key_start = a.key_start ? a.key_start[b] : 0;
  const int r0 = w * kRows;

  auto start_tile = [&](int k0, int buf) { start_key_tile_sw128<D, DQ>(fs, b, h, k0, sm.K(buf), sm.V(buf)); };
  copy_rows_sw128<DQ, kBlockQ>(sm.Q(), fs.Q + fs.row(b, h, q0) * DQ);
  start_tile(0, 0);
  int t_row[2], first[2];
  lane_rows(a, b, q0, r0, g, t_row, first);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
  mma::Acc o[NO];  // O: the warp's (16, D), as (16, 8) tiles; wgmma's (64, D) accumulator
  static_assert(sizeof(o) == sizeof(float) * D / 2, "wgmma's accumulator: D / 2 floats a thread");
  auto& of = reinterpret_cast<float(&)[D / 2]>(o);

  const int warp_last_row = warp_last_row_of(q0, r0, T), tiles = key_tiles_of(q0, T);
  for (int it = 0; it < tiles; ++it) {
    const int k0 = it * kTileK, buf = it & 1;
    next_tile_in(it, tiles, k0, buf, start_tile);

    // S = Q K^T (64 x 64).
    mma::Acc s[NS];
    auto& sf = reinterpret_cast<float(&)[kTileK / 2]>(s);
    wg::fence();
    rows_times_keys<DQ>(sf, sm.Q(), sm.K(buf));
    wg::commit();
    wg::wait<0>();
    wg::fence_operands(sf);

    online_softmax_any(whole_tile(k0, q0 + r0, warp_last_row, key_start), s, m, l, o, t_row, first, k0, c2, T,
                       slope);

    // O += P V, P from S's registers (rounded to bf16), V as the MN-major operand.
    acc_times_keys<D>(of, s, sm.V(buf));
    wg::commit();
    wg::wait<0>();
    wg::fence_operands(of);
    __syncthreads();  // every warp is done with this buffer before the next iteration refills it
  }

  out_rows<D>(o, m, l, t_row, a, b, h, c2, lane, out, lse);
}

// Shared memory of the dQ kernel: the block's (64, DQ) scaled queries and (64, D) dO, two buffers
// of a key tile's (64, DQ) keys and (64, D) values, all sw128, then the queries' lse (log2 units)
// and Di; after the loop, the fp32 rows of dQ (64, DQ + 4) over the tiles and one fp32 row a warp
// for the transformed query of the temperature's term (as attention_flash.cu's FlashBwdQSmem).
template <int D, PEKind PE>
struct WgDqSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static_assert(DQ % 64 == 0 && D % 64 == 0, "sw128 tiles are whole 64-column blocks");
  static constexpr int LK = DQ + 4;  // fp32 row stride of dQ
  static constexpr uint32_t kQBytes = 2 * kBlockQ * DQ, kdOBytes = 2 * kBlockQ * D;
  static constexpr uint32_t kKBytes = 2 * kTileK * DQ, kVBytes = 2 * kTileK * D;
  static constexpr uint32_t kTilesEnd = kQBytes + kdOBytes + 2 * (kKBytes + kVBytes);
  static constexpr uint32_t kdQEnd = 4 * kBlockQ * LK;
  static constexpr uint32_t kQt = kTilesEnd > kdQEnd ? kTilesEnd : kdQEnd;
  static constexpr uint32_t kStats = kQt + 4 * kWarps * DQ;
  static constexpr size_t bytes = 1024 + kStats + 2 * 4 * kBlockQ;

  unsigned char* base;
  __device__ explicit WgDqSmem(unsigned char* raw) : base(wg::align_1024(raw)) {}
  __device__ unsigned char* Q() const { return base; }
  __device__ unsigned char* dO() const { return base + kQBytes; }
  __device__ unsigned char* K(int i) const { return base + kQBytes + kdOBytes + i * (kKBytes + kVBytes); }
  __device__ unsigned char* V(int i) const { return K(i) + kKBytes; }
  __device__ float* dQ() const { return reinterpret_cast<float*>(base); }
  __device__ float* qt() const { return reinterpret_cast<float*>(base + kQt); }
  __device__ float* L() const { return reinterpret_cast<float*>(base + kStats); }
  __device__ float* Di() const { return L() + kBlockQ; }
};

// dQ of the block's 64 queries (and the log-temperature terms), as attention_flash.cu's dQ kernel:
// S = Q K^T and dP = dO V^T as warpgroup products from the sw128 tiles, dS = P o (dP - Di) in
// registers (attention_flash_tile.cuh's dq_ds_tile), dQ += dS K with dS from registers and K as
// the MN-major operand (a row per key, DQ contiguous), then the PE's backward on fp32 rows.
template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads)
    attention_bwd_flash_dq_wgmma_kernel(AttentionArgs a, FlashScratch fs, const float* qkv, float* dqkv,
                                        float* dtemp_part) {
  using Sm = WgDqSmem<D, PE>;
  constexpr int DQ = Sm::DQ, NS = kTileK / 8;
  extern __shared__ unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f, mul = head_scale(a, b, h);
  const int key_start = a.key_start ? a.key_start[b] : 0;
  const int r0 = w * kRows;

  auto start_tile = [&](int k0, int buf) { start_key_tile_sw128<D, DQ>(fs, b, h, k0, sm.K(buf), sm.V(buf)); };
  {
    const size_t row = fs.row(b, h, q0);
    copy_rows_sw128<DQ, kBlockQ>(sm.Q(), fs.Q + row * DQ);
    copy_rows_sw128<D, kBlockQ>(sm.dO(), fs.dO + row * D);
    async_copy::copy_rows<kBlockQ, kBlockQ, 1, kThreads>(sm.L(), fs.L + row);
    async_copy::copy_rows<kBlockQ, kBlockQ, 1, kThreads>(sm.Di(), fs.Di + row);
    async_copy::commit();
  }
  start_tile(0, 0);
  async_copy::wait<1>();
  __syncthreads();
  int t_row[2], first[2];
  lane_rows(a, b, q0, r0, g, t_row, first);
  const float L2_row[2] = {sm.L()[r0 + g], sm.L()[r0 + g + 8]}, Di_row[2] = {sm.Di()[r0 + g], sm.Di()[r0 + g + 8]};
  mma::Acc dq[DQ / 8];  // dQ: the warp's (16, DQ); wgmma's (64, DQ) accumulator
  auto& dqf = reinterpret_cast<float(&)[DQ / 2]>(dq);
  const int warp_last_row = warp_last_row_of(q0, r0, T), tiles = key_tiles_of(q0, T);
  for (int it = 0; it < tiles; ++it) {
    const int k0 = it * kTileK, buf = it & 1;
    next_tile_in(it, tiles, k0, buf, start_tile);

    // S = Q K^T and dP = dO V^T (64 x 64 each), one group of products.
    mma::Acc s[NS], dp[NS];
    auto& sf = reinterpret_cast<float(&)[kTileK / 2]>(s);
    auto& dpf = reinterpret_cast<float(&)[kTileK / 2]>(dp);
    wg::fence();
    rows_times_keys<DQ>(sf, sm.Q(), sm.K(buf));
    rows_times_keys<D>(dpf, sm.dO(), sm.V(buf));
    wg::commit();
    wg::wait<0>();
    wg::fence_operands(sf);
    wg::fence_operands(dpf);

    dq_ds_any(whole_tile(k0, q0 + r0, warp_last_row, key_start), dp, s, t_row, first, L2_row, Di_row, k0, c2,
              T, slope);

    // dQ += dS K, dS from registers, K as the MN-major operand (a row per key, DQ contiguous).
    acc_times_keys<DQ>(dqf, dp, sm.K(buf));
    wg::commit();
    wg::wait<0>();
    wg::fence_operands(dqf);
    __syncthreads();  // every warp is done with this buffer (and, at the end, with the tiles)
  }
  // dq' through the PE's backward and the temperature's term (attention_flash_tile.cuh), from
  // fp32 rows that reuse the tiles (every warp is past the loop's last barrier).
  dq_rows_out<D, PE>(dq, mul, sm.dQ(), Sm::LK, sm.qt() + w * DQ, a, qkv, dqkv, dtemp_part, b, h, q0, r0, lane);
}

template <int D, PEKind PE>
void launch_fwd(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = WgFwdSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_fwd_flash_wgmma_kernel<D, PE>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  });
  write_flash_copies(a, qkv, nullptr, nullptr, nullptr, s);
  const dim3 grid((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_fwd_flash_wgmma_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), out, lse);
  CUDA_CHECK_LAUNCH("attention_fwd_flash_wgmma");
}

template <int D, PEKind PE>
void launch_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = WgDqSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dq_wgmma_kernel<D, PE>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  });
  attention_bwd_flash_dkdv(a, qkv, out, dout, lse, dqkv, ddelta_part, s);  // the copies, dK, dV
  const dim3 grid((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_bwd_flash_dq_wgmma_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), qkv, dqkv, dtemp_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dq_wgmma");
}

}  // namespace

bool flash_wgmma_runs(const AttentionArgs& a) { return (a.D == 64 || a.D == 128) && wg::device_runs_wgmma(); }

void attention_fwd_flash_wgmma(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  if (!flash_wgmma_runs(a))
    throw CudaError("flash attention on warpgroup products: needs a compute capability 9.0 GPU and head dim 64 or "
                    "128 (got head dim " + std::to_string(a.D) + ")");
  for_head_dim_and_pe(std::integer_sequence<int, 64, 128>{}, a, "flash attention (wgmma)", [&](auto d, auto pe) {
    launch_fwd<decltype(d)::value, decltype(pe)::value>(a, qkv, out, lse, s);
  });
}

void attention_bwd_flash_wgmma(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                               const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  if (!flash_wgmma_runs(a))
    throw CudaError("flash attention on warpgroup products: needs a compute capability 9.0 GPU and head dim 64 or "
                    "128 (got head dim " + std::to_string(a.D) + ")");
  for_head_dim_and_pe(std::integer_sequence<int, 64, 128>{}, a, "flash attention (wgmma)", [&](auto d, auto pe) {
    launch_bwd<decltype(d)::value, decltype(pe)::value>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  });
}

}  // namespace popebench::cuda::attn
