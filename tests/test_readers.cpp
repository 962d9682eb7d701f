// Readers validate every field they use and refuse with a UserError (one line at the CLI),
// never a crash, an internal JSON error or an allocation sized by the input. Inputs here are the
// classes the fuzz targets (fuzz/) and hand-made bad files found.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "common/files.hpp"
#include "common/json_read.hpp"
#include "common/utf8.hpp"
#include "generators/dataset_io.hpp"
#include "train/checkpoint.hpp"
#include "model/transformer.hpp"
#include "tests/test_util.hpp"

using namespace popebench;

namespace {
Checkpoint checkpoint_of(const RunConfig& c) {
  Checkpoint ck;
  ck.config = c;
  ck.params.assign(Transformer<float>(c.model, c.pe).layout().total, 0.5f);
  ck.m = ck.v = ck.params;
  return ck;
}
}  // namespace

TEST_CASE("a checkpoint's config is validated before a model of its size is built", "[readers]") {
  const std::string dir = test::fresh_tmpdir("readers_ckpt");
  RunConfig c;
  c.model.n_layer = 1;
  c.model.d_model = 16;
  c.model.n_head = 2;
  const std::string path = dir + "/a.ckpt";
  save_checkpoint(path, checkpoint_of(c));
  CHECK(checkpoint_run_config(load_checkpoint(path), path).model.d_model == 16);

  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& want) {
    Checkpoint ck = checkpoint_of(c);
    edit(ck.config);
    save_checkpoint(path, ck);  // checksum recomputed: only the config is wrong
    test::expect_user_error([&] { checkpoint_run_config(load_checkpoint(path), path); }, want);
  };
  refused([](nlohmann::json& j) { j["model"]["n_head"] = 0; }, "n_head");            // was SIGFPE
  refused([](nlohmann::json& j) { j["model"]["vocab_size"] = -1; }, "vocab_size");  // was an out-of-bounds read
  refused([](nlohmann::json& j) { j["task"]["params"]["alphabet"] = 4000; }, "vocabulary");
  refused([](nlohmann::json& j) { j["model"]["d_model"] = 1 << 20; }, "d_model");
  refused([](nlohmann::json& j) { j["optim"]["lr"] = "fast"; }, "malformed");
  refused([](nlohmann::json& j) { j["model"]["n_layer"] = 2; }, "parameters, its config needs");

  // Empty arrays (found by fuzz_checkpoint: a null memcpy) load and are refused by their size.
  Checkpoint empty = checkpoint_of(c);
  empty.params.clear();
  empty.m.clear();
  empty.v.clear();
  save_checkpoint(path, empty);
  Checkpoint back = load_checkpoint(path);
  CHECK(back.params.empty());
  test::expect_user_error([&] { checkpoint_run_config(back, path); }, "holds 0 parameters");

  // Values no training writes, under a valid checksum: a NaN once reached a float-to-int cast in
  // inspect's histogram of delta.
  auto refused_values = [&](const std::function<void(Checkpoint&)>& edit, const std::string& want) {
    Checkpoint ck = checkpoint_of(c);
    edit(ck);
    save_checkpoint(path, ck);
    test::expect_user_error([&] { load_checkpoint(path); }, want);
  };
  refused_values([](Checkpoint& ck) { ck.params[3] = std::nanf(""); }, "not a finite number");
  refused_values([](Checkpoint& ck) { ck.m[0] = INFINITY; }, "not a finite number");
  refused_values([](Checkpoint& ck) { ck.v[1] = -1.f; }, "negative second moment");
  refused_values([](Checkpoint& ck) { ck.step = -5; }, "step is negative");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a manifest is checked field by field", "[readers]") {
  const std::string dir = test::fresh_tmpdir("readers_manifest");
  GenerateOptions g;
  g.task.n_train = 4;
  g.task.n_val = g.task.n_test = 2;
  nlohmann::json good = write_dataset_dir(dir, g);
  auto with = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& want) {
    nlohmann::json m = good;
    edit(m);
    std::ofstream(dir + "/manifest.json") << m.dump();
    test::expect_user_error(
        [&] {
          DatasetDir info = open_dataset_dir(dir);
          for (Split s : {Split::kTrain, Split::kVal, Split::kTest}) load_split(dir, info, s);
        },
        want);
  };
  with([](nlohmann::json& m) { m.erase("splits"); }, "malformed manifest");          // was "internal error"
  with([](nlohmann::json& m) { m["splits"] = 3; }, "splits is not an object");
  with([](nlohmann::json& m) { m["splits"]["val"]["file"] = "../../etc/passwd"; }, "is not a file name");
  with([](nlohmann::json& m) { m["splits"]["test"]["count"] = -2; }, "count must be");
  with([](nlohmann::json& m) { m["storage"] = "tape"; }, "unknown storage");
  with([](nlohmann::json& m) { m["splits"]["train"]["bytes"] = 5; }, "does not match the manifest's 5");
  // A number out of int's range (found by fuzz_manifest: nlohmann's cast of it is undefined).
  with([](nlohmann::json& m) { m["format_version"] = 1.5e73; }, "format_version must be an integer in range");
  with([](nlohmann::json& m) { m["seed"] = -1; }, "seed must be an integer in range");
  with([](nlohmann::json& m) { m["task"]["params"]["max_len"] = 1e40; }, "max_len must be an integer in range");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the bounded JSON reader refuses deep nesting and repeated keys, and reads what popebench writes", "[readers]") {
  // 64 levels are read; 65 are refused, as are 100,000 (a depth no recursion must ever walk).
  auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(parse_json_document(nested(kMaxJsonDepth), "x").is_array());
  test::expect_user_error([&] { parse_json_document(nested(kMaxJsonDepth + 1), "doc.json"); },
                          "doc.json: nested deeper than 64 levels");
  test::expect_user_error([&] { parse_json_document(nested(100000), "doc.json"); }, "nested deeper than 64 levels");
  test::expect_user_error([&] { parse_json_document(R"({"a": 1, "b": {"c": 2, "c": 3}})", "doc.json"); },
                          "doc.json: the key \"c\" appears twice in one object");
  // The same key in two objects is no repetition.
  CHECK(parse_json_document(R"([{"c": 1}, {"c": 2}])", "x")[1]["c"] == 2);
  test::expect_user_error([&] { parse_json_document("{\"a\": 1} trailing", "doc.json"); }, "doc.json: not valid JSON");
  test::expect_user_error([&] { parse_json_document("", "doc.json"); }, "doc.json: not valid JSON");
  // A number beyond double's range is the parser's out_of_range, not its parse_error (fuzz_run_json).
  test::expect_user_error([&] { parse_json_document(R"({"eps": 1e408})", "doc.json"); }, "doc.json: not valid JSON (a number out of range)");
  // A key quoted in the message is cut and its control bytes escaped: the message stays one line.
  const std::string key(100, 'k');
  test::expect_user_error([&] { parse_json_document("{\"" + key + "\\n\": 1, \"" + key + "\\n\": 2}", "d"); }, "...\" appears twice");
  RunConfig c;
  nlohmann::json written = c;
  CHECK(parse_json_document(written.dump(2), "config") == written);
}

