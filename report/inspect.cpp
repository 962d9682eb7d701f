#include "report/inspect.hpp"
#include "report/frequency_usage.hpp"

#include "report/export_csv.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.hpp"
#include "model/pe/pe_registry.hpp"
#include "generators/vocab.hpp"
#include "kernels/cpu/pope.hpp"
#include "model/batch.hpp"
#include "report/export_csv.hpp"
#include "model/transformer.hpp"

namespace popebench {

ParsedExample parse_indirect_indexing(const uint16_t* seq, int length) {
  auto bad = [] { throw UserError("not an Indirect Indexing example (string,source,shift,target)"); };
  ParsedExample e;
  int c1 = 0;
  while (c1 < length && seq[c1] != vocab::kComma) ++c1;
  // string, ',', source, ',', sign, digit(s), ',', target
  if (c1 < 1 || c1 + 6 > length || seq[c1 + 2] != vocab::kComma) bad();
  e.str_len = c1;
  e.query_pos = c1 + 1;
  e.shift_begin = c1 + 3;
  int c3 = e.shift_begin;
  while (c3 < length && seq[c3] != vocab::kComma) ++c3;
  if (c3 != length - 2 || c3 - e.shift_begin < 2) bad();
  e.shift_end = c3;
  const uint16_t sign = seq[e.shift_begin];
  if (sign != vocab::kPlus && sign != vocab::kMinus) bad();
  int mag = 0;
  for (int t = e.shift_begin + 1; t < c3; ++t) {
    if (seq[t] < vocab::kDigit0 || seq[t] >= vocab::kFirstSymbol) bad();
    mag = 10 * mag + (seq[t] - vocab::kDigit0);
  }
  e.shift = sign == vocab::kMinus ? -mag : mag;
  e.source_pos = -1;
  for (int j = 0; j < c1; ++j)
    if (seq[j] == seq[e.query_pos]) e.source_pos = j;
  e.target_pos = e.source_pos + e.shift;
  e.target = seq[length - 1];
  if (e.source_pos < 0 || e.target_pos < 0 || e.target_pos >= c1 || seq[e.target_pos] != e.target) bad();
  return e;
}

std::string prediction_class(const uint16_t* seq, const ParsedExample& e, int prediction, int max_shift) {
  if (prediction == e.target) return "correct";
  int at = -1;
  for (int j = 0; j < e.str_len; ++j)
    if (seq[j] == prediction) at = j;
  if (at < 0) return "not in the string";
  const int k = at - e.source_pos;
  if (k != 0 && std::abs(k) <= max_shift) return (k > 0) == (e.shift > 0) ? "source, right sign" : "source, wrong sign";
  return "other letter of the string";
}

namespace {
struct Tally {
  size_t n = 0, hits = 0;
  void add(bool hit) { ++n; hits += hit; }
};
nlohmann::json tally_json(const std::map<int, Tally>& m) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, t] : m) out[std::to_string(k)] = {{"n", t.n}, {"acc", t.n ? double(t.hits) / t.n : 0.0}};
  return out;
}
std::string example_text(const uint16_t* seq, int length) {
  std::string s;
  for (int t = 0; t < length; ++t) s += vocab::token_text(seq[t]);
  return s;
}
// PoPE's delta as the forward pass sees it (clamped), per layer: moments, the share at each bound,
// the share outside the interval before the clamp, and a histogram of 8 bins over [-2 pi, 0];
// null for a PE without a learned key phase. per_channel gets each layer's (H D) values, as
// FrequencyUsage::json takes them.
nlohmann::json pope_delta_json(const RunConfig& cfg, const std::vector<float>& params, const Transformer<float>& model,
                               std::vector<std::vector<double>>& per_channel) {
  if (!pe_kind(cfg.pe.kind).delta) return nullptr;
  const int L = cfg.model.n_layer, H = cfg.model.n_head;
  nlohmann::json delta = nlohmann::json::array();
  for (int l = 0; l < L; ++l) {
    // The layer's block (a shared delta: the same block for every layer).
    const size_t first = model.layout().layers[l].pe, count = size_t(H) * cfg.model.head_dim();
    per_channel.emplace_back();
    for (size_t i = first; i < first + count; ++i) per_channel.back().push_back(cpu::clamp_delta(double(params[i])));
    std::vector<int> hist(8, 0);
    double s = 0, s2 = 0;
    size_t lo = 0, hi = 0, outside = 0;
    for (size_t i = first; i < first + count; ++i) {
      const double raw = params[i], x = cpu::clamp_delta(raw);
      outside += raw < cpu::kPopeDeltaMin || raw > cpu::kPopeDeltaMax;
      lo += x - cpu::kPopeDeltaMin < 1e-3;
      hi += cpu::kPopeDeltaMax - x < 1e-3;
      s += x;
      s2 += x * x;
      hist[std::min(7, int((x - cpu::kPopeDeltaMin) / (2 * M_PI) * 8))]++;
    }
    const double cnt = double(count), mean = s / cnt;
    delta.push_back({{"layer", l}, {"mean", mean}, {"std", std::sqrt(std::max(0.0, s2 / cnt - mean * mean))},
                     {"share_at_minus_2pi", lo / cnt}, {"share_at_0", hi / cnt}, {"share_outside_before_clamp", outside / cnt},
                     {"histogram_8_bins", hist}});
  }
  return delta;
}
}  // namespace

