// The flash backward's kernels on Hopper's warpgroup products (wgmma, sm_90a), head dims 64 and
// 128, each attention_flash.cu's kernel with its products as warpgroup instructions from
// 128-byte-swizzled tiles (attention_flash_wgmma_tile.cuh):
//   dQ     S = Q K^T and dP = dO V^T from the tiles, dQ += dS K with dS from registers and K as
//          the MN-major operand (bench/log/037);
//   dK dV  S^T = K Q^T and dP^T = V dO^T, dV += P^T dO and dK' += dS^T Q (bench/log/038: 944
//          against the mma.sync kernel's 1,110 us at T 4096, D 64 on one H100; the backward with
//          it takes 6-26 % less time than without at T 1,024-16,384, within 1 % at T 48); its
//          whole tiles skip the mask (041).
// attention_bwd runs both on Hopper (attention_bwd_flash_wgmma_kv); attention_bwd_flash_wgmma,
// with attention_flash.cu's dK, dV kernel, is 037's backward, kept for bench to time against.

#include "kernels/cuda/attention_flash_wgmma.hpp"

#include <string>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/attention_flash.hpp"
#include "kernels/cuda/attention_flash_wgmma_tile.cuh"

namespace popebench::cuda::attn {

namespace {

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

// The dK dV kernel's query tile: 32 queries, as attention_flash.cu's (kBwdQ). With 64 (S^T and
// dP^T twice as wide) ptxas gave it 181 registers at D 64, none (2 blocks of 128 threads an SM)
// and 516 bytes of spills for PoPE at D 128; with 32, 157 (3 blocks) and no spill anywhere
// (PoPE at D 128: 254).
constexpr int kWgBwdQ = 32;

// Shared memory of the dK dV kernel: the block's (64, DQ) keys and (64, D) values, two buffers of
// a query tile's (32, DQ) scaled queries and (32, D) dO, all sw128, then each buffer's lse (log2
// units) and Di; after the loop, dK' as fp32 rows (64, DQ + 4) over the tiles.
template <int D, PEKind PE>
struct WgDkdvSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static_assert(DQ % 64 == 0 && D % 64 == 0, "sw128 tiles are whole 64-column blocks");
  static constexpr int LK = DQ + 4;  // fp32 row stride of dK'
  static constexpr uint32_t kKBytes = 2 * kTileK * DQ, kVBytes = 2 * kTileK * D;
  static constexpr uint32_t kQBytes = 2 * kWgBwdQ * DQ, kdOBytes = 2 * kWgBwdQ * D;  // multiples of 1024
  static constexpr uint32_t kTilesEnd = kKBytes + kVBytes + 2 * (kQBytes + kdOBytes);
  static constexpr uint32_t kdKEnd = 4 * kTileK * LK;
  static constexpr uint32_t kStats = kTilesEnd > kdKEnd ? kTilesEnd : kdKEnd;
  static constexpr size_t bytes = 1024 + kStats + 2 * 2 * 4 * kWgBwdQ;