TEST_CASE("an output is refused where it is the same file as an input, however it is spelled", "[readers]") {
  namespace fs = std::filesystem;
  const std::string dir = test::fresh_tmpdir("readers_same_file");
  const std::string in = dir + "/in.json";
  std::ofstream(in) << "{}";
  fs::create_symlink(in, dir + "/link.json");
  fs::create_hard_link(in, dir + "/hard.json");
  for (const std::string& out : {in, dir + "/./in.json", dir + "/../" + fs::path(dir).filename().string() + "/in.json",
                                 dir + "/link.json", dir + "/hard.json"}) {
    INFO(out);
    CHECK(same_file(out, in));
    test::expect_user_error([&] { refuse_outputs_over_inputs({{out, "--out"}}, {{in, "the checkpoint"}}); },
                            "is the checkpoint (" + in + "): an output must not replace an input");
  }
  // Two outputs not made yet, spelled differently (relative against absolute), are one file.
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  CHECK(same_file("new.json", "./new.json"));
  CHECK(same_file("new.json", dir + "/new.json"));
  test::expect_user_error([&] { refuse_outputs_over_inputs({{"new.json", "--out"}, {"./new.json", "--checkpoint"}}, {}); },
                          "--checkpoint ./new.json and --out new.json are the same file");
  fs::current_path(here);
  CHECK(!same_file(dir + "/other.json", in));
  refuse_outputs_over_inputs({{dir + "/other.json", "--out"}, {"", "--predictions"}}, {{in, "an input"}, {"", "none"}});
  fs::remove_all(dir);
}

TEST_CASE("UTF-8 is checked as RFC 3629 defines it", "[readers]") {
  CHECK(is_utf8(""));
  CHECK(is_utf8("runs/pope_seed0.json"));
  CHECK(is_utf8("δ \u00e9 \u20ac \U0001F600"));
  for (const std::string bad : {"\xff", "a\xfe", "\xc3", "\xc3\x28", "\xe2\x82", "\xc0\xaf" /* overlong '/' */,
                                "\xed\xa0\x80" /* a surrogate */, "\xf4\x90\x80\x80" /* above U+10FFFF */}) {
    INFO(escaped_bytes(bad));
    CHECK(!is_utf8(bad));
  }
  CHECK(escaped_bytes("a\xff\n") == "a\\xff\\x0a");
}

TEST_CASE("a temporary left by a killed writer is removed by the next write of the same file", "[readers]") {
  namespace fs = std::filesystem;
  const std::string dir = test::fresh_tmpdir("readers_stale_tmp");
  const std::string out = dir + "/train.bin";
  // A PID that is not running: a child that has exited and been reaped.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  int status = 0;
  ::waitpid(gone, &status, 0);
  std::ofstream(out + ".tmp." + std::to_string(gone)) << std::string(1000, 'x');
  std::ofstream(out + ".tmp." + std::to_string(::getppid())) << "alive";  // a live process's: kept
  std::ofstream(dir + "/other.bin.tmp." + std::to_string(gone)) << "another file's";
  write_file_atomic(out, "data");
  CHECK(read_file(out) == "data");
  CHECK(!fs::exists(out + ".tmp." + std::to_string(gone)));
  CHECK(fs::exists(out + ".tmp." + std::to_string(::getppid())));
  CHECK(fs::exists(dir + "/other.bin.tmp." + std::to_string(gone)));
  fs::remove_all(dir);
}
