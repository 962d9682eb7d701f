// popebench export's CSV (report/export_csv.hpp): a column per config leaf, the union over runs,
// an older file's missing fields at their defaults, the run's origin, empty where a run has no
// final numbers; quoting; a row per curve point.
#include <catch2/catch.hpp>

#include <functional>

#include <sstream>

#include "generators/task.hpp"
#include "config/config.hpp"
#include "report/export_csv.hpp"

using namespace popebench;

namespace {
nlohmann::json run_doc(const std::string& pe, uint64_t seed, bool complete, const std::string& attn_temp) {
  RunConfig c;
  c.pe.kind = pe;
  c.train.seed = seed;
  c.model.attn_temp = choices::kAttnTemp.parse(attn_temp);
  nlohmann::json j = {{"schema", "popebench.run"}, {"schema_version", 1}, {"status", complete ? "complete" : "partial"},
                      {"config", c}, {"environment", {{"git_commit", "abc"}, {"device", "cpu"}, {"date", "2026-12-02T00:00:00Z"}}}};
  j["curve"] = nlohmann::json::array({{{"step", 0}, {"lr", 0.0}, {"train_loss", nullptr}, {"train_acc", nullptr}, {"val_loss", 4.2}, {"val_acc", 0.01}, {"val_n", 10}},
                                      {{"step", 10}, {"lr", 1e-4}, {"train_loss", 3.5}, {"train_acc", 0.25}, {"val_loss", 3.0}, {"val_acc", 0.5}, {"val_n", 10}}});
  if (complete) {
    j["final"] = {{"step", 10}, {"val", {{"acc", 0.5}, {"loss", 3.0}, {"n", 10}}}, {"test", {{"acc", 0.375}, {"loss", 3.25}, {"n", 8}}}};
    j["timing"] = {{"steps_per_s", 12.5}};
  } else {
    j["steps_done"] = 10;
    j["timing"] = {{"steps_per_s", 11.0}};
  }
  if (attn_temp == "fixed") j["config"]["model"].erase("attn_temp");  // a file from before the option
  return j;
}
// A CSV reader for the tests (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes):
// the config's delta_clamp, a JSON array, is a quoted field.
std::vector<std::vector<std::string>> lines(const std::string& csv) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < csv.size(); ++i) {
    const char c = csv[i];
    if (quoted) {
      if (c == '"' && i + 1 < csv.size() && csv[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell), cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(cell), cell.clear();
      rows.emplace_back();
    } else {
      cell += c;
    }
  }
  rows.pop_back();  // after the last line break
  return rows;
}
size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}
}  // namespace

TEST_CASE("export: a row per run, every config leaf a column, defaults where absent", "[export]") {
  nlohmann::json with_origin = run_doc("rope", 0, true, "learned");
  with_origin["origin"] = {{"preset", "paper"}, {"plan", "plan.json"}, {"cell", "screen_cell"}};
  std::vector<ExportedRun> runs = {{"a/rope_seed0.json", read_run(with_origin, "a")},
                                   {"b/pope_seed1.json", read_run(run_doc("pope", 1, false, "fixed"), "b")}};
  auto rows = lines(runs_csv(runs, false));
  REQUIRE(rows.size() == 3);
  const auto& h = rows[0];
  for (const auto& r : rows) REQUIRE(r.size() == h.size());
  CHECK(rows[1][column(h, "file")] == "a/rope_seed0.json");
  CHECK(rows[1][column(h, "val_acc")] == "0.5");
  CHECK(rows[1][column(h, "test_acc")] == "0.375");
  CHECK(rows[1][column(h, "steps_per_s")] == "12.5");
  CHECK(rows[2][column(h, "status")] == "partial");
  CHECK(rows[2][column(h, "test_acc")].empty());
  CHECK(rows[2][column(h, "steps_done")] == "10");
  CHECK(rows[1][column(h, "config.model.attn_temp")] == "learned");
  CHECK(rows[2][column(h, "config.model.attn_temp")] == "fixed");  // absent from that file: its default
  CHECK(rows[1][column(h, "config.train.curriculum_steps")] == "0");  // recorded only when set
  CHECK(rows[1][column(h, "config.train.loss_fields")] == "[]");
  CHECK(rows[1][column(h, "origin.cell")] == "screen_cell");          // the run JSON's origin
  CHECK(rows[1][column(h, "origin.preset")] == "paper");
  CHECK(rows[2][column(h, "origin.cell")].empty());  // no origin, no summary beside it
  CHECK(rows[1][column(h, "config.model.d_model")] == "512");
  CHECK(rows[2][column(h, "config.pe.kind")] == "pope");
  CHECK(rows[1][column(h, "config.model.tied_embeddings")] == "false");
  CHECK(rows[1][column(h, "config.pe.delta_clamp")] == "[-6.283185307179586,0.0]");  // quoted, read back whole
}