nlohmann::json inspect_model(const RunConfig& cfg, const std::vector<float>& params, const Dataset& d,
                             const InspectOptions& o, std::vector<PredictionRow>* predictions) {
  if (!cfg.task.is<IndirectIndexingConfig>())
    throw UserError("inspect reads Indirect Indexing models only (the run's task is " + cfg.task.name() + ")");
  Transformer<float> model(cfg.model, cfg.pe);
  if (params.size() != model.layout().total) throw UserError("the parameters do not match the model");
  const int L = cfg.model.n_layer, H = cfg.model.n_head, V = cfg.model.vocab_size, max_shift = cfg.task.as<IndirectIndexingConfig>().max_shift;
  const size_t n = o.examples ? std::min(o.examples, d.size()) : d.size();
  const int row = cfg.input_len();
  // Attention mass from the answer position, summed over examples: (L, H, kinds).
  static const char* kKinds[] = {"source", "target", "target_neighbours", "query", "shift", "other"};
  constexpr int K = 6;
  std::vector<double> mass(size_t(L) * H * K, 0.0);
  // From the query letter's position (after the first ','): the mass on the source letter in the
  // string (a lookup of the query there) and on the target: (L, H, 2).
  std::vector<double> qmass(size_t(L) * H * 2, 0.0);
  size_t q_attended = 0;
  size_t attended = 0, cropped = 0;  // examples whose source or target the crop removed are left out of `mass`
  std::map<int, Tally> by_shift, by_len, by_source;
  std::map<std::string, size_t> classes;
  nlohmann::json shown = nlohmann::json::array();
  size_t hits = 0;
  FrequencyUsage usage(L, H, model.frequency_channels());
  for (size_t first = 0; first < n; first += o.batch) {
    std::vector<size_t> idx;
    for (size_t i = first; i < std::min(n, first + o.batch); ++i) idx.push_back(i);
    Batch b = make_batch(d, idx, row, cfg.input);
    model.forward(params.data(), b);
    usage.add(model, b);
    const auto& logits = model.logits();
    for (int r = 0; r < b.B; ++r) {
      const size_t i = idx[r];
      const uint16_t* seq = d.seq(i);
      const ParsedExample e = parse_indirect_indexing(seq, d.length(i));
      const float* lg = logits.data() + size_t(r) * V;
      const int pred = int(std::max_element(lg, lg + V) - lg);
      const bool hit = pred == e.target;
      hits += hit;
      by_shift[e.shift].add(hit);
      by_len[e.str_len].add(hit);
      by_source[e.source_pos].add(hit);
      const std::string cls = prediction_class(seq, e, pred, max_shift);
      ++classes[cls];
      if (int(shown.size()) < o.show)
        shown.push_back({{"index", i}, {"example", example_text(seq, d.length(i))}, {"source_pos", e.source_pos},
                         {"shift", e.shift}, {"target", vocab::token_text(uint16_t(e.target))},
                         {"prediction", vocab::token_text(uint16_t(pred))}, {"class", cls}});
      if (predictions)
        predictions->push_back({i, example_text(seq, d.length(i)), e.str_len, e.source_pos, e.shift,
                                vocab::token_text(uint16_t(e.target)), vocab::token_text(uint16_t(pred)), cls});
      // Token index j of the example -> its column in the row (context crop, padding side).
      const int len = d.length(i) - 1, kept = cfg.input.context > 0 ? std::min(len, cfg.input.context) : len;
      const int start = cfg.input.pad == PadSide::kLeft ? row - kept : 0, dropped = len - kept;
      auto col = [&](int j) { return j < dropped ? -1 : start + j - dropped; };
      if (col(e.source_pos) < 0 || col(e.target_pos) < 0) {
        ++cropped;
        continue;
      }
      ++attended;
      std::vector<int> kind(b.T, 5);  // "other" unless named below
      for (int j = e.shift_begin; j < e.shift_end; ++j)
        if (col(j) >= 0) kind[col(j)] = 4;
      if (col(e.query_pos) >= 0) kind[col(e.query_pos)] = 3;
      for (int j : {e.target_pos - 1, e.target_pos + 1})
        if (j >= 0 && j < e.str_len && j != e.source_pos && col(j) >= 0) kind[col(j)] = 2;
      kind[col(e.target_pos)] = 1;
      kind[col(e.source_pos)] = 0;
      const int a = b.answer_pos[r], qc = col(e.query_pos);
      if (qc >= 0) ++q_attended;
      for (int l = 0; l < L; ++l) {
        const auto& probs = model.attention_probs(l);  // (B, H, T, T)
        for (int h = 0; h < H; ++h) {
          const float* p = probs.data() + ((size_t(r) * H + h) * b.T + a) * b.T;
          double* m = mass.data() + (size_t(l) * H + h) * K;
          for (int t = 0; t <= a; ++t) m[kind[t]] += p[t];
          if (qc >= 0) {
            const float* pq = probs.data() + ((size_t(r) * H + h) * b.T + qc) * b.T;
            qmass[(size_t(l) * H + h) * 2] += pq[col(e.source_pos)];
            qmass[(size_t(l) * H + h) * 2 + 1] += pq[col(e.target_pos)];
          }
        }
      }
    }
  }
  nlohmann::json att = nlohmann::json::array();
  for (int l = 0; l < L; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int h = 0; h < H; ++h) {
      nlohmann::json m;
      for (int k = 0; k < K; ++k) m[kKinds[k]] = attended ? mass[(size_t(l) * H + h) * K + k] / attended : 0.0;
      heads.push_back(m);
    }
    att.push_back({{"layer", l}, {"heads", heads}});
  }
  nlohmann::json qatt = nlohmann::json::array();
  for (int l = 0; l < L; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int h = 0; h < H; ++h) {
      const double* q = qmass.data() + (size_t(l) * H + h) * 2;
      heads.push_back({{"source", q_attended ? q[0] / q_attended : 0.0}, {"target", q_attended ? q[1] / q_attended : 0.0}});
    }
    qatt.push_back({{"layer", l}, {"heads", heads}});
  }
  std::vector<std::vector<double>> delta_per_channel;  // (L) x (H D), clamped: frequency_usage's
  const nlohmann::json delta = pope_delta_json(cfg, params, model, delta_per_channel);
  nlohmann::json cls = nlohmann::json::object();
  for (const auto& [k, c] : classes) cls[k] = {{"n", c}, {"share", double(c) / n}};
  return {{"n", n}, {"acc", n ? double(hits) / n : 0.0}, {"by_shift", tally_json(by_shift)},
          {"by_string_length", tally_json(by_len)}, {"by_source_position", tally_json(by_source)},
          {"prediction_classes", cls},
          {"attention_from_answer", {{"examples", attended}, {"left_out_cropped", cropped}, {"layers", att}}},
          {"attention_from_query", {{"examples", q_attended}, {"layers", qatt}}},
          {"pope_delta", delta},
          {"frequency_usage", usage.json(delta_per_channel.empty() ? nullptr : &delta_per_channel)},
          {"examples", shown}};
}

