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
// test passed; forward 1.30x, backward 1.19x the mma.sync kernels at T 4096, D 64), with two
// warpgroups a block or each tile's softmax under the next products where fwd_kernel says (039,
// 040). The backward's kernels: attention_flash_wgmma_bwd.cu.

#include "kernels/cuda/attention_flash_wgmma.hpp"

#include <string>
#include <type_traits>

#include "kernels/cuda/attention_common.cuh"
#include "kernels/cuda/attention_flash_wgmma_tile.cuh"

namespace popebench::cuda::attn {

namespace {

// Shared memory: the block's queries, a (64, DQ) tile per warpgroup, then two buffers of a key
// tile's (64, DQ) keys and (64, D) values, every tile sw128 (column blocks of 64 rows x 128 bytes,
// each a multiple of 1024 bytes, so every tile starts on the swizzle's 1024-byte repeat); 1024
// bytes of slack to align the start.
template <int D, PEKind PE, int kGroups>
struct WgFwdSmem {
  static constexpr int DQ = Dims<D, PE>::DQ;
  static_assert(DQ % 64 == 0 && D % 64 == 0, "sw128 tiles are whole 64-column blocks");
  static constexpr uint32_t kQBytes = 2 * kBlockQ * DQ, kKBytes = 2 * kTileK * DQ, kVBytes = 2 * kTileK * D;
  static constexpr size_t bytes = 1024 + kGroups * kQBytes + 2 * (kKBytes + kVBytes);