TEST_CASE("export --curves: a row per curve point", "[export]") {
  std::vector<ExportedRun> runs = {{"a.json", read_run(run_doc("rope", 0, true, "fixed"), "a")},
                                   {"b.json", read_run(run_doc("pope", 3, true, "fixed"), "b")}};
  auto rows = lines(runs_csv(runs, true));
  REQUIRE(rows.size() == 5);
  const auto& h = rows[0];
  CHECK(rows[1][column(h, "step")] == "0");
  CHECK(rows[1][column(h, "train_loss")].empty());  // null at step 0
  CHECK(rows[2][column(h, "train_acc")] == "0.25");
  CHECK(rows[4][column(h, "seed")] == "3");
  CHECK(rows[4][column(h, "lr")] == "0.0001");
}

TEST_CASE("export: CSV fields are quoted only when they must be", "[export]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"x\"") == "\"say \"\"x\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  // A text cell a spreadsheet would run as a formula starts with a "'"; numbers stay numbers.
  CHECK(csv_field("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"");
  CHECK(csv_field("+cmd") == "'+cmd");
  CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_field("-x") == "'-x");
  CHECK(csv_field("\tx") == "'\tx");
  CHECK(csv_field("-0.5") == "-0.5");
  CHECK(csv_field("+3") == "+3");
  CHECK(csv_field("-1e-3") == "-1e-3");
}

TEST_CASE("export --extrapolation: a row per evaluated run and length bucket, the task's leaves as columns", "[export]") {
  TaskConfig task;
  task.select("k-back");
  const nlohmann::json doc = {
      {"schema", "popebench.extrapolation"}, {"schema_version", 1}, {"task", task},
      {"buckets", {{{"factor", 1}, {"min_len", 4}, {"max_len", 6}, {"examples", 20}},
                   {{"factor", 3}, {"min_len", 13}, {"max_len", 18}, {"examples", 20}}}},
      {"rows", {{{"label", "rope"}, {"pe", "rope"}, {"scaling", "none"}, {"seed", 0}, {"factors", {1, 3}},
                 {"rope_factor", {1.0, 1.0}}, {"acc", {0.5, 0.25}}, {"loss", {1.0, 2.0}}, {"n", {20, 20}},
                 {"train_test_acc", 0.5}, {"run", "runs/rope_seed0.json"}},
                {{"label", "rope+pi"}, {"pe", "rope"}, {"scaling", "pi"}, {"seed", 0}, {"factors", {1, 3}},
                 {"rope_factor", {1.0, 3.0}}, {"acc", {0.5, 0.125}}, {"loss", {1.0, 3.0}}, {"n", {20, 20}},
                 {"train_test_acc", 0.5}, {"run", "runs/rope_seed0.json"}}}}};
  const auto rows = lines(extrapolation_csv({{"a/extrapolation.json", read_extrapolation(doc, "a")}}));
  REQUIRE(rows.size() == 1 + 4);
  const auto& h = rows[0];
  CHECK(rows[4][column(h, "label")] == "rope+pi");
  CHECK(rows[4][column(h, "factor")] == "3");
  CHECK(rows[4][column(h, "bucket_min_len")] == "13");
  CHECK(rows[4][column(h, "rope_factor")] == "3.0");
  CHECK(rows[4][column(h, "acc")] == "0.125");
  CHECK(rows[2][column(h, "acc")] == "0.25");
  CHECK(rows[1][column(h, "task.name")] == "k-back");
  CHECK(rows[1][column(h, "file")] == "a/extrapolation.json");
  CHECK_THROWS_WITH(read_extrapolation(nlohmann::json{{"schema", "popebench.run"}}, "r.json"),
                    Catch::Contains("r.json: not a popebench extrapolation table"));
  nlohmann::json newer = doc;
  newer["schema_version"] = 2;
  CHECK_THROWS_WITH(read_extrapolation(newer, "n.json"), Catch::Contains("schema version other than 1"));
  // Values from elsewhere are checked against what a run can measure (a table once printed a
  // negative mean, or "inf ± -nan"), names against the PEs popebench has.
  auto broken = [&](const std::function<void(nlohmann::json&)>& change, const std::string& message) {
    nlohmann::json d = doc;
    change(d);
    INFO(message);
    CHECK_THROWS_WITH(read_extrapolation(d, "x.json"), Catch::Contains(message));
  };
  broken([](nlohmann::json& d) { d["rows"][0]["acc"][1] = -3.0; }, "row rope: an accuracy outside [0, 1]");
  broken([](nlohmann::json& d) { d["rows"][0]["acc"][0] = 1e308; }, "row rope: an accuracy outside [0, 1]");
  broken([](nlohmann::json& d) { d["rows"][1]["loss"][0] = -1.0; }, "row rope+pi: a loss that is not finite");
  broken([](nlohmann::json& d) { d["rows"][0]["label"] = "ropey"; }, "row 'ropey': unknown positional embedding");
  broken([](nlohmann::json& d) { d["buckets"][1].erase("factor"); }, "a bucket without a whole factor");
  broken([](nlohmann::json& d) { d["buckets"][1]["factor"] = 1; }, "bucket factors not in increasing order");
  broken([](nlohmann::json& d) { d["rows"][0]["n"] = {20}; }, "'n' is not a list with one entry per bucket");
  broken([](nlohmann::json& d) { d["rows"][0]["factors"] = {1, 2}; }, "factors other than the buckets'");
}