nlohmann::json inspect_frequencies(const RunConfig& cfg, const std::vector<float>& params, const Dataset& d,
                                  const InspectOptions& o) {
  Transformer<float> model(cfg.model, cfg.pe);
  if (params.size() != model.layout().total) throw UserError("the parameters do not match the model");
  const size_t n = o.examples ? std::min(o.examples, d.size()) : d.size();
  FrequencyUsage usage(cfg.model.n_layer, cfg.model.n_head, model.frequency_channels());
  for (size_t first = 0; first < n; first += o.batch) {
    std::vector<size_t> idx;
    for (size_t i = first; i < std::min(n, first + o.batch); ++i) idx.push_back(i);
    const Batch b = make_batch(d, idx, cfg.input_len(), cfg.input);
    model.forward(params.data(), b);
    usage.add(model, b);
  }
  std::vector<std::vector<double>> delta_per_channel;
  const nlohmann::json delta = pope_delta_json(cfg, params, model, delta_per_channel);
  return {{"n", n}, {"pope_delta", delta},
          {"frequency_usage", usage.json(delta_per_channel.empty() ? nullptr : &delta_per_channel)}};
}

std::string predictions_csv(const std::vector<PredictionRow>& rows) {
  std::string out = "index,example,string_length,source_pos,shift,target,prediction,correct,class\n";
  for (const auto& r : rows)
    out += std::to_string(r.index) + "," + csv_field(r.example) + "," + std::to_string(r.str_len) + "," +
           std::to_string(r.source_pos) + "," + std::to_string(r.shift) + "," + csv_field(r.target) + "," +
           csv_field(r.prediction) + "," + (r.prediction == r.target ? "1" : "0") + "," + csv_field(r.cls) + "\n";
  return out;
}

}  // namespace popebench
