// The attention kernels' positional modes, one enum for both sides: the PE registry says which
// mode each PE takes on the GPU (model/pe/pe_registry.hpp's GpuPE), the CUDA kernels are
// instantiated per mode (kernels/cuda/kernels.hpp's AttentionArgs). Plain C++: CPU-only builds
// compile the registry too.
#pragma once

namespace popebench::cuda {

// kRope rotates q and k in half-split pairs (n_rot channels); kPope builds [mu cos, mu sin] with
// the key phase delta; kNone leaves them as they are (ALiBi's slopes and the absolute tables are
// applied elsewhere, with any mode).
enum class PEKind : int { kNone = 0, kRope = 1, kPope = 2 };

}  // namespace popebench::cuda