  unsigned char* base;
  __device__ explicit WgFwdSmem(unsigned char* raw) : base(wg::align_1024(raw)) {}
  __device__ unsigned char* Q(int group) const { return base + group * kQBytes; }
  __device__ unsigned char* K(int i) const { return base + kGroups * kQBytes + i * (kKBytes + kVBytes); }
  __device__ unsigned char* V(int i) const { return K(i) + kKBytes; }
};

// A block of kGroups warpgroups, each owning 64 query rows, sharing the key tiles: 2 (128 queries a
// block, as FlashAttention-2 and -3 take them) copies each key tile into shared memory once for
// twice the queries (bench/log/039); fwd_kernel says which attention_fwd runs. A warpgroup issues its
// products only for the tiles its rows see (its own causal end; none past T); every thread
// takes part in the copies and the barriers.
template <int D, PEKind PE, int kGroups>
__device__ __forceinline__ void fwd_wgmma_block(const AttentionArgs& a, const FlashScratch& fs, float* out, float* lse) {
  using Sm = WgFwdSmem<D, PE, kGroups>;
  constexpr int DQ = Sm::DQ, NThreads = kThreads * kGroups, BlockQ = kBlockQ * kGroups;
  constexpr int NS = kTileK / 8, NO = D / 8;  // the n-tiles (8 columns each) of S and of O
  extern __shared__ unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, group = kGroups == 1 ? 0 : w / kWarps;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * BlockQ, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const int key_start = a.key_start ? a.key_start[b] : 0;
  const int r0 = w * kRows;                       // the warp's first row in the block
  const int group_q0 = q0 + group * kBlockQ;      // the warpgroup's first query

  auto start_tile = [&](int k0, int buf) {
    start_key_tile_sw128<D, DQ, NThreads>(fs, b, h, k0, sm.K(buf), sm.V(buf));
  };
  // Each group's queries, where it has any: the copies are padded to 64 rows, not to a block's 128.
#pragma unroll
  for (int i = 0; i < kGroups; ++i)
    if (i == 0 || q0 + i * kBlockQ < T)
      copy_rows_sw128<DQ, kBlockQ, NThreads>(sm.Q(i), fs.Q + fs.row(b, h, q0 + i * kBlockQ) * DQ);
  start_tile(0, 0);
  int t_row[2], first[2];
  lane_rows(a, b, q0, r0, g, t_row, first);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
  mma::Acc o[NO];  // O: the warp's (16, D), as (16, 8) tiles; wgmma's (64, D) accumulator
  static_assert(sizeof(o) == sizeof(float) * D / 2, "wgmma's accumulator: D / 2 floats a thread");
  auto& of = reinterpret_cast<float(&)[D / 2]>(o);

  const int warp_last_row = warp_last_row_of(q0, r0, T);
  const int tiles = (min(q0 + BlockQ, T) - 1) / kTileK + 1;                  // the block's key tiles
  const int group_tiles = group_q0 < T ? key_tiles_of(group_q0, T) : 0;  // the warpgroup's
  for (int it = 0; it < tiles; ++it) {
    const int k0 = it * kTileK, buf = it & 1;
    next_tile_in(it, tiles, k0, buf, start_tile);
    if (kGroups == 1 || it < group_tiles) {  // warpgroup-uniform (one group: every tile the block copies)
      // S = Q K^T (64 x 64).
      mma::Acc s[NS];
      auto& sf = reinterpret_cast<float(&)[kTileK / 2]>(s);
      wg::fence();
      rows_times_keys<DQ>(sf, sm.Q(group), sm.K(buf));
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
    }
    __syncthreads();  // every warp is done with this buffer before the next iteration refills it
  }

  out_rows<D>(o, m, l, t_row, a, b, h, c2, lane, out, lse);
}

// One warpgroup a block, each tile's softmax after its products (the plain kernel; fwd_kernel says
// where attention_fwd runs it).
template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads)
    attention_fwd_flash_wgmma_kernel(AttentionArgs a, FlashScratch fs, float* out, float* lse) {
  fwd_wgmma_block<D, PE, 1>(a, fs, out, lse);
}
// Two: the compiler is asked to fit 2 blocks of 256 threads an SM at D 64 (the 16 warps of the
// one-group kernel's 4 blocks), where PoPE took 129 registers (1 block) unasked; at D 128 1 (held
// to 128 registers it would spill). A kernel of its own because the bound is an attribute: asking
// the one-group kernel for 1 block (the bound's default) moved it from 126 registers to 130 and
// from 4 blocks an SM to 3.
template <int D, PEKind PE>
__global__ void __launch_bounds__(2 * kThreads, D == 64 ? 2 : 1)
    attention_fwd_flash_wgmma_2g_kernel(AttentionArgs a, FlashScratch fs, float* out, float* lse) {
  fwd_wgmma_block<D, PE, 2>(a, fs, out, lse);
}

// The one-group forward with each tile's softmax under products (bench/log/040; FlashAttention-3's
// pipelining within a warpgroup): while the softmax of key tile j + 1 runs, the tensor cores do
// O += P_j V_j, and S_{j+1} = Q K_{j+1} was issued before it, so the softmax waits only for S. O's
// rescale by tile j + 1's max waits for O's product. Keys and values travel apart for it: tile j
// + 1's keys must be in before tile j's values are done with, so each iteration starts the copies
// of the keys two tiles ahead and the values one ahead, each into the buffer its product of the
// iteration before freed (K_{j+2} where K_j was, V_{j+1} where V_{j-1} was). O sees the same
// operations in the same order as in the one-group kernel (rescale by tile j's factor, then P_j
// V_j), and so do m and l: the same bits (the GPU test holds it to them).
// Unbounded: 144 registers at D 64 (3 blocks an SM, against the one-group kernel's 126 and 4),
// since P's registers and S of the next tile are live together while O's product runs; held to
// 128 (4 blocks) it spilled 56 bytes.
template <int D, PEKind PE>
__global__ void __launch_bounds__(kThreads)
    attention_fwd_flash_wgmma_ov_kernel(AttentionArgs a, FlashScratch fs, float* out, float* lse) {
  using Sm = WgFwdSmem<D, PE, 1>;
  constexpr int DQ = Sm::DQ, NS = kTileK / 8, NO = D / 8;
  extern __shared__ unsigned char smem_raw[];
  const Sm sm(smem_raw);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int g = lane >> 2, c2 = 2 * (lane & 3);
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * kBlockQ, T = a.T;
  const float slope = a.slopes ? a.slopes[h] : 0.f;
  const int key_start = a.key_start ? a.key_start[b] : 0;
  const int r0 = w * kRows;
  auto copy_keys = [&](int tile, int buf) {
    copy_rows_sw128<DQ, kTileK>(sm.K(buf), fs.K + fs.row(b, h, tile * kTileK) * DQ);
  };
  auto copy_values = [&](int tile, int buf) {
    copy_rows_sw128<D, kTileK>(sm.V(buf), fs.V + fs.row(b, h, tile * kTileK) * D);
  };
  const int tiles = key_tiles_of(q0, T);
  // The queries, tile 0's keys and values and tile 1's keys, as one group.
  copy_rows_sw128<DQ, kBlockQ>(sm.Q(0), fs.Q + fs.row(b, h, q0) * DQ);
  copy_keys(0, 0);
  copy_values(0, 0);
  if (tiles > 1) copy_keys(1, 1);
  async_copy::commit();
  int t_row[2], first[2];
  lane_rows(a, b, q0, r0, g, t_row, first);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, corr[2];
  mma::Acc o[NO];  // O: the warp's (16, D), as (16, 8) tiles; wgmma's (64, D) accumulator
  auto& of = reinterpret_cast<float(&)[D / 2]>(o);
  const int warp_last_row = warp_last_row_of(q0, r0, T);
  auto softmax = [&](mma::Acc (&s)[NS], int tile) {
    const int k0 = tile * kTileK;
    online_softmax_corr(whole_tile(k0, q0 + r0, warp_last_row, key_start), s, m, l, corr, t_row, first, k0, c2, T,
                        slope);
  };
  async_copy::wait<0>();
  wg::fence_proxy_async();
  __syncthreads();
  mma::Acc s[NS];  // S, then P, of the tile whose values O takes next: the warp's (16, 64)
  auto& sf = reinterpret_cast<float(&)[kTileK / 2]>(s);
  wg::fence();
  rows_times_keys<DQ>(sf, sm.Q(0), sm.K(0));
  wg::commit();
  wg::wait<0>();
  wg::fence_operands(sf);
  softmax(s, 0);
  rescale_rows(o, corr);  // as the one-group kernel does (O is still 0)

  // Iteration it; kNext: a tile follows (every iteration but the last, which is peeled off so that
  // no branch sits between the fence and the products: ptxas then injects waits that serialise
  // them, its C7519 and C7514 notes).
  auto iteration = [&](int it, auto kNext) {
    constexpr bool next = decltype(kNext)::value;
    // Every warp is done with K_it (S_it was waited for) and V_{it-1} (O's product was).
    __syncthreads();
    if (it + 2 < tiles) copy_keys(it + 2, it & 1);
    if (next) copy_values(it + 1, (it + 1) & 1);
    async_copy::commit();
    async_copy::wait<1>();  // the previous iteration's group (or the first): K_{it+1} and V_it
    wg::fence_proxy_async();
    __syncthreads();
    // P_it packed before the fence: a register written between the two products would make ptxas
    // serialise them (attention_flash_wgmma_tile.cuh).
    mma::FragA p[kTileK / 16];
    pack_keys_operand<kTileK>(p, s);
    mma::Acc sn[NS];  // S of tile it + 1
    auto& snf = reinterpret_cast<float(&)[kTileK / 2]>(sn);
    wg::fence();
    if constexpr (next) {
      rows_times_keys<DQ>(snf, sm.Q(0), sm.K((it + 1) & 1));
      wg::commit();
    }
    keys_times<D, kTileK>(of, p, sm.V(it & 1));
    wg::commit();
    if constexpr (next) {
      wg::wait<1>();  // S_{it+1}; O's product may still run
      wg::fence_operands(snf);
      softmax(sn, it + 1);
    }
    wg::wait<0>();
    wg::fence_operands(of);
    if constexpr (next) {
      rescale_rows(o, corr);
#pragma unroll
      for (int n = 0; n < NS; ++n) s[n] = sn[n];
    }
  };
  for (int it = 0; it + 1 < tiles; ++it) iteration(it, std::true_type{});
  iteration(tiles - 1, std::false_type{});

  out_rows<D>(o, m, l, t_row, a, b, h, c2, lane, out, lse);
}

// Which forward attention_fwd runs, measured on one H100 at T 1,024-16,384 (bench/log/039, 040).
// Two warpgroups a block where the one-group kernel's shared memory leaves room for one block (4
// warps) an SM, so a block of 8 warps doubles the warps that hide each other's waits: PoPE at D
// 128 (129 KB a block; two groups 1.38 against 1.80 ms at T 4096, 4.27 against 5.91 at 16,384;
// Nsight: 12.5 % occupancy against 6.25 %). Elsewhere two groups were 4-16 % slower for none and
// RoPE and 1-2 % for PoPE at D 64, so one group a block, with each tile's softmax under the next
// products (040) where that pays:
// - D 128 (none, RoPE): both one-group kernels hold 2 blocks an SM (shared memory), so the overlap
//   costs no block and takes 6-9 % off (none 1.015 -> 0.953 ms at T 4096, 3.065 -> 2.820 at 16,384);
// - D 64, PoPE: both hold 3 blocks an SM (150 and 158 registers), so again no block lost: 3-4 %
//   off (0.734 -> 0.708 ms at T 4096, 2.288 -> 2.189 at 16,384);
// - D 64, none and RoPE: 144 registers against 126 cost a block (3 an SM against 4), which costs
//   what the overlap gains: 2 % slower (0.568 -> 0.581 ms at T 4096; Nsight at T 4096: 429 against
//   437 us in the kernel, both at 64 % of the issue slots), so the plain one-group kernel;
// - D 64, ALiBi (none's kernels with a slope term in each tile's softmax, more to hide): despite
//   the lost block 2-6 % off (0.623 -> 0.612 ms at T 4096, 2.034 -> 1.916 at 16,384).
// An SM of compute capability 9.0 has 228 KB of shared memory, of which each block reserves 1 KB.
constexpr size_t kSmemPerSm = 228 * 1024, kSmemReservedPerBlock = 1024;
template <int D, PEKind PE>
constexpr WgFwdKernel fwd_kernel(bool alibi) {
  if (2 * (WgFwdSmem<D, PE, 1>::bytes + kSmemReservedPerBlock) > kSmemPerSm) return WgFwdKernel::kTwoGroups;
  if (D == 128 || PE == PEKind::kPope || alibi) return WgFwdKernel::kOverlapped;
  return WgFwdKernel::kOneGroup;
}
static_assert(fwd_kernel<128, PEKind::kPope>(false) == WgFwdKernel::kTwoGroups &&
                  fwd_kernel<128, PEKind::kNone>(false) == WgFwdKernel::kOverlapped &&
                  fwd_kernel<128, PEKind::kRope>(false) == WgFwdKernel::kOverlapped &&
                  fwd_kernel<64, PEKind::kPope>(false) == WgFwdKernel::kOverlapped &&
                  fwd_kernel<64, PEKind::kNone>(true) == WgFwdKernel::kOverlapped &&
                  fwd_kernel<64, PEKind::kNone>(false) == WgFwdKernel::kOneGroup &&
                  fwd_kernel<64, PEKind::kRope>(false) == WgFwdKernel::kOneGroup,
              "bench/log/039's and 040's measured choice");

template <int D, PEKind PE, int kGroups, bool kOverlap = false>
void launch_fwd(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s) {
  static_assert(!kOverlap || kGroups == 1, "the overlapped forward has one warpgroup a block");
  static DeviceOnce once;
  constexpr size_t bytes = WgFwdSmem<D, PE, kGroups>::bytes;
  constexpr auto kernel = kOverlap      ? attention_fwd_flash_wgmma_ov_kernel<D, PE>
                          : kGroups == 1 ? attention_fwd_flash_wgmma_kernel<D, PE>
                                         : attention_fwd_flash_wgmma_2g_kernel<D, PE>;
  once.run([&] {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  });
  write_flash_copies(a, qkv, nullptr, nullptr, nullptr, s);
  const dim3 grid((a.T + kBlockQ * kGroups - 1) / (kBlockQ * kGroups), a.H, a.B);
  kernel<<<grid, kThreads * kGroups, bytes, s>>>(a, flash_scratch_of(a), out, lse);
  CUDA_CHECK_LAUNCH("attention_fwd_flash_wgmma");
}

}  // namespace

