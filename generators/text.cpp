#include "generators/text.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

#include "common/error.hpp"
#include "common/json_int.hpp"
#include "generators/vocab.hpp"

namespace popebench {

namespace {
// Limits that keep a hostile or mistaken folder from exhausting memory: the default corpus is
// 24 MB in 3,183 documents, its longest 0.4 MB. The stream's length must also stay below 2^32,
// the range of Pcg32::bounded that draws the training windows' starts.
// A window's record length (L + 1) is stored as uint16 (Dataset::lengths).
constexpr uint64_t kMaxDocBytes = 64ull << 20, kMaxCorpusBytes = 1ull << 30;
constexpr int kMaxWindow = 65534;

bool is_document(const std::filesystem::path& p) {
  const std::string n = p.filename().string();
  auto ends = [&](const std::string& s) { return n.size() > s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0; };
  return ends(".rst") || ends(".rst.gz");
}

// gzread reads gzip and plain files alike, so .rst and .rst.gz go through one path.
std::string read_document(const std::filesystem::path& p, const std::string& name) {
  gzFile f = gzopen(p.c_str(), "rb");
  if (!f) throw UserError("text corpus: cannot open " + name);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int err = 0;
      const std::string msg = gzerror(f, &err);
      gzclose(f);
      throw UserError("text corpus: " + name + " is not readable (" + msg + ")");
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxDocBytes) {
      gzclose(f);
      throw UserError("text corpus: " + name + " holds more than " + std::to_string(kMaxDocBytes >> 20) +
                      " MiB of text: not a document of a prose corpus");
    }
  }
  // A truncated gzip file ends without error from gzread on some zlib versions; gzclose reports it.
  if (gzclose(f) != Z_OK) throw UserError("text corpus: " + name + " is a truncated or corrupt gzip file");
  if (out.find('\0') != std::string::npos)
    throw UserError("text corpus: " + name + " holds a NUL byte, which the streams use to end a document");
  return out;
}

TextCorpus read_corpus(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    std::string hint = folder == TextConfig{}.corpus ? " (the default corpus: apt-get install linux-doc-6.1)" : "";
    throw UserError("text corpus: " + folder + " is not a folder" + hint);
  }
  std::vector<std::pair<std::string, fs::path>> files;  // (name below the folder, path)
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && is_document(it->path()))
      files.emplace_back(fs::relative(it->path(), folder, ec).generic_string(), it->path());
  }
  if (ec) throw UserError("text corpus: cannot list " + folder + " (" + ec.message() + ")");
  if (files.empty()) throw UserError("text corpus: " + folder + " holds no .rst or .rst.gz document");
  std::sort(files.begin(), files.end());
  TextCorpus c;
  c.digest = 0xcbf29ce484222325ull;
  for (auto& [name, path] : files) {
    std::string doc = read_document(path, name);
    if (doc.empty()) continue;  // nothing to model; and its hash would put it in a split for nothing
    c.bytes += doc.size() + 1;
    if (c.bytes > kMaxCorpusBytes)
      throw UserError("text corpus: " + folder + " holds more than " + std::to_string(kMaxCorpusBytes >> 20) + " MiB");
    c.digest = fnv1a64(doc, fnv1a64(name + '\0', c.digest));
    c.names.push_back(name);
    c.docs.push_back(std::move(doc));
  }
  if (c.docs.empty()) throw UserError("text corpus: every document in " + folder + " is empty");
  return c;
}
}  // namespace

void TextConfig::validate() const {
  auto bad = [](const std::string& m) { throw UserError("text: " + m); };
  if (corpus.empty()) bad("the corpus folder is empty");
  if (min_len < 1) bad("min length (the window) must be at least 1 (got " + std::to_string(min_len) + ")");
  if (max_len < min_len)
    bad("max length " + std::to_string(max_len) + " is below min length " + std::to_string(min_len));
  if (max_len > kMaxWindow) bad("max length must be at most " + std::to_string(kMaxWindow) + " (got " + std::to_string(max_len) + ")");
  if (val_percent < 1 || test_percent < 1 || val_percent + test_percent > 50)
    bad("validation and test shares must be >= 1 % each and <= 50 % together (got " + std::to_string(val_percent) +
        " and " + std::to_string(test_percent) + ")");
}

int TextConfig::vocab_size() const { return vocab::vocab_size(alphabet); }

void to_json(nlohmann::json& j, const TextConfig& c) {
  j = {{"corpus", c.corpus}, {"min_len", c.min_len}, {"max_len", c.max_len}, {"val_percent", c.val_percent},
       {"test_percent", c.test_percent}};
}
void from_json(const nlohmann::json& j, TextConfig& c) {
  c.corpus = j.at("corpus").get<std::string>();
  c.min_len = json_int<int>(j, "min_len");
  c.max_len = json_int<int>(j, "max_len");
  c.val_percent = json_int<int>(j, "val_percent");
  c.test_percent = json_int<int>(j, "test_percent");
}

