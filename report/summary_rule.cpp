#include "report/summary_rule.hpp"

#include "common/error.hpp"
#include "config/config.hpp"

namespace popebench {

namespace {
nlohmann::json normalized_or_as_written(const nlohmann::json& config) {
  try {
    return normalized_config(config);
  } catch (const std::exception&) {
    return config;  // not a config this version reads: compared as written
  }
}
}  // namespace

nlohmann::json run_pe_config(const nlohmann::json& config) {
  nlohmann::json c = normalized_or_as_written(config);
  return c.is_object() && c.contains("pe") ? c["pe"] : nlohmann::json();
}

nlohmann::json shared_run_config(const nlohmann::json& config) {
  nlohmann::json c = normalized_or_as_written(config);
  if (!c.is_object()) return c;
  c.erase("pe");
  if (c.contains("train") && c["train"].is_object()) c["train"].erase("seed");
  return c;
}

void SummaryRows::add_seed(const std::string& label, uint64_t seed, const std::string& source) {
  auto [it, fresh] = seen_.insert({{label, seed}, source});
  if (!fresh)
    throw UserError(label + " seed " + std::to_string(seed) + " is in more than one input (" + it->second + " and " +
                    source + "): a table counts each run once");
}

void SummaryRows::add(const std::string& label, uint64_t seed, const nlohmann::json& pe_config,
                      const nlohmann::json& shared_config, const std::string& source) {
  if (shared_source_.empty()) {
    shared_ = shared_config;
    shared_source_ = source;
  } else if (shared_config != shared_) {
    throw UserError(source + " and " + shared_source_ +
                    " were made with different settings (config beyond PE and seed, or the text corpus): one table holds runs of one setting");
  }
  auto [it, fresh] = pe_.insert({label, {pe_config, source}});
  if (!fresh && it->second.first != pe_config)
    throw UserError(source + " and " + it->second.second + " are both " + label +
                    " runs with different PE settings: a row holds runs that differ only in seed");
  add_seed(label, seed, source);
}

}  // namespace popebench
