// File helpers shared by datasets, checkpoints and run JSON: every output is written to a
// temporary name in the same directory and renamed when complete, so an interrupted job never
// leaves a half-written file under the final name.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace popebench {

// Errors meant for the user: the CLI prints what() on one line and exits non-zero.
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
// Whether two paths name the same file (after resolving "." and ".." and links that exist).
bool same_path(const std::string& a, const std::string& b);
bool file_exists(const std::string& path);
void make_dirs(const std::string& path);

}  // namespace popebench
