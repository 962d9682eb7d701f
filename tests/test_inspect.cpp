// popebench inspect's diagnostics (report/inspect.hpp): examples read back as drawn, prediction
// classes, accuracy equal to the training loop's evaluation, attention shares that sum to one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "generators/indirect_indexing.hpp"
#include "generators/task.hpp"
#include "generators/vocab.hpp"
#include "backend/backend.hpp"
#include "report/inspect.hpp"
#include "train/trainer.hpp"
#include "tests/test_configs.hpp"
#include "train/evaluate.hpp"

using namespace popebench;

TEST_CASE("inspect reads every example back as the generator drew it", "[inspect]") {
  IndirectIndexingConfig c;
  c.min_len = 5;
  c.max_len = 30;
  c.max_shift = 12;  // two-digit shifts too
  c.alphabet = 40;
  Pcg32 rng(3, 1);
  for (int i = 0; i < 2000; ++i) {
    IndirectIndexingExample ex = draw_indirect_indexing(rng, c);
    ParsedExample e = parse_indirect_indexing(ex.tokens.data(), int(ex.tokens.size()));
    INFO(to_text(ex.tokens.data(), int(ex.tokens.size())));
    REQUIRE(e.str_len == ex.str_len);
    REQUIRE(e.source_pos == ex.source_pos);
    REQUIRE(e.shift == ex.shift);
    REQUIRE(e.target == ex.tokens.back());
    REQUIRE(ex.tokens[e.target_pos] == e.target);
  }
  auto toks = parse_text("ABCDE,B,+2,D");
  CHECK_THROWS_WITH(parse_indirect_indexing(toks.data(), int(toks.size()) - 1), Catch::Contains("not an Indirect Indexing"));
  auto wrong = parse_text("ABCDE,B,+2,E");  // the target is not source + shift
  CHECK_THROWS_WITH(parse_indirect_indexing(wrong.data(), int(wrong.size())), Catch::Contains("not an Indirect Indexing"));
}

TEST_CASE("prediction classes are plateau_levels.py's partial solutions", "[inspect]") {
  auto t = parse_text("ABCDEFGHIJ,D,+2,F");  // source D at 3, target F at 5
  ParsedExample e = parse_indirect_indexing(t.data(), int(t.size()));
  auto cls = [&](char c, int max_shift) { return prediction_class(t.data(), e, vocab::char_token(c), max_shift); };
  CHECK(cls('F', 4) == "correct");
  CHECK(cls('H', 4) == "source, right sign");   // +4
  CHECK(cls('E', 4) == "source, right sign");   // +1
  CHECK(cls('B', 4) == "source, wrong sign");   // -2
  CHECK(cls('J', 4) == "other letter of the string");  // +6, beyond the largest shift
  CHECK(cls('D', 4) == "other letter of the string");  // the source itself: shift 0 is not a shift
  CHECK(cls('Z', 4) == "not in the string");
}

TEST_CASE("inspect's accuracy is the evaluation's, and attention shares sum to one", "[inspect]") {
  for (int context : {0, 11}) {
    RunConfig c = test::small_run_config("pope", {5, 9, 3, 12}, 16, 2, 64);
    c.task.n_test = 150;
    c.model.init_std = 0.3;
    c.input.context = context;
    c.train.eval_batch = 64;
    auto be = make_backend(c, DeviceChoice::kCpu);
    Dataset d = generate_split(c.task, 0, Split::kTest);
    Batch b = make_batch(generate_split(c.task, 0, Split::kTrain), {0, 1, 2, 3, 4, 5, 6, 7}, c.input_len(), c.input);
    for (long s = 1; s <= 20; ++s) be->train_step(b, 3e-3, s);  // something other than the init
    std::vector<float> p, m, v;
    be->get_state(p, m, v);
    InspectOptions o;
    o.batch = 37;  // batches that do not divide the split
    o.show = 5;
    std::vector<PredictionRow> rows;
    nlohmann::json r = inspect_model(c, p, d, o, &rows);
    INFO("context " << context);
    // Every example once, in order; its rows agree with the JSON's tallies and shown examples.
    REQUIRE(rows.size() == d.size());
    std::map<int, std::pair<size_t, size_t>> shift_tally;  // shift -> (n, hits)
    size_t row_hits = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].index == i);
      const bool hit = rows[i].prediction == rows[i].target;
      row_hits += hit;
      shift_tally[rows[i].shift].first++;
      shift_tally[rows[i].shift].second += hit;
      CHECK((rows[i].cls == "correct") == hit);
    }
    CHECK(double(row_hits) / rows.size() == Approx(r["acc"].get<double>()).margin(1e-12));
    for (const auto& [shift, t] : shift_tally) {
      const auto& js = r["by_shift"][std::to_string(shift)];
      CHECK(js["n"].get<size_t>() == t.first);
      CHECK(js["acc"].get<double>() == Approx(double(t.second) / t.first).margin(1e-12));
    }
    for (size_t k = 0; k < r["examples"].size(); ++k) {
      CHECK(r["examples"][k]["example"] == rows[k].example);
      CHECK(r["examples"][k]["prediction"] == rows[k].prediction);
    }
    // The CSV: a header and one line per row; the example's commas are quoted.
    const std::string csv = predictions_csv(rows);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == long(rows.size()) + 1);
    CHECK(csv.rfind("index,example,string_length,source_pos,shift,target,prediction,correct,class\n", 0) == 0);
    CHECK(csv.find("\n0,\"" + rows[0].example + "\",") != std::string::npos);
    CHECK(r["acc"].get<double>() == Approx(evaluate(*be, c, d).acc).margin(1e-12));
    CHECK(r["examples"].size() == 5);
    size_t total = 0;
    for (const auto& [k, t] : r["by_shift"].items()) total += t["n"].get<size_t>();
    CHECK(total == d.size());
    size_t classes = 0;
    for (const auto& [k, t] : r["prediction_classes"].items()) classes += t["n"].get<size_t>();
    CHECK(classes == d.size());
    const auto& att = r["attention_from_answer"];
    CHECK(att["examples"].get<size_t>() + att["left_out_cropped"].get<size_t>() == d.size());
    if (context == 0) CHECK(att["left_out_cropped"] == 0);
    else CHECK(att["left_out_cropped"].get<size_t>() > 0);  // strings of up to 9 letters, 6 of them kept
    REQUIRE(att["layers"].size() == 2);
    for (const auto& layer : att["layers"])
      for (const auto& head : layer["heads"]) {
        double sum = 0;
        for (const auto& [k, share] : head.items()) sum += share.get<double>();
        CHECK(sum == Approx(1.0).epsilon(1e-5));
      }
    const auto& qa = r["attention_from_query"];
    REQUIRE(qa["layers"].size() == 2);
    for (const auto& layer : qa["layers"])
      for (const auto& head : layer["heads"]) {
        CHECK(head["source"].get<double>() > 0);
        CHECK(head["source"].get<double>() + head["target"].get<double>() <= 1.0 + 1e-9);
      }
    REQUIRE(r["pope_delta"].size() == 2);
    CHECK(r["pope_delta"][0]["histogram_8_bins"].size() == 8);
  }
  RunConfig k = test::small_run_config("rope", {5, 9, 3, 12}, 16, 2, 64);
  k.task.select("k-back");
  CHECK_THROWS_WITH(inspect_model(k, {}, Dataset{}, InspectOptions{}), Catch::Contains("Indirect Indexing models only"));
}
