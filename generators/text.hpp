// text: byte-level language modelling on real English, for the paper's length-extrapolation claim
// on text (trained at a window of L bytes, evaluated at L, 2L, ... 10L).
//
// The corpus is a folder of documents that a Debian package installs (nothing is downloaded):
// by default the Linux kernel's documentation, `linux-doc-6.1` (3,183 reStructuredText files,
// 24 MB of prose about the kernel, GPL-2.0; docs/tasks.md says why this corpus). Every file below
// the folder whose name ends in .rst or .rst.gz is one document.
//
// Each document goes to train, validation or test by a hash of its bytes (FNV-1a, 64 bits, mod
// 100: the first test_percent values test, the next val_percent validation), so a test document
// is never trained on, the split does not depend on file names or on the order the files are
// read in, and two copies of one text always land in the same split. A split's documents,
// in file-name order, each followed by a NUL byte (the end-of-document token; no document holds
// one), make that split's byte stream.
//
// A record is a window of L + 1 consecutive bytes of a split's stream: the model reads L tokens
// and predicts each next byte (train it with --loss all; the last byte is the task's "answer").
// Tokens are the bytes, as symbols 0-255 (vocab::symbol(b)).
//   train:     n_train windows, each start drawn uniformly from the stream (length L uniform in
//              [min_len, max_len]; the text preset has min_len = max_len).
//   val, test: the stream's first n_val / n_test BYTES cut into non-overlapping windows of
//              L = max_len (ALiBi's "nonoverlapping" evaluation: each byte after the first is
//              predicted once, by a window that starts where the previous one ended). Counting
//              bytes rather than windows makes every evaluation length score the same text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/rng.hpp"
#include "generators/dataset.hpp"
#include "generators/task_option.hpp"

namespace popebench {

// The task's registration: generators/task_list.hpp says what each member below is for.
struct TextConfig {
  static constexpr const char* kName = "text";
  static constexpr const char* kHelp =
      "byte-level language modelling on a corpus of documents (default: the Linux kernel's documentation, Debian's "
      "linux-doc-6.1): windows of --max-len bytes, every next byte predicted (train with --loss all)";
  static constexpr const char* kLength = "window in bytes";
  static constexpr bool kLanguageModel = true;  // scored on every next token: bits per byte

  std::string corpus = "/usr/share/doc/linux-doc-6.1/Documentation";
  int min_len = 256;  // window length in bytes (tokens the model reads), inclusive range
  int max_len = 256;
  int val_percent = 5;   // share of the documents (by hash) in each evaluation split
  int test_percent = 5;
  static constexpr int alphabet = 256;  // bytes

  static const std::vector<TaskOption<TextConfig>>& options();
  void validate() const;  // throws UserError naming the first bad parameter (the corpus is read by load)
  int width() const { return max_len + 1; }
  int vocab_size() const;
  double chance() const { return 1.0 / alphabet; }
  // UserError unless every split asked for holds a window (require_text_windows below).
  void check_split_sizes(uint64_t n_train, uint64_t n_val, uint64_t n_test) const;
  Dataset generate(Pcg32& rng, Split split, uint64_t count, SplitStats* stats) const;
  nlohmann::json corpus_json() const;  // the folder, its documents, bytes and digest (text_corpus_json)
};
void to_json(nlohmann::json& j, const TextConfig& c);
void from_json(const nlohmann::json& j, TextConfig& c);

// The documents of a corpus folder, read once per process and kept (the three splits of a run,
// and every evaluation length, read the same corpus).
struct TextCorpus {
  std::vector<std::string> names;  // paths below the folder, sorted
  std::vector<std::string> docs;   // decompressed bytes, in names' order
  uint64_t bytes = 0;
  uint64_t digest = 0;  // FNV-1a over every (name, bytes) in order: which corpus a dataset came from
};
// Throws UserError in one line: a folder that does not exist (with the package that installs the
// default), one without documents, an unreadable or corrupt file, a document holding a NUL byte.
const TextCorpus& load_text_corpus(const std::string& folder);
// Which corpus a run's data came from, for its JSON: the folder, its documents, bytes and digest
// ("fnv1a64:" and 16 hex digits; a copy of the same documents elsewhere gives the same digest).
nlohmann::json text_corpus_json(const std::string& folder);

uint64_t fnv1a64(const std::string& bytes, uint64_t h = 0xcbf29ce484222325ull);
// 0 train, 1 validation, 2 test (the values of Split).
int text_split_of(const std::string& doc, const TextConfig& c);
// A split's byte stream: its documents in name order, each followed by a NUL.
std::string text_split_stream(const TextCorpus& corpus, const TextConfig& c, int split);

// UserError in one line unless every split asked for (a count > 0) holds a window of max_len + 1
// bytes (training: its stream; validation and test: their first n_val / n_test bytes). Checked
// before any split is cut, so that a window too long for the small evaluation splits is refused
// at once, not after the training split's windows were drawn. A count of 0 is an empty split.
void require_text_windows(const TextConfig& c, uint64_t n_train, uint64_t n_val, uint64_t n_test);

// Records of one split (split as text_split_of numbers them), `count` as TaskConfig::count says:
// windows for train (their starts drawn from rng), bytes for val and test (rng unused). Stats:
// window lengths, and the document each window starts in (offset "document": its index among the
// split's documents).
Dataset generate_text_split(const TextConfig& c, Pcg32& rng, int split, uint64_t count, SplitStats* stats);

}  // namespace popebench
