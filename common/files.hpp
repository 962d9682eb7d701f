// File helpers shared by datasets, checkpoints and run JSON: every output is written to a
// temporary name in the same directory and renamed when complete, so an interrupted job never
// leaves a half-written file under the final name.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"  // what these helpers throw

namespace popebench {

// 64-bit FNV-1a: simple, fully specified, fast enough for the sizes here (~1 GB/s).
uint64_t fnv1a64(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull);
std::string hex64(uint64_t v);

// Writes `content` to `path` atomically (tmp file + fsync-free rename). Refuses a path that
// exists and is not a regular file (a device node, a folder): the rename would replace it.
void write_file_atomic(const std::string& path, std::string_view content);
// Reads a whole regular file; anything else (a folder, a device, a FIFO: possibly endless) is
// refused with a UserError.
std::string read_file(const std::string& path);
// Copies a regular file to `to` through a temporary beside it and a rename, as write_file_atomic.
void copy_file_atomic(const std::string& from, const std::string& to);
// Checks, before any work, that `path` can take an output file: not empty, not a folder name, a
// regular file or a new name, in a folder that exists and is writable or can be created. `what`
// names the option in the message (e.g. "--out").
void check_output_path(const std::string& path, const std::string& what);
// Whether two paths name the same file: by identity (device and inode) where both exist, so that
// "./r.json" and "r.json", a symbolic link and a hard link all count; else by the spelling once
// ".", ".." and the links that exist are resolved (two outputs not made yet).
bool same_file(const std::string& a, const std::string& b);
// A path and the option or role that names it in messages ("--out", "the checkpoint").
struct NamedPath {
  std::string path, what;
};
// One rule for every command, checked before any work: no output may be the same file as an
// input, or as another output. Empty paths (an output not asked for) are skipped.
void refuse_outputs_over_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);
bool file_exists(const std::string& path);
void make_dirs(const std::string& path);

}  // namespace popebench
