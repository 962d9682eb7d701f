// --loss-fields: with the loss on every token, only the targets in the chosen ','-separated fields
// of the input count, the answer always. Checked against the Indirect Indexing layout written out
// by hand (string, ',', source, ',', sign and digits, ','), for right and left padding; every
// field chosen is the loss "all" exactly; a run trains with it on the CPU backend and differs
// from "all"; bad choices are refused; the run JSON has it only when set.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "generators/task.hpp"
#include "backend/backend.hpp"
#include "model/batch.hpp"
#include "model/transformer.hpp"
#include "tests/test_configs.hpp"

using namespace popebench;
using namespace popebench::test;

namespace {
RunConfig loss_fields_run(std::vector<int> fields) {
  RunConfig c = small_run_config("rope", {5, 9, 3, 12}, /*d_model=*/16, /*n_head=*/2, /*n_train=*/64);
  c.train.loss = TrainLoss::kAll;
  c.train.loss_fields = std::move(fields);
  return c;
}
bool has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }
}  // namespace

TEST_CASE("loss-fields: only the chosen fields' targets count, and the answer", "[screen][model]") {
  const std::vector<std::vector<int>> choices = {{0}, {1}, {2}, {0, 2}, {2, 1}};
  for (std::string pad : {"right", "left"})
    for (const auto& fields : choices) {
      RunConfig c = loss_fields_run(fields);
      c.input.pad = choices::kPad.parse(pad);
      Dataset d = generate_split(c.task, 1, Split::kTrain);
      Batch b = make_training_batch(d, {0, 1, 2, 3, 4, 5}, c.input_len(), c);
      REQUIRE(b.loss_fields == fields);
      TokenTargets tt = every_token_targets(b);
      size_t counted = 0;
      for (int r = 0; r < b.B; ++r) {
        const int start = pad == "left" ? b.T - d.input_length(r) : 0;
        // The string: input tokens [0, L) (symbols, never ','), its ',' at L.
        const int L = int(std::find(d.seq(r), d.seq(r) + d.input_length(r), vocab::kComma) - d.seq(r));
        const int ans = b.answer_pos[r] - start;  // the last ',' (after the shift's sign and digits)
        for (int t = 0; t < b.T; ++t) {
          const int u = t - start + 1;  // the input index of the token position t predicts
          const bool counts = t - start >= 0 && t - start <= ans &&
                              (t - start == ans || (has(fields, 0) && u <= L) ||
                               (has(fields, 1) && u >= L + 1 && u <= L + 2) || (has(fields, 2) && u >= L + 3));
          INFO("pad " << pad << " fields " << fields.size() << " row " << r << " t " << t << " L " << L);
          REQUIRE((tt.weights[size_t(r) * b.T + t] > 0) == counts);
          counted += counts;
        }
      }
      for (double w : tt.weights) CHECK((w == 0 || w == Approx(1.0 / double(counted)).epsilon(1e-15)));
    }
}

TEST_CASE("loss-fields: every field is the loss on every token, fewer train something else", "[screen][model]") {
  RunConfig all = loss_fields_run({});
  RunConfig every = loss_fields_run({0, 1, 2});
  RunConfig shift = loss_fields_run({2});
  Dataset d = generate_split(all.task, 1, Split::kTrain);
  const std::vector<size_t> idx = {0, 1, 2, 3, 4, 5, 6, 7};
  Batch ba = make_training_batch(d, idx, all.input_len(), all), be = make_training_batch(d, idx, every.input_len(), every);
  CHECK(every_token_targets(ba).weights == every_token_targets(be).weights);
  CHECK(every_token_targets(ba).targets == every_token_targets(be).targets);
  // A CPU step: the same loss and parameters with every field listed, another loss with one.
  auto step = [&](const RunConfig& c) {
    auto backend = make_backend(c, DeviceChoice::kCpu);
    StepResult r = backend->train_step(make_training_batch(d, idx, c.input_len(), c), 1e-2, 1);
    std::vector<float> p, m, v;
    backend->get_state(p, m, v);
    return std::make_pair(r.loss, p);
  };
  auto [loss_all, p_all] = step(all);
  auto [loss_every, p_every] = step(every);
  auto [loss_shift, p_shift] = step(shift);
  CHECK(loss_every == loss_all);
  CHECK(p_every == p_all);
  CHECK(std::isfinite(loss_shift));
  CHECK(std::abs(loss_shift - loss_all) > 1e-4);
  CHECK(p_shift != p_all);
}

TEST_CASE("loss-fields: refused without --loss all, out of range, twice, or with a crop, and in the JSON only when set", "[screen][config]") {
  TrainConfig t;
  t.loss_fields = {2};
  CHECK_THROWS_WITH(t.validate(), Catch::Contains("--loss all"));
  t.loss = TrainLoss::kAll;
  CHECK_NOTHROW(t.validate());
  t.loss_fields = {64};
  CHECK_THROWS_WITH(t.validate(), Catch::Contains("[0, 63]"));
  t.loss_fields = {-1};
  CHECK_THROWS_WITH(t.validate(), Catch::Contains("[0, 63]"));
  t.loss_fields = {1, 2, 1};
  CHECK_THROWS_WITH(t.validate(), Catch::Contains("distinct"));
  RunConfig c = loss_fields_run({2});
  CHECK_NOTHROW(c.validate());
  c.input.context = 8;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("context crop"));
  // Absent by default, so that runs made before the option keep their configs; read back when set.
  nlohmann::json none = TrainConfig{};
  CHECK_FALSE(none.contains("loss_fields"));
  CHECK(none.get<TrainConfig>().loss_fields.empty());
  TrainConfig set;
  set.loss = TrainLoss::kAll;
  set.loss_fields = {0, 2};
  nlohmann::json j = set;
  CHECK(j.at("loss_fields") == nlohmann::json({0, 2}));
  CHECK(j.get<TrainConfig>().loss_fields == std::vector<int>{0, 2});
  // Read as every integer of a user's file is (common/json_int.hpp): no float, no other type.
  for (nlohmann::json bad_fields : {nlohmann::json({1.5}), nlohmann::json({1e73}), nlohmann::json(2), nlohmann::json({"2"})}) {
    nlohmann::json jb = j;
    jb["loss_fields"] = bad_fields;
    INFO(bad_fields.dump());
    CHECK_THROWS_AS(jb.get<TrainConfig>(), nlohmann::json::type_error);
  }
}
