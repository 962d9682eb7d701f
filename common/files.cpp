#include "common/files.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace popebench {

uint64_t fnv1a64(const void* data, size_t n, uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void copy_file_atomic(const std::string& from, const std::string& to) {
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::copy_file(from, tmp, std::filesystem::copy_options::overwrite_existing, ec);
  if (!ec) std::filesystem::rename(tmp, to, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError("cannot copy " + from + " to " + to + ": " + ec.message());
  }
}

// PATH.tmp.PID files that an earlier process, now gone, was writing when it was killed (a
// SIGINT during `generate` left one of hundreds of MB, which the rerun, under another PID, kept).
// A temporary of a process still alive is left alone: it may be writing the same path now.
static void remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp.";
  std::error_code ec;
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const long n = std::stol(pid);
    if (n != ::getpid() && ::kill(static_cast<pid_t>(n), 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
  }
}

void write_file_atomic(const std::string& path, std::string_view content) {
  remove_stale_temporaries(path);
  {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
      throw UserError("cannot write " + path + ": it exists and is not a regular file");
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw UserError("cannot write " + path + ": cannot create " + tmp);
    f.write(content.data(), static_cast<std::streamsize>(content.size()));
    f.flush();
    if (!f) {
      f.close();
      std::remove(tmp.c_str());
      throw UserError("cannot write " + path + " (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError("cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw UserError("cannot read " + path + ": not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError("cannot read " + path + ": no such file or not readable");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

void check_output_path(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  if (path.empty()) throw UserError(what + " is empty");
  if (path.back() == '/' || fs::path(path).filename() == "." || fs::path(path).filename() == "..")
    throw UserError(what + " " + path + " names a folder, not a file");
  // Linux's limits (NAME_MAX, PATH_MAX): past them the file cannot be made, found after the work.
  if (path.size() >= 4096) throw UserError(what + ": the path is longer than 4095 bytes");
  for (const auto& part : fs::path(path))
    if (part.native().size() > 255)
      throw UserError(what + ": a name in the path is longer than 255 bytes (" + part.native().substr(0, 40) + "...)");
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw UserError(what + " " + path + " exists and is not a regular file");
  // The nearest folder that exists must be a writable folder (the rest can be created). A
  // relative path whose first folder does not exist yet ("runs/a/b.json") ends the walk at the
  // working folder, which is where that first folder will be made.
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  while (!fs::exists(dir, ec)) {
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      if (dir.is_relative()) dir = ".";
      break;
    }
    dir = dir.parent_path();
  }
  if (!fs::is_directory(dir, ec)) throw UserError(what + " " + path + ": " + dir.string() + " is not a folder");
  if (::access(dir.c_str(), W_OK) != 0) throw UserError(what + " " + path + ": cannot write in " + dir.string());
}

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  std::error_code ea, eb;
  const auto ca = fs::weakly_canonical(fs::absolute(a, ea), ea), cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  return !ea && !eb ? ca == cb : a == b;
}

void refuse_outputs_over_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& o = outputs[i];
    if (o.path.empty()) continue;
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(o.path, in.path))
        throw UserError(o.what + " " + o.path + " is " + in.what + " (" + in.path + "): an output must not replace an input");
    for (size_t k = 0; k < i; ++k)
      if (!outputs[k].path.empty() && same_file(o.path, outputs[k].path))
        throw UserError(o.what + " " + o.path + " and " + outputs[k].what + " " + outputs[k].path + " are the same file");
  }
}

void make_dirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw UserError("cannot create directory " + path + ": " + ec.message());
}

}  // namespace popebench
