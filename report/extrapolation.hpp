// Length extrapolation (SPEC §5): a model trained at lengths up to L is evaluated, with no
// fine-tuning, on buckets of longer examples: bucket k holds lengths ((k-1) L, k L] (k = 1: the
// training range itself). RoPE runs are also evaluated with test-time frequency scaling (position
// interpolation, NTK), which changes no parameter.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/task.hpp"
#include "config/config.hpp"

namespace popebench {

struct ExtrapolationConfig {
  std::vector<int> factors = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // bucket k: lengths ((k-1) L, k L]
  int64_t examples = 1000;                                     // test examples per bucket
  // Extra rows for every rope/rope-half run (yarn: rope only); never RopeScaling::kNone, the row
  // every run has.
  std::vector<RopeScaling> rope_variants = {RopeScaling::kPi, RopeScaling::kNtk};
  // > 0: L, the length the factors multiply, instead of the training max length (the first
  // bucket then runs from the training range's start, or is L alone where that start lies beyond L). A model
  // fine-tuned at 4 L is evaluated at its base model's lengths (`eval --factor-of`).
  int base_len = 0;
  // The GPU attention's products for the evaluations, e.g. bf16 for the flash kernels at 10x a
  // long training length; unset: as each run was trained. Recorded only when set, so earlier
  // evaluations keep their cache keys.
  std::optional<GpuAttention> gpu_attention;
  void validate() const;
};
void to_json(nlohmann::json& j, const ExtrapolationConfig& c);
// --rope-variants' words (already split, each once) as ExtrapolationConfig holds them; a
// UserError on a word other than pi, ntk and yarn ("none" stands alone, for no extra rows, and
// is the CLI's to read: cli/command_line.hpp's parse_rope_variants).
std::vector<RopeScaling> rope_variants_from(const std::vector<std::string>& words);

struct Bucket {
  int factor;
  TaskConfig task;  // the training task with this bucket's length range; n_test = examples
  uint64_t seed;    // data seed of its examples: derive_seed(data seed, 1000 + factor)
};
std::vector<Bucket> make_buckets(const TaskConfig& train, uint64_t data_seed, const ExtrapolationConfig& e);
// Longest model input over the buckets: the model is built for it (learned/sinusoidal tables).
int longest_input(const std::vector<Bucket>& buckets);
// The buckets as the extrapolation JSON records them: factor, lengths, longest input, examples, data seed.
nlohmann::json buckets_json(const std::vector<Bucket>& buckets);

// The rows to evaluate for one trained run: its own PE (RopeScaling::kNone), plus each rope
// variant for rope runs (each row labelled by model/pe/label.hpp's pe_label).
std::vector<RopeScaling> scalings_for(const PEConfig& pe, const ExtrapolationConfig& e);

// Evaluates trained parameters on every bucket with the given test-time scaling (the factor of
// each bucket = its longest input / the training task's). Returns {label, scaling, factors,
// rope_factor[], acc[], loss[], n[]}.
nlohmann::json evaluate_buckets(const RunConfig& run, const std::vector<float>& params, const std::vector<Bucket>& buckets,
                                RopeScaling scaling, DeviceChoice device);

// Mean and sample std over seeds of each label's accuracy per bucket. rows: evaluate_buckets
// results, each with "seed" added.
// Checks an extrapolation table read from a file against what `extrapolate` writes, before anything
// reads it: schema and version, buckets with whole factors >= 1 in increasing order, and rows of
// a known PE label, a seed, one accuracy in [0, 1], a finite loss and a count per bucket. A
// UserError naming `what` otherwise (a table from elsewhere once printed "inf ± -nan").
void check_extrapolation_doc(const nlohmann::json& doc, const std::string& what);
// "bits_per_byte" when every row has it (the text task), else "acc": what the table summarises.
std::string extrapolation_metric(const std::vector<nlohmann::json>& rows);
nlohmann::json summarise_extrapolation(const std::vector<nlohmann::json>& rows);
std::string extrapolation_markdown(const nlohmann::json& table);
// The line above that table in extrapolation.md: the task, its training lengths, the seeds per
// PE, the chance level and the examples per bucket, from an extrapolation document (its "task",
// "chance", "table" and "buckets").
std::string extrapolation_heading(const nlohmann::json& doc);

}  // namespace popebench
