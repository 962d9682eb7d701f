// The curriculum over length (--curriculum-steps, train/batch_sampler.hpp): short inputs first,
// the limit growing linearly to the split's longest, the run still a function of its seed. A run
// resumed mid-curriculum is checked in test_training.cpp's resume test.
#include <catch2/catch.hpp>

#include <algorithm>

#include "common/rng.hpp"
#include "train/batch_sampler.hpp"
#include "config/config.hpp"

using namespace popebench;

TEST_CASE("curriculum: inputs no longer than a limit growing from the shortest to the longest", "[screen][data]") {
  std::vector<uint16_t> lengths(500);  // full lengths 11..31: input lengths 10..30
  Pcg32 r(3, 1);
  for (auto& l : lengths) l = static_cast<uint16_t>(11 + r.bounded(21));
  BatchSampler s(BatchSampling::kReplacement, 7, lengths, 100);
  CHECK(s.length_limit(0) == 10);
  CHECK(s.length_limit(49) == 20);
  CHECK(s.length_limit(99) == 30);
  CHECK(s.length_limit(100) == 30);
  std::vector<size_t> idx(64);
  int longest_after = 0;
  for (int64_t step : {0, 10, 49, 99, 100, 500}) {
    s.next(idx, step);
    int longest = 0;
    for (size_t i : idx) longest = std::max(longest, lengths[i] - 1);
    INFO("step " << step);
    CHECK(longest <= s.length_limit(step));
    if (step >= 100) longest_after = std::max(longest_after, longest);
  }
  CHECK(longest_after > 20);  // after the curriculum, long inputs come back
  // The same seed draws the same examples; no curriculum is the plain stream of replacement.
  BatchSampler a(BatchSampling::kReplacement, 7, lengths, 100), b(BatchSampling::kReplacement, 7, lengths, 100);
  std::vector<size_t> ia(64), ib(64);
  for (int64_t step = 0; step < 5; ++step) {
    a.next(ia, step);
    b.next(ib, step);
    CHECK(ia == ib);
  }
  BatchSampler none(BatchSampling::kReplacement, 7, lengths, 0);
  Pcg32 old = make_stream(7, Stream::kBatches);
  none.next(idx, 0);
  for (size_t i : idx) CHECK(i == old.bounded(static_cast<uint32_t>(lengths.size())));
  CHECK_THROWS_WITH(BatchSampler(BatchSampling::kEpochs, 7, lengths, 10), Catch::Contains("not with --sampling epochs"));
  TrainConfig bad;
  bad.steps = 10;
  bad.curriculum_steps = 11;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("curriculum's steps must be in [0, steps]"));
  bad.curriculum_steps = 5;
  bad.sampling = BatchSampling::kEpochs;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("cannot be combined with --sampling epochs"));
}
