#include "cli/command_line.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/error.hpp"
#include "report/extrapolation.hpp"

namespace popebench::cli {

CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& x) -> std::string {
        const std::string range = "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        if (x.empty() || x.find_first_not_of("0123456789", x[0] == '-' || x[0] == '+' ? 1 : 0) != std::string::npos ||
            x == "-" || x == "+")
          return range + " (got '" + x + "')";
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(x.c_str(), &end, 10);
        if (errno == ERANGE || v < lo || v > hi) return range + " (got " + x + ")";
        return std::string();
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& x) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(x.c_str(), &end);
        if (x.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return "must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got '" + x + "')";
        return std::string();
      },
      "NUMBER");
}

const CLI::Validator& non_empty() {
  static const CLI::Validator v(
      [](std::string& x) { return x.find_first_not_of(", ") == std::string::npos ? std::string("is empty") : std::string(); },
      "NON-EMPTY");
  return v;
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

std::string prescan_option(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == name && i + 1 < argc) return argv[i + 1];
    if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
  }
  return "";
}

std::vector<std::string> split_list(const std::string& s, const std::string& what) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw UserError(what + ": an empty item in '" + s + "'");
    out.push_back(item);
  }
  if (s.back() == ',') throw UserError(what + ": an empty item in '" + s + "'");  // getline drops the last one
  return out;
}

namespace {
long long parse_nonneg(const std::string& s, const std::string& what) {
  try {
    size_t pos;
    long long v = std::stoll(s, &pos);
    if (pos != s.size() || v < 0) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw UserError(what + ": '" + s + "' is not a non-negative integer");
  }
}
}  // namespace

std::vector<uint64_t> parse_seeds(const std::string& s) {
  std::vector<uint64_t> out;
  for (const auto& item : split_list(s, "--seeds")) {
    const auto seed = static_cast<uint64_t>(parse_nonneg(item, "--seeds"));
    // a repeated seed would be one run counted twice in the summary (report/summary_rule.hpp)
    if (std::find(out.begin(), out.end(), seed) != out.end()) throw UserError("--seeds: " + item + " is listed twice");
    out.push_back(seed);
  }
  if (out.empty()) throw UserError("--seeds is empty");
  return out;
}

std::vector<std::string> parse_distinct_list(const std::string& s, const std::string& what) {
  std::vector<std::string> out = split_list(s, what);
  if (out.empty()) throw UserError(what + " is empty");
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i] == out[j]) throw UserError(what + ": " + out[i] + " is listed twice");
  return out;
}

std::vector<RopeScaling> parse_rope_variants(const std::string& s) {
  return s == "none" ? std::vector<RopeScaling>{} : rope_variants_from(parse_distinct_list(s, "--rope-variants"));
}

std::vector<int> parse_int_list(const std::string& s, const std::string& what) {
  std::vector<int> out;
  for (const auto& item : split_list(s, what)) {
    long long v = parse_nonneg(item, what);
    if (v > 1000000) throw UserError(what + ": '" + item + "' is too large");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

}  // namespace popebench::cli
