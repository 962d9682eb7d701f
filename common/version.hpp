#pragma once
namespace popebench {
inline constexpr const char* kPopebenchVersion = "0.1.0";
// Filled in by CMake at configure time (git describe of the source tree, "unknown" outside git).
const char* git_commit();
const char* compiler_id();
}  // namespace popebench
