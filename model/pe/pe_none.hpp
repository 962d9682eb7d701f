// NoPE: no positional signal; the causal mask alone orders the sequence. q and k pass through
// (the interface's default).
#pragma once
#include "model/pe/positional.hpp"

namespace popebench {

template <typename T>
class NoPE final : public PositionalEmbedding<T> {
 public:
};

}  // namespace popebench
