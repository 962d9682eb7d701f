// Diagnostics of a trained model (`popebench inspect`). Of an Indirect Indexing model: what it gets
// right and where it looks, not only how often it is right; of every model: which frequencies its
// attention uses. Computed with the CPU reference model from a checkpoint's parameters, on a split
// of the run's own data.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/dataset.hpp"
#include "config/config.hpp"

namespace popebench {

// One Indirect Indexing example read back from its tokens ("string,source,shift,target").
struct ParsedExample {
  int str_len = 0;     // letters before the first ','
  int source_pos = 0;  // index in the string of the source letter
  int shift = 0;
  int target_pos = 0;  // source_pos + shift
  int query_pos = 0;   // token index of the source letter after the first ','
  int shift_begin = 0, shift_end = 0;  // token range [begin, end) of the shift's sign and digits
  int target = 0;      // token id of the answer
};
// Throws UserError when the tokens are not an Indirect Indexing example.
ParsedExample parse_indirect_indexing(const uint16_t* seq, int length);

// The partial solution a prediction matches (tools/plateau_levels.py's
// classes): "correct"; "source, right sign" (a letter another shift of the same sign reaches
// from the source); "source, wrong sign" (reached by a shift of the other sign); "other letter of
// the string"; "not in the string".
std::string prediction_class(const uint16_t* seq, const ParsedExample& e, int prediction, int max_shift);

struct InspectOptions {
  size_t examples = 0;  // the split's first N examples (0: all)
  int show = 20;        // examples listed with their predictions
  int batch = 256;
};

// One inspected example and what the model predicted for it (`inspect --predictions`).
struct PredictionRow {
  size_t index = 0;         // in the split
  std::string example;      // its text, "string,source,shift,target"
  int str_len = 0, source_pos = 0, shift = 0;
  std::string target, prediction, cls;  // cls: prediction_class
};
// The rows as CSV, a header first (results/SCHEMA.md, "inspect --predictions").
std::string predictions_csv(const std::vector<PredictionRow>& rows);

// The diagnostics JSON (results/SCHEMA.md, "popebench.inspect"): accuracy by shift, string length
// and source position; per layer and head the attention mass from the answer position on the
// source letter, the target, the target's neighbours, the query and the shift tokens, and from
// the query letter's position on the source letter and the target; PoPE's
// delta per layer; the prediction classes; `show` examples.
// predictions != nullptr: every inspected example's row, in the split's order.
nlohmann::json inspect_model(const RunConfig& cfg, const std::vector<float>& params, const Dataset& d,
                             const InspectOptions& o, std::vector<PredictionRow>* predictions = nullptr);

// What inspect measures of a model of any task: PoPE's delta per layer and which frequencies
// attention uses (report/frequency_usage.hpp), over the split's first o.examples records (0: all),
// and the records counted, n. The section of inspect_model's JSON with the same names.
nlohmann::json inspect_frequencies(const RunConfig& cfg, const std::vector<float>& params, const Dataset& d,
                                   const InspectOptions& o);

}  // namespace popebench
