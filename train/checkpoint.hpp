// A checkpoint: the run's config, step, batch-sampler state, parameters, AdamW moments and the
// learning curve so far, in one file (layout: save_checkpoint in checkpoint.cpp), written atomically.
// Loading verifies magic, version, sizes and checksum; resuming also verifies the config.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"

namespace popebench {

struct Checkpoint {
  nlohmann::json config;  // RunConfig
  nlohmann::json extra;   // curve, timing, anything the loop needs to continue
  int64_t step = 0;       // optimizer steps done
  uint64_t rng_state = 0, rng_inc = 0;
  std::vector<float> params, m, v;
};

void save_checkpoint(const std::string& path, const Checkpoint& c);
Checkpoint load_checkpoint(const std::string& path);  // throws UserError
// The checkpoint's config, read and validated like any input, and checked against the parameter
// count it holds (before anything of the config's size is allocated). Throws UserError naming path.
RunConfig checkpoint_run_config(const Checkpoint& c, const std::string& path);

}  // namespace popebench