uint64_t fnv1a64(const std::string& bytes, uint64_t h) {
  for (unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

const TextCorpus& load_text_corpus(const std::string& folder) {
  // Kept for the process: a run reads its three splits, `extrapolate` ten evaluation lengths.
  // Only successful reads are kept, so a fixed folder is read again.
  static std::mutex mu;
  static std::map<std::string, TextCorpus> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(folder);
  if (it == cache.end()) it = cache.emplace(folder, read_corpus(folder)).first;
  return it->second;
}

nlohmann::json text_corpus_json(const std::string& folder) {
  const TextCorpus& corpus = load_text_corpus(folder);
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(corpus.digest));
  return {{"folder", folder}, {"documents", corpus.docs.size()}, {"bytes", corpus.bytes},
          {"digest", std::string("fnv1a64:") + digest}};
}

namespace {
void require_window(uint64_t bytes, int L, int split) {
  static const char* kNames[] = {"training", "validation", "test"};
  if (bytes < static_cast<uint64_t>(L) + 1)
    throw UserError("text: the " + std::string(kNames[split]) + " split's " + std::to_string(bytes) +
                    " bytes hold no window of " + std::to_string(L + 1) + " bytes (a window of " + std::to_string(L) +
                    " and the byte it predicts); use a shorter window or a larger share of the corpus");
}
}  // namespace

void require_text_windows(const TextConfig& c, uint64_t n_train, uint64_t n_val, uint64_t n_test) {
  c.validate();
  const TextCorpus& corpus = load_text_corpus(c.corpus);
  uint64_t bytes[3] = {0, 0, 0};
  for (const std::string& d : corpus.docs) bytes[text_split_of(d, c)] += d.size() + 1;
  if (n_train > 0) require_window(bytes[0], c.max_len, 0);
  if (n_val > 0) require_window(std::min(n_val, bytes[1]), c.max_len, 1);
  if (n_test > 0) require_window(std::min(n_test, bytes[2]), c.max_len, 2);
}

int text_split_of(const std::string& doc, const TextConfig& c) {
  const int h = static_cast<int>(fnv1a64(doc) % 100);
  return h < c.test_percent ? 2 : h < c.test_percent + c.val_percent ? 1 : 0;
}

std::string text_split_stream(const TextCorpus& corpus, const TextConfig& c, int split) {
  std::string s;
  for (const std::string& d : corpus.docs) {
    if (text_split_of(d, c) != split) continue;
    s += d;
    s += '\0';
  }
  return s;
}

Dataset generate_text_split(const TextConfig& c, Pcg32& rng, int split, uint64_t count, SplitStats* stats) {
  c.validate();
  const TextCorpus& corpus = load_text_corpus(c.corpus);
  const std::string stream = text_split_stream(corpus, c, split);
  // Where each document starts in the stream, for the stats' document index.
  std::vector<uint64_t> doc_start;
  for (size_t i = 0, at = 0; i < stream.size(); i = at) {
    doc_start.push_back(i);
    at = stream.find('\0', i) + 1;
  }
  auto doc_of = [&](uint64_t pos) {
    return static_cast<int>(std::upper_bound(doc_start.begin(), doc_start.end(), pos) - doc_start.begin() - 1);
  };
  Dataset d;
  d.width = c.width();
  d.vocab_size = c.vocab_size();
  std::vector<std::pair<uint64_t, int>> windows;  // (start, L)
  if (count == 0) {
    // an empty split, as every task's (e.g. a length bucket's training and validation splits)
  } else if (split == 0) {
    require_window(stream.size(), c.max_len, split);
    for (uint64_t i = 0; i < count; ++i) {
      const int L = static_cast<int>(rng.uniform_int(c.min_len, c.max_len));
      windows.emplace_back(static_cast<uint64_t>(rng.uniform_int(0, static_cast<int64_t>(stream.size()) - L - 1)), L);
    }
  } else {
    const uint64_t scored = std::min<uint64_t>(count, stream.size());
    const int L = c.max_len;
    require_window(scored, L, split);
    for (uint64_t start = 0; start + L + 1 <= scored; start += L) windows.emplace_back(start, L);
  }
  d.tokens.assign(windows.size() * d.width, vocab::kPad);
  d.lengths.resize(windows.size());
  if (stats) {
    stats->offset_name = "document";
    const nlohmann::json corpus_json = text_corpus_json(c.corpus);
    stats->source = {{"corpus", c.corpus},
                     {"corpus_documents", corpus_json["documents"]},
                     {"corpus_bytes", corpus_json["bytes"]},
                     {"corpus_digest", corpus_json["digest"]},
                     {"split_documents", doc_start.size()},
                     {"split_bytes", stream.size()}};
  }
  for (size_t i = 0; i < windows.size(); ++i) {
    const auto [start, L] = windows[i];
    uint16_t* out = d.tokens.data() + i * d.width;
    for (int t = 0; t <= L; ++t) out[t] = vocab::symbol(static_cast<unsigned char>(stream[start + t]));
    d.lengths[i] = static_cast<uint16_t>(L + 1);
    if (stats) {
      stats->length_hist[L]++;
      stats->offset_hist[doc_of(start)]++;
    }
  }
  return d;
}

const std::vector<TaskOption<TextConfig>>& TextConfig::options() {
  static const std::vector<TaskOption<TextConfig>> opts = {
      {"--corpus", "the folder of .rst / .rst.gz documents (Debian's linux-doc-6.1 installs the default)", &TextConfig::corpus},
  };
  return opts;
}

void TextConfig::check_split_sizes(uint64_t n_train, uint64_t n_val, uint64_t n_test) const {
  require_text_windows(*this, n_train, n_val, n_test);
}
Dataset TextConfig::generate(Pcg32& rng, Split split, uint64_t count, SplitStats* stats) const {
  return generate_text_split(*this, rng, static_cast<int>(split), count, stats);
}
nlohmann::json TextConfig::corpus_json() const { return text_corpus_json(corpus); }

}  // namespace popebench