bool flash_wgmma_runs(const AttentionArgs& a) { return (a.D == 64 || a.D == 128) && wg::device_runs_wgmma(); }

void attention_fwd_flash_wgmma(const AttentionArgs& a, const float* qkv, float* out, float* lse, cudaStream_t s,
                               WgFwdKernel kernel) {
  if (!flash_wgmma_runs(a))
    throw CudaError("flash attention on warpgroup products: needs a compute capability 9.0 GPU and head dim 64 or "
                    "128 (got head dim " + std::to_string(a.D) + ")");
  for_head_dim_and_pe(std::integer_sequence<int, 64, 128>{}, a, "flash attention (wgmma)", [&](auto d, auto pe) {
    constexpr int Dv = decltype(d)::value;
    constexpr PEKind PEv = decltype(pe)::value;
    const WgFwdKernel k = kernel == WgFwdKernel::kChosen ? fwd_kernel<Dv, PEv>(a.slopes != nullptr) : kernel;
    if (k == WgFwdKernel::kTwoGroups)
      launch_fwd<Dv, PEv, 2>(a, qkv, out, lse, s);
    else if (k == WgFwdKernel::kOverlapped)
      launch_fwd<Dv, PEv, 1, true>(a, qkv, out, lse, s);
    else
      launch_fwd<Dv, PEv, 1>(a, qkv, out, lse, s);
  });
}

}  // namespace popebench::cuda::attn
