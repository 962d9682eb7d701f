// Every option of a run's config, declared once: its flag, the field it sets, its JSON key, its
// help, the range its flag accepts or the words it takes, and what a run JSON written before the
// option existed holds. The CLI's flags (cli/run_options.cpp), the config's JSON and its reading
// (the sections' to_json and from_json, defined with the tables, and so --print-config and every
// run JSON) and the check of every word option's value (require_option_words, config/config.hpp)
// come from these tables. A new option is a field in config/config.hpp and a row
// here (docs/adding.md); rules that tie options together stay in the configs' validate().
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/choices.hpp"
#include "config/config.hpp"

namespace popebench {

// The field of section S (ModelConfig, PEConfig, ...) an option sets.
template <class S>
using OptionField = std::variant<int S::*, int64_t S::*, uint64_t S::*, double S::*, bool S::*, std::string S::*,
                                 std::vector<int> S::*>;

// A word option whose JSON spelling is not its flag's (the JSON's predates the flag): pairs of
// {flag value, JSON value}.
using Spellings = std::vector<std::pair<std::string, std::string>>;

struct IntegerRange {
  long long lo, hi;  // what the flag accepts (the config's validate() also checks a file's value)
};

template <class S>
struct OptionDecl {
  const char* flag;  // "--layers"; nullptr: JSON only (a value derived from the task)
  const char* key;   // its key in the section's JSON object
  OptionField<S> field;
  // The flag's help; for a word option, what it sets, which the words and their help follow
  // (then help_after, if any).
  std::string help;
  const Choices* words = nullptr;
  std::optional<IntegerRange> range;
  // What a JSON without the key means (the option did not exist when it was written); null: the
  // key is required.
  nlohmann::json absent = nullptr;
  // Written only when it differs from `absent`, so that every run made before the option keeps
  // the JSON it had (results/same_bits.py compares reruns with committed runs).
  bool only_when_set = false;
  const Spellings* spellings = nullptr;
  std::string help_after;
  // A flag only where a command trains one run (`train`): --pe and --seed, which sweeps set.
  bool per_run = false;
  // The words are the PE registry's kinds (listed by the CLI, which knows the registry).
  bool pe_kinds = false;
};

const std::vector<OptionDecl<ModelConfig>>& model_options();
const std::vector<OptionDecl<PEConfig>>& pe_options();
const std::vector<OptionDecl<OptimConfig>>& optim_options();
const std::vector<OptionDecl<InputConfig>>& input_options();
const std::vector<OptionDecl<TrainConfig>>& train_options();

// The help of a word option: help, the words with theirs, help_after.
template <class S>
std::string option_help(const OptionDecl<S>& d) {
  return d.words ? d.help + d.words->help() + d.help_after : d.help + d.help_after;
}

}  // namespace popebench
