#include "train/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace popebench {

double lr_at(const OptimConfig& o, int64_t step, int64_t total_steps) {
  if (step < o.warmup_steps) return o.lr * double(step + 1) / double(o.warmup_steps);
  int64_t decay = total_steps - o.warmup_steps;
  if (decay <= 0) return o.lr;
  double p = std::min(1.0, double(step - o.warmup_steps) / double(decay));
  return o.lr_min + 0.5 * (o.lr - o.lr_min) * (1.0 + std::cos(M_PI * p));
}

}  // namespace popebench
