// Every option of a run's config, declared once: its flag, the field it sets, its JSON key, its
// help, the range its flag accepts or the words it takes, and what a run JSON written before the
// option existed holds. The CLI's flags (cli/run_options.cpp) and the config's JSON and its
// reading (the sections' to_json and from_json, defined with the tables, and so --print-config
// and every run JSON) come from these tables. A word option's field is an enum (config/choices.hpp)
// from the moment its word is read, which the flag and the JSON check. A new option is a field in
// config/config.hpp and a row here (docs/adding.md); rules that tie options together stay in the
// configs' validate().
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

// A word option's field, an enum E of config/choices.hpp, seen through its words: what the CLI
// and the JSON read and write.
template <class S>
struct WordField {
  const Choices* words;
  std::string (*get)(const S&);
  void (*set)(S&, const std::string&);  // UserError "unknown <what> 'x' (known: ...)"
};
template <class T>
struct MemberOf;
template <class S, class E>
struct MemberOf<E S::*> {
  using Section = S;
  using Type = E;
};
// The WordField of an enum member: word_field<&InputConfig::pad>().
template <auto Member>
WordField<typename MemberOf<decltype(Member)>::Section> word_field() {
  using S = typename MemberOf<decltype(Member)>::Section;
  using E = typename MemberOf<decltype(Member)>::Type;
  return {&choices_of(E{}), [](const S& s) { return word(s.*Member); },
          [](S& s, const std::string& v) { s.*Member = choices_of(E{}).parse(v); }};
}

// The field of section S (ModelConfig, PEConfig, ...) an option sets.
template <class S>
using OptionField = std::variant<int S::*, int64_t S::*, uint64_t S::*, double S::*, bool S::*, std::string S::*,
                                 std::vector<int> S::*, WordField<S>>;

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
  std::optional<IntegerRange> range;
  // What a JSON without the key means (the option did not exist when it was written); null: the
  // key is required.
  nlohmann::json absent = nullptr;
  // Written only when it differs from `absent`, so that every run made before the option keeps
  // the JSON it had (tools/same_bits.py compares reruns with committed runs).
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

// A word option's words, or nullptr.
template <class S>
const Choices* option_words(const OptionDecl<S>& d) {
  const auto* w = std::get_if<WordField<S>>(&d.field);
  return w ? w->words : nullptr;
}

// The help of a word option: help, the words with theirs, help_after.
template <class S>
std::string option_help(const OptionDecl<S>& d) {
  const Choices* words = option_words(d);
  return words ? d.help + words->help() + d.help_after : d.help + d.help_after;
}

}  // namespace popebench
