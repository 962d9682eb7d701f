// The provenance every JSON the suite writes carries (results/SCHEMA.md "environment").
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace popebench {

// popebench version, git commit, compiler, device, threads, host, time, command.
// gpu_index >= 0 adds "gpu_index" (which GPU of the machine ran it).
nlohmann::json environment_json(const std::string& device, int threads, const std::string& command, int gpu_index = -1);

}  // namespace popebench
