// Integers read from JSON files a user hands to popebench (configs, manifests, run JSON,
// checkpoints). nlohmann's own conversion turns a float into an int by a plain cast, which is
// undefined behaviour out of range ("format_version": 1.5e73, found by fuzz_manifest); these
// refuse a float, another type or an out-of-range value with a json type_error, which every
// reader already turns into a one-line error naming its file.
#pragma once
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace popebench {

template <typename I>
I json_int(const nlohmann::json& v, const std::string& what) {
  bool ok = false;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    ok = u <= static_cast<uint64_t>(std::numeric_limits<I>::max());
  } else if (v.is_number_integer()) {
    const auto s = v.get<int64_t>();
    ok = std::numeric_limits<I>::is_signed ? s >= static_cast<int64_t>(std::numeric_limits<I>::min()) &&
                                                  s <= static_cast<int64_t>(std::numeric_limits<I>::max())
                                            : s >= 0;
  }
  if (!ok) throw nlohmann::json::type_error::create(302, what + " must be an integer in range (got " + v.dump() + ")", nullptr);
  return v.get<I>();
}

// The integer field `key` of object j (json out_of_range when it is missing).
template <typename I>
I json_int(const nlohmann::json& j, const char* key) {
  return json_int<I>(j.at(key), std::string(key));
}

}  // namespace popebench
