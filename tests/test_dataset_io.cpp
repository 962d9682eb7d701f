#include <catch2/catch.hpp>

#include <filesystem>

#include "common/files.hpp"
#include "tests/test_util.hpp"
#include "generators/dataset_io.hpp"

using namespace popebench;
namespace fs = std::filesystem;

namespace {
GenerateOptions small_opts(DatasetStorage st = DatasetStorage::kBinary) {
  GenerateOptions o;
  o.task.n_train = 3000;
  o.task.n_val = 500;
  o.task.n_test = 700;
  o.seed = 9;
  o.storage = st;
  return o;
}
}  // namespace

TEST_CASE("binary and text files round-trip to the generated splits", "[dataset]") {
  for (auto st : {DatasetStorage::kBinary, DatasetStorage::kText}) {
    std::string dir = test::fresh_tmpdir(st == DatasetStorage::kBinary ? "io_bin" : "io_txt");
    auto opt = small_opts(st);
    auto m = write_dataset_dir(dir, opt);
    DatasetDir info = open_dataset_dir(dir);
    CHECK(info.seed == 9);
    CHECK(info.task.n_val == 500);
    for (Split s : {Split::kTrain, Split::kVal, Split::kTest}) {
      Dataset a = load_split(dir, info, s);
      Dataset b = generate_split(opt.task, opt.seed, s);
      CHECK(a.tokens == b.tokens);
      CHECK(a.lengths == b.lengths);
    }
    CHECK(m["stats"]["train"]["length_hist"].size() == 21);
    CHECK(m["vocabulary"].size() == 66);
    CHECK(m["vocabulary"][14] == "A");
    fs::remove_all(dir);
  }
}

TEST_CASE("the same seed writes byte-identical files", "[dataset]") {
  std::string d1 = test::fresh_tmpdir("io_same1"), d2 = test::fresh_tmpdir("io_same2");
  write_dataset_dir(d1, small_opts());
  write_dataset_dir(d2, small_opts());
  for (const char* f : {"train.bin", "val.bin", "test.bin", "manifest.json"})
    CHECK(read_file(d1 + "/" + f) == read_file(d2 + "/" + f));
  fs::remove_all(d1);
  fs::remove_all(d2);
}

TEST_CASE("the reader refuses corrupt files and mismatched manifests", "[dataset]") {
  Dataset d = generate_split(small_opts().task, 1, Split::kVal);
  std::string good = encode_binary(d, "indirect-indexing");
  CHECK_NOTHROW(decode_binary(good, "f"));

  std::string bad = good;
  bad[0] = 'X';
  test::expect_user_error([&] { decode_binary(bad, "f"); }, "wrong magic");
  bad = good;
  bad[8] = 7;
  test::expect_user_error([&] { decode_binary(bad, "f"); }, "format version 7");
  test::expect_user_error([&] { decode_binary(good.substr(0, good.size() - 5), "f"); }, "does not match");
  test::expect_user_error([&] { decode_binary(good + "x", "f"); }, "does not match");
  test::expect_user_error([&] { decode_binary(good.substr(0, 10), "f"); }, "too short");
  bad = good;
  bad[200] ^= 1;
  test::expect_user_error([&] { decode_binary(bad, "f"); }, "checksum");

  std::string dir = test::fresh_tmpdir("io_corrupt");
  write_dataset_dir(dir, small_opts());
  DatasetDir info = open_dataset_dir(dir);
  std::string bytes = read_file(dir + "/val.bin");
  bytes[100] ^= 4;
  write_file_atomic(dir + "/val.bin", bytes);
  test::expect_user_error([&] { load_split(dir, info, Split::kVal); }, "does not match the manifest");
  // A file swapped for another split is caught by the manifest's checksum too.
  fs::copy_file(dir + "/test.bin", dir + "/val.bin", fs::copy_options::overwrite_existing);
  test::expect_user_error([&] { load_split(dir, info, Split::kVal); }, "does not match the manifest");
  write_file_atomic(dir + "/manifest.json", "{not json");
  test::expect_user_error([&] { open_dataset_dir(dir); }, "malformed manifest");
  test::expect_user_error([&] { open_dataset_dir(dir + "/nope"); }, "no dataset at");
  fs::remove_all(dir);
}

TEST_CASE("atomic writes leave no temporary files behind", "[dataset]") {
  std::string dir = test::fresh_tmpdir("io_atomic");
  write_dataset_dir(dir, small_opts());
  int n = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    ++n;
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
  }
  CHECK(n == 4);
  fs::remove_all(dir);
}
