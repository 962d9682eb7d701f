// An in-memory dataset: fixed-width, right-padded token sequences. Every task in popebench has
// the same contract: the model reads tokens [0, len-1) and must predict the last token, so the
// answer is read at position len-2 (the last ',' in every task's format).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace popebench {

// The three splits of a task; each is drawn from its own random stream (make_stream).
enum class Split { kTrain = 0, kVal = 1, kTest = 2 };
inline const char* split_name(Split s) {
  switch (s) {
    case Split::kTrain: return "train";
    case Split::kVal: return "val";
    case Split::kTest: return "test";
  }
  return "?";
}

struct Dataset {
  int width = 0;       // tokens per record, the longest sequence the task can produce
  int vocab_size = 0;
  std::vector<uint16_t> tokens;   // (N, width), PAD after each sequence's end
  std::vector<uint16_t> lengths;  // (N,) full length including the target token

  size_t size() const { return lengths.size(); }
  const uint16_t* seq(size_t i) const { return tokens.data() + i * width; }
  int length(size_t i) const { return lengths[i]; }
  int answer_pos(size_t i) const { return lengths[i] - 2; }
  int target(size_t i) const { return seq(i)[lengths[i] - 1]; }
  // Input length the model has to read for example i (everything but the target).
  int input_length(size_t i) const { return lengths[i] - 1; }
};

// One drawn example of any task: the full sequence (target last), the task's length parameter
// (string length, number of pairs) and its offset (Indirect Indexing's shift, k-back's k, the
// queried pair of associative recall), which the statistics histogram.
struct Example {
  std::vector<uint16_t> tokens;
  int length = 0;
  int offset = 0;
};

// Statistics gathered while generating, written to the manifest and checked by the tests.
struct SplitStats {
  std::string offset_name = "shift";    // what offset means for this task (JSON key prefix)
  std::map<int, uint64_t> length_hist;  // length -> count
  std::map<int, uint64_t> offset_hist;  // offset -> count
  nlohmann::json source = nullptr;      // where the records came from, when not drawn (text: the corpus)
};
void to_json(nlohmann::json& j, const SplitStats& s);

}  // namespace popebench
