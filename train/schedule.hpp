// The learning-rate schedule, one for every backend: the trainer asks it each step.
#pragma once
#include <cstdint>

#include "config/config.hpp"

namespace popebench {

// Learning rate at a step (0-based): linear warmup to lr over warmup_steps, then cosine to
// lr_min at total_steps.
double lr_at(const OptimConfig& o, int64_t step, int64_t total_steps);

}  // namespace popebench
