// A sweep plan file (docs/sweep_format.md) read as a structure: the preset, the plan's args and
// its cells (name, args, PEs, seeds), every field checked for type, the names for what a folder
// can be called, and no repeated PE, seed or cell. What the args mean (each cell's run options
// over the preset) is cmd_sweep.cpp's, so this reader needs no model and is fuzzed on its own
// (fuzz/fuzz_plan.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace popebench::cli {

struct PlanCell {
  std::string name;
  std::vector<std::string> args;  // the plan's args, then the cell's
  std::vector<std::string> pes;   // checked against the PEs popebench has
  std::vector<uint64_t> seeds;
};
struct Plan {
  std::string name;    // the plan's name, or its path
  std::string preset;  // default "paper"
  std::vector<PlanCell> cells;
};

// `path` names the plan in errors. A UserError on anything else than docs/sweep_format.md allows.
Plan parse_plan(const nlohmann::json& plan, const std::string& path);
Plan read_plan_file(const std::string& path);

// A cell's folder name: 1-100 letters, digits, '_', '.', '-', starting with a letter or digit.
bool is_folder_name(const std::string& s);

}  // namespace popebench::cli
