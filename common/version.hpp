#pragma once
namespace popebench {
inline constexpr const char* kPopebenchVersion = "0.1.0";
// Written at every build by cmake/git_commit.cmake: the source tree's commit (git rev-parse HEAD,
// "-dirty" when tracked files differ from it, "unknown" outside git) and the compiler.
const char* git_commit();
const char* compiler_id();
}  // namespace popebench
