// The text task on a corpus written by the test (tests/text_corpus.sh runs it on the real one):
// documents split by their bytes' hash, training windows cut from the training stream only,
// evaluation windows tiling the stream without overlap, and bad corpora refused in one line.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "common/error.hpp"
#include "generators/task.hpp"
#include "generators/text.hpp"
#include "generators/vocab.hpp"
#include "backend/backend.hpp"
#include "train/trainer.hpp"
#include "model/transformer.hpp"
#include "train/evaluate.hpp"

namespace fs = std::filesystem;
using namespace popebench;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/popebench_text_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_plain(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}
void write_gz(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  gzFile f = gzopen(p.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

// A document of n bytes of prose-like text that names itself, so a window shows where it came from.
std::string doc_text(int id, int n) {
  std::string s;
  while (static_cast<int>(s.size()) < n) s += "Document " + std::to_string(id) + " says line " + std::to_string(s.size()) + ".\n";
  s.resize(n);
  return s;
}

std::string window_bytes(const Dataset& d, size_t i) {
  std::string s;
  for (int t = 0; t < d.length(i); ++t) s += static_cast<char>(d.seq(i)[t] - vocab::kFirstSymbol);
  return s;
}

// 60 documents of 300-3,000 bytes, half of them gzip-compressed, in nested folders, and files that
// are not documents beside them.
TextConfig write_corpus(const fs::path& dir) {
  for (int i = 0; i < 60; ++i) {
    const std::string text = doc_text(i, 300 + 45 * i);
    const fs::path p = dir / ("part" + std::to_string(i % 4)) / ("doc" + std::to_string(i) + (i % 2 ? ".rst.gz" : ".rst"));
    if (i % 2) write_gz(p, text); else write_plain(p, text);
  }
  write_plain(dir / "notes.txt", "not a document");
  write_plain(dir / "image.rst.png", "not a document either");
  TextConfig c;
  c.corpus = dir.string();
  c.min_len = c.max_len = 64;
  c.val_percent = c.test_percent = 20;  // a small corpus needs large shares for every split to hold a window
  return c;
}

}  // namespace

TEST_CASE("text: the corpus is every .rst and .rst.gz below the folder, by name", "[text]") {
  TempDir tmp;
  const TextConfig c = write_corpus(tmp.path);
  const TextCorpus& corpus = load_text_corpus(c.corpus);
  REQUIRE(corpus.docs.size() == 60);
  REQUIRE(std::is_sorted(corpus.names.begin(), corpus.names.end()));
  REQUIRE(corpus.names.front() == "part0/doc0.rst");
  // doc1 was compressed: it reads back as written.
  const size_t at = std::find(corpus.names.begin(), corpus.names.end(), "part1/doc1.rst.gz") - corpus.names.begin();
  REQUIRE(at < corpus.names.size());
  REQUIRE(corpus.docs[at] == doc_text(1, 345));
}

TEST_CASE("text: a run's data names its corpus by digest, the same for a copy elsewhere", "[text]") {
  TempDir a, b;
  TaskConfig t;
  t.select("text");
  t.as<TextConfig>() = write_corpus(a.path);
  const nlohmann::json src = generated_data_source(t, 3);
  REQUIRE(src.at("kind") == "generated");
  REQUIRE(src.at("seed") == 3);
  const nlohmann::json& corpus = src.at("corpus");
  REQUIRE(corpus.at("folder") == a.path.string());
  REQUIRE(corpus.at("documents") == 60);
  REQUIRE(corpus.at("digest").get<std::string>().rfind("fnv1a64:", 0) == 0);
  REQUIRE(corpus.at("digest").get<std::string>().size() == 8 + 16);
  // The same documents under another folder: the same digest. One byte changed: another.
  fs::copy(a.path, b.path, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  REQUIRE(text_corpus_json(b.path.string()).at("digest") == corpus.at("digest"));
  TempDir c;
  write_corpus(c.path);
  write_plain(c.path / "part0" / "doc0.rst", doc_text(0, 300).replace(0, 1, "d"));
  REQUIRE(text_corpus_json(c.path.string()).at("digest") != corpus.at("digest"));
  // A task that draws its examples has no corpus.
  REQUIRE(task_corpus_json(TaskConfig{}).is_null());
  REQUIRE(generated_data_source(TaskConfig{}, 0).count("corpus") == 0);
}

TEST_CASE("text: documents split by their bytes, the same text always in the same split", "[text]") {
  TextConfig c;
  c.val_percent = c.test_percent = 20;
  int seen[3] = {0, 0, 0};
  for (int i = 0; i < 400; ++i) seen[text_split_of(doc_text(i, 500), c)]++;
  // 400 documents at 60 / 20 / 20 %: each count within 5 standard deviations of its share.
  REQUIRE(std::abs(seen[0] - 240) < 50);
  REQUIRE(std::abs(seen[1] - 80) < 41);
  REQUIRE(std::abs(seen[2] - 80) < 41);
  REQUIRE(text_split_of(doc_text(7, 500), c) == text_split_of(std::string(doc_text(7, 500)), c));
  // FNV-1a's published test vectors: "" and "a".
  REQUIRE(fnv1a64("") == 0xcbf29ce484222325ull);
  REQUIRE(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
}

TEST_CASE("text: training windows come from training documents only", "[text]") {
  TempDir tmp;
  TaskConfig t;
  t.select("text");
  t.as<TextConfig>() = write_corpus(tmp.path);
  t.n_train = 500;
  const TextCorpus& corpus = load_text_corpus(t.as<TextConfig>().corpus);
  const std::string train = text_split_stream(corpus, t.as<TextConfig>(), 0);
  std::set<std::string> test_ids;  // "Document N " of every evaluation document
  for (size_t i = 0; i < corpus.docs.size(); ++i)
    if (text_split_of(corpus.docs[i], t.as<TextConfig>()) != 0) test_ids.insert(corpus.docs[i].substr(0, corpus.docs[i].find(" says")));
  REQUIRE(!test_ids.empty());
  SplitStats stats;
  const Dataset d = generate_split(t, 3, Split::kTrain, &stats);
  REQUIRE(d.size() == 500);
  REQUIRE(d.width == 65);
  REQUIRE(d.vocab_size == vocab::kFirstSymbol + 256);
  for (size_t i = 0; i < d.size(); ++i) {
    REQUIRE(d.length(i) == 65);
    const std::string w = window_bytes(d, i);
    REQUIRE(train.find(w) != std::string::npos);
    for (const std::string& id : test_ids) REQUIRE(w.find(id + " says") == std::string::npos);
  }
  REQUIRE(stats.source.at("split_bytes") == train.size());
  // Another seed draws other windows; the same seed the same bytes.
  REQUIRE(generate_split(t, 3, Split::kTrain).tokens == d.tokens);
  REQUIRE(generate_split(t, 4, Split::kTrain).tokens != d.tokens);
}

TEST_CASE("text: evaluation windows tile the split's first n bytes without overlap", "[text]") {
  TempDir tmp;
  TaskConfig t;
  t.select("text");
  t.as<TextConfig>() = write_corpus(tmp.path);
  const TextCorpus& corpus = load_text_corpus(t.as<TextConfig>().corpus);
  const std::string test = text_split_stream(corpus, t.as<TextConfig>(), 2);
  for (int L : {64, 128, 640}) {
    t.set_length_range(L, L);
    t.n_test = 5000;
    REQUIRE(test.size() > 5000);
    const Dataset d = generate_split(t, 0, Split::kTest);
    REQUIRE(d.size() == static_cast<size_t>((5000 - 1) / L));
    for (size_t i = 0; i < d.size(); ++i) {
      // Window i holds bytes [iL, iL + L]: it predicts bytes iL + 1 .. iL + L, each byte once.
      REQUIRE(window_bytes(d, i) == test.substr(i * L, L + 1));
    }
    // The seed does not enter: the same text is scored whatever the run's data seed.
    REQUIRE(generate_split(t, 9, Split::kTest).tokens == d.tokens);
  }
  // No bytes asked for: an empty split, as any task's (a length bucket's unused splits).
  t.n_test = 0;
  REQUIRE(generate_split(t, 0, Split::kTest).size() == 0);
  // More bytes asked for than the split holds: all of it.
  t.set_length_range(64, 64);
  t.n_test = 100000000;
  REQUIRE(generate_split(t, 0, Split::kTest).size() == (test.size() - 1) / 64);
}

TEST_CASE("text: bad corpora and windows are refused in one line", "[text]") {
  TempDir tmp;
  TextConfig c;
  auto refused = [&](const std::string& fragment) {
    TaskConfig t;
    t.select("text");
    t.as<TextConfig>() = c;
    t.n_train = 10;
    try {
      generate_split(t, 0, Split::kTrain);
      FAIL("accepted; expected '" << fragment << "'");
    } catch (const UserError& e) {
      const std::string m = e.what();
      INFO(m);
      REQUIRE(m.find(fragment) != std::string::npos);
      REQUIRE(m.find('\n') == std::string::npos);
    }
  };
  c.corpus = (tmp.path / "missing").string();
  refused("is not a folder");
  fs::create_directories(tmp.path / "empty");
  c.corpus = (tmp.path / "empty").string();
  refused("holds no .rst or .rst.gz document");
  write_plain(tmp.path / "blank" / "a.rst", "");
  c.corpus = (tmp.path / "blank").string();
  refused("every document");
  write_plain(tmp.path / "nul" / "a.rst", std::string("text\0more", 9));
  c.corpus = (tmp.path / "nul").string();
  refused("NUL byte");
  // A gzip file cut in half.
  write_gz(tmp.path / "cut" / "a.rst.gz", doc_text(1, 20000));
  fs::resize_file(tmp.path / "cut" / "a.rst.gz", fs::file_size(tmp.path / "cut" / "a.rst.gz") / 2);
  c.corpus = (tmp.path / "cut").string();
  refused("a.rst.gz");
  // A window longer than the training split.
  write_plain(tmp.path / "short" / "a.rst", "a short corpus");
  c.corpus = (tmp.path / "short").string();
  c.val_percent = c.test_percent = 1;
  refused("hold no window");
  c.min_len = 10;
  c.max_len = 5;
  refused("below min length");
}

TEST_CASE("text: evaluation reports bits per byte over every prediction of every window", "[text][train]") {
  TempDir tmp;
  RunConfig c;
  c.task.select("text");
  c.task.as<TextConfig>() = write_corpus(tmp.path);
  c.task.set_length_range(24, 24);
  c.task.n_test = 400;
  c.model.n_layer = 2;
  c.model.d_model = 32;
  c.model.n_head = 2;
  c.size_model_for_task();
  c.pe.kind = "pope";
  c.train.loss = TrainLoss::kAll;
  c.train.eval_batch = 5;  // 16 windows: three full batches and one of 1
  const Dataset d = generate_split(c.task, 0, Split::kTest);
  REQUIRE(d.size() == (400 - 1) / 24);
  auto be = make_backend(c, DeviceChoice::kCpu);
  const EvalResult r = evaluate(*be, c, d);
  REQUIRE(r.bytes == static_cast<long>(d.size()) * 24);
  // The same number from the double model's logits at every position, by the definition:
  // -log2 softmax(logits)[next byte], averaged over every window's 24 predictions.
  std::vector<float> pf, m, v;
  be->get_state(pf, m, v);
  const std::vector<double> p(pf.begin(), pf.end());
  Transformer<double> model(c.model, c.pe);
  double bits = 0;
  long count = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const Batch b = make_batch(d, {i});
    model.forward(p.data(), b, true);
    const std::vector<double>& logits = model.logits();  // (T, V)
    const int V = c.model.vocab_size;
    for (int t = 0; t < 24; ++t) {
      const int target = d.seq(i)[t + 1];
      const double* l = logits.data() + size_t(t) * V;
      const double mx = *std::max_element(l, l + V);
      double sum = 0;
      for (int k = 0; k < V; ++k) sum += std::exp(l[k] - mx);
      bits += (std::log(sum) + mx - l[target]) / std::log(2.0);
      ++count;
    }
  }
  REQUIRE(count == r.bytes);
  // fp32 forward against double: relative 1e-5 is ~100x the float rounding of a 2-layer model.
  CHECK(r.bits_per_byte == Approx(bits / double(count)).epsilon(1e-5));
  // An untrained model predicts nearly uniformly over its 270 tokens: log2(270) = 8.08 bits.
  CHECK(r.bits_per_byte == Approx(std::log2(270.0)).margin(0.3));
  // The answers' loss and accuracy come from the same pass (eval_every_token): what the
  // answer-only evaluation gives, batch by batch (same fp32 rows, the head on more of them).
  double answer_loss = 0;
  size_t hits = 0;
  for (size_t i = 0; i < d.size(); i += 5) {
    std::vector<size_t> idx;
    for (size_t j = i; j < std::min(d.size(), i + 5); ++j) idx.push_back(j);
    const Batch b = make_batch(d, idx);
    std::vector<int32_t> correct;
    answer_loss += be->eval_batch(b, correct) * double(idx.size());
    for (int x : correct) hits += x;
  }
  CHECK(r.loss == Approx(answer_loss / double(d.size())).epsilon(1e-5));
  CHECK(r.acc == Approx(double(hits) / double(d.size())));
  // A result without them (every other task) writes none.
  REQUIRE(nlohmann::json(EvalResult{}).count("bits_per_byte") == 0);
}