  unsigned char* base;
  __device__ explicit WgDkdvSmem(unsigned char* raw) : base(wg::align_1024(raw)) {}
  __device__ unsigned char* K() const { return base; }
  __device__ unsigned char* V() const { return base + kKBytes; }
  __device__ unsigned char* Q(int i) const { return base + kKBytes + kVBytes + i * (kQBytes + kdOBytes); }
  __device__ unsigned char* dO(int i) const { return Q(i) + kQBytes; }
  __device__ float* L(int i) const { return reinterpret_cast<float*>(base + kStats) + 2 * kWgBwdQ * i; }
  __device__ float* Di(int i) const { return L(i) + kWgBwdQ; }
  __device__ float* dK() const { return reinterpret_cast<float*>(base); }
};

// dK' and dV of the block's 64 keys, as attention_flash.cu's dK dV kernel with its products on
// warpgroup instructions: S^T = K Q^T and dP^T = V dO^T (64 keys x 32 queries) from the sw128
// tiles (the keys' rows as A, the queries' as B), P^T and dS^T in registers
// (attention_flash_tile.cuh's dkdv_p_ds_tile, which zeroes every element a key does not see), then
// dV += P^T dO and dK' += dS^T Q with P^T and dS^T from registers and dO, Q as the MN-major
// operands (a row per query). Every warp takes part in every product, so none skips a tile its
// keys all follow (the mma.sync kernel's warps do): its P^T and dS^T are zeros.
template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads)
    attention_bwd_flash_dkdv_wgmma_kernel(AttentionArgs a, FlashScratch fs, const float* qkv, float* dqkv,
                                          float* ddelta_part) {
  using Sm = WgDkdvSmem<D, PE>;
  constexpr int DQ = Sm::DQ, NS = kWgBwdQ / 8;  // NS: n-tiles of S^T (8 queries each)
  extern __shared__ unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, k0 = blockIdx.x * kTileK, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const int key_start = a.key_start ? a.key_start[b] : 0;
  const int j0 = w * kRows;  // this warp's first key row in the block

  auto start_tile = [&](int q0, int buf) {
    const size_t row = fs.row(b, h, q0);
    copy_rows_sw128<DQ, kWgBwdQ>(sm.Q(buf), fs.Q + row * DQ);
    copy_rows_sw128<D, kWgBwdQ>(sm.dO(buf), fs.dO + row * D);
    async_copy::copy_rows<kWgBwdQ, kWgBwdQ, 1, kThreads>(sm.L(buf), fs.L + row);
    async_copy::copy_rows<kWgBwdQ, kWgBwdQ, 1, kThreads>(sm.Di(buf), fs.Di + row);
    async_copy::commit();
  };
  {  // the block's keys and values, committed with the first query tile's copies
    const size_t row = fs.row(b, h, k0);
    copy_rows_sw128<DQ, kTileK>(sm.K(), fs.K + row * DQ);
    copy_rows_sw128<D, kTileK>(sm.V(), fs.V + row * D);
  }
  start_tile(k0, 0);
  const int key[2] = {k0 + j0 + g, k0 + j0 + g + 8};  // this lane's two keys (accumulator rows)
  mma::Acc dk[DQ / 8], dv[D / 8];  // dK' (64, DQ) and dV (64, D): wgmma's accumulators
  auto& dkf = reinterpret_cast<float(&)[DQ / 2]>(dk);
  auto& dvf = reinterpret_cast<float(&)[D / 2]>(dv);
  const int tiles = (T - k0 + kWgBwdQ - 1) / kWgBwdQ;  // the query tiles from the block's first key on
  for (int it = 0; it < tiles; ++it) {
    const int q0 = k0 + it * kWgBwdQ, buf = it & 1;
    next_tile_in<kWgBwdQ>(it, tiles, q0, buf, start_tile);

    // S^T = K Q^T and dP^T = V dO^T (64 keys x 32 queries each), one group of products.
    mma::Acc st[NS], dpt[NS];
    auto& stf = reinterpret_cast<float(&)[kWgBwdQ / 2]>(st);
    auto& dptf = reinterpret_cast<float(&)[kWgBwdQ / 2]>(dpt);
    wg::fence();
    rows_times_keys<DQ, kWgBwdQ>(stf, sm.K(), sm.Q(buf));
    rows_times_keys<D, kWgBwdQ>(dptf, sm.V(), sm.dO(buf));
    wg::commit();
    wg::wait<0>();
    wg::fence_operands(stf);
    wg::fence_operands(dptf);

    // P^T (into st) and dS^T (into dpt), every element, the ones a key does not see zeroed.
    dkdv_p_ds_any(dkdv_whole_tile<kWgBwdQ>(k0 + j0, q0, T, key_start), st, dpt, key, sm.L(buf), sm.Di(buf), q0, c2,
                  T, key_start, slope);

    // dV += P^T dO and dK' += dS^T Q (the scaled queries: S = Q k', so dS/dk' = Q), one group.
    mma::FragA pt[kWgBwdQ / 16], dst[kWgBwdQ / 16];
    pack_keys_operand<kWgBwdQ>(pt, st);
    pack_keys_operand<kWgBwdQ>(dst, dpt);
    wg::fence();
    keys_times<D, kWgBwdQ>(dvf, pt, sm.dO(buf));
    keys_times<DQ, kWgBwdQ>(dkf, dst, sm.Q(buf));
    wg::commit();
    wg::wait<0>();
    wg::fence_operands(dvf);
    wg::fence_operands(dkf);
    __syncthreads();  // every warp is done with this buffer (and, at the end, with the tiles)
  }
  dkdv_rows_out<D, PE>(dk, dv, sm.dK(), Sm::LK, a, qkv, dqkv, ddelta_part, b, h, k0, j0, lane);
}

template <int D, PEKind PE>
void launch_dkdv(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                 float* dqkv, float* ddelta_part, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = WgDkdvSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dkdv_wgmma_kernel<D, PE>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  });
  write_flash_copies(a, qkv, out, dout, lse, s);
  const dim3 grid((a.T + kTileK - 1) / kTileK, a.H, a.B);
  attention_bwd_flash_dkdv_wgmma_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), qkv, dqkv,
                                                                             ddelta_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dkdv_wgmma");
}

// The backward: the copies and dK, dV (on warpgroup products with kKv, else attention_flash.cu's
// mma.sync kernel), then the dQ kernel on warpgroup products.
template <int D, PEKind PE, bool kKv>
void launch_bwd(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
                float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  static DeviceOnce once;
  constexpr size_t bytes = WgDqSmem<D, PE>::bytes;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(attention_bwd_flash_dq_wgmma_kernel<D, PE>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  });
  if constexpr (kKv)
    launch_dkdv<D, PE>(a, qkv, out, dout, lse, dqkv, ddelta_part, s);
  else
    attention_bwd_flash_dkdv(a, qkv, out, dout, lse, dqkv, ddelta_part, s);
  const dim3 grid((a.T + kBlockQ - 1) / kBlockQ, a.H, a.B);
  attention_bwd_flash_dq_wgmma_kernel<D, PE><<<grid, kThreads, bytes, s>>>(a, flash_scratch_of(a), qkv, dqkv, dtemp_part);
  CUDA_CHECK_LAUNCH("attention_bwd_flash_dq_wgmma");
}

}  // namespace

namespace {
template <bool kKv>
void bwd_wgmma(const AttentionArgs& a, const float* qkv, const float* out, const float* dout, const float* lse,
               float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  if (!flash_wgmma_runs(a))
    throw CudaError("flash attention on warpgroup products: needs a compute capability 9.0 GPU and head dim 64 or "
                    "128 (got head dim " + std::to_string(a.D) + ")");
  for_head_dim_and_pe(std::integer_sequence<int, 64, 128>{}, a, "flash attention (wgmma)", [&](auto d, auto pe) {
    launch_bwd<decltype(d)::value, decltype(pe)::value, kKv>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
  });
}
}  // namespace

void attention_bwd_flash_wgmma(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                               const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part, cudaStream_t s) {
  bwd_wgmma<false>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
}
void attention_bwd_flash_wgmma_kv(const AttentionArgs& a, const float* qkv, const float* out, const float* dout,
                                  const float* lse, float* dqkv, float* ddelta_part, float* dtemp_part,
                                  cudaStream_t s) {
  bwd_wgmma<true>(a, qkv, out, dout, lse, dqkv, ddelta_part, dtemp_part, s);
}

}  // namespace popebench::cuda::attn
