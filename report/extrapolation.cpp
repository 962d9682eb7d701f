#include "report/extrapolation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "common/error.hpp"
#include "config/choices.hpp"
#include "model/pe/pe_registry.hpp"
#include "common/rng.hpp"
#include "report/summary.hpp"
#include "model/pe/label.hpp"

namespace popebench {

void ExtrapolationConfig::validate() const {
  if (factors.empty()) throw UserError("extrapolation: no length factors");
  for (size_t i = 0; i < factors.size(); ++i) {
    if (factors[i] < 1 || factors[i] > 100) throw UserError("extrapolation: factors must be in [1, 100]");
    if (i > 0 && factors[i] <= factors[i - 1]) throw UserError("extrapolation: factors must increase");
  }
  if (examples < 1) throw UserError("extrapolation: need at least 1 example per bucket");
  if (base_len < 0 || base_len > 1000000) throw UserError("extrapolation: the base length must be 0 (the training length) or in [1, 10^6]");
  for (RopeScaling v : rope_variants)
    if (v == RopeScaling::kNone) throw UserError("extrapolation: 'none' is not a RoPE variant (every run is evaluated without scaling)");
}

std::vector<RopeScaling> rope_variants_from(const std::vector<std::string>& words) {
  std::vector<RopeScaling> out;
  for (const std::string& w : words) {
    if (w == "none") throw UserError("--rope-variants: 'none' stands alone (no extra rows), not in a list");
    if (!choices::kRopeScaling.has(w)) throw UserError("--rope-variants: unknown RoPE variant '" + w + "' (known: pi, ntk, yarn)");
    out.push_back(choices::kRopeScaling.parse(w));
  }
  return out;
}

void to_json(nlohmann::json& j, const ExtrapolationConfig& c) {
  j = {{"factors", c.factors}, {"examples_per_bucket", c.examples}, {"rope_variants", c.rope_variants},
       {"buckets", c.base_len > 0 ? "factor k: lengths ((k-1) L, k L], k = 1 from the training range's start; L = base_len"
                                  : "factor k: lengths ((k-1) L, k L], k = 1: the training range; L = training max length"}};
  if (c.base_len > 0) j["base_len"] = c.base_len;
  if (c.gpu_attention) j["gpu_attention"] = *c.gpu_attention;
}

std::vector<Bucket> make_buckets(const TaskConfig& train, uint64_t data_seed, const ExtrapolationConfig& e) {
  e.validate();
  std::vector<Bucket> out;
  const int L = e.base_len > 0 ? e.base_len : train.max_len();
  for (int k : e.factors) {
    Bucket b{k, train, derive_seed(data_seed, 1000 + static_cast<uint64_t>(k))};
    if (k == 1)  // from the training range's start (with base_len, L alone where that start lies beyond L)
      b.task.set_length_range(std::min(train.min_len(), L), L);
    else
      b.task.set_length_range((k - 1) * L + 1, k * L);
    b.task.n_train = 0;
    b.task.n_val = 0;
    b.task.n_test = static_cast<uint64_t>(e.examples);
    try {
      b.task.validate();
    } catch (const UserError& err) {
      throw UserError("length bucket " + std::to_string(k) + "x: " + err.what());
    }
    out.push_back(b);
  }
  return out;
}

int longest_input(const std::vector<Bucket>& buckets) {
  int w = 0;
  for (const auto& b : buckets) w = std::max(w, b.task.width() - 1);
  return w;
}

nlohmann::json buckets_json(const std::vector<Bucket>& buckets) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& b : buckets)
    out.push_back({{"factor", b.factor}, {"min_len", b.task.min_len()}, {"max_len", b.task.max_len()},
                   {"max_input", b.task.width() - 1}, {"examples", b.task.n_test}, {"data_seed", b.seed}});
  return out;
}

std::vector<RopeScaling> scalings_for(const PEConfig& pe, const ExtrapolationConfig& e) {
  std::vector<RopeScaling> s = {RopeScaling::kNone};
  const PEKindInfo& k = pe_kind(pe.kind);
  for (RopeScaling v : e.rope_variants)  // yarn only where its attention factor is exact (PEKindInfo::yarn)
    if (k.rope_scaling && (v != RopeScaling::kYarn || k.yarn)) s.push_back(v);
  return s;
}

void check_extrapolation_doc(const nlohmann::json& doc, const std::string& what) {
  auto bad = [&](const std::string& why) { throw UserError(what + ": " + why + " (not as `popebench extrapolate` writes it)"); };
  if (!doc.is_object() || doc.value("schema", "") != "popebench.extrapolation") bad("not a popebench extrapolation table");
  if (!doc.contains("schema_version") || !doc["schema_version"].is_number_integer() || doc["schema_version"] != 1)
    bad("schema version other than 1");
  for (const char* key : {"rows", "buckets", "task"})
    if (!doc.contains(key)) bad(std::string("no '") + key + "'");
  if (!doc["rows"].is_array() || !doc["buckets"].is_array() || !doc["task"].is_object()) bad("malformed rows, buckets or task");
  std::vector<int64_t> factors;
  for (const auto& b : doc["buckets"]) {
    if (!b.is_object() || !b.contains("factor") || !b["factor"].is_number_integer() || b["factor"].get<int64_t>() < 1 ||
        b["factor"].get<int64_t>() > 1000000)
      bad("a bucket without a whole factor from 1 to 10^6");
    if (!factors.empty() && b["factor"].get<int64_t>() <= factors.back()) bad("bucket factors not in increasing order");
    factors.push_back(b["factor"].get<int64_t>());
  }
  if (factors.empty()) bad("no buckets");
  for (const auto& r : doc["rows"]) {
    if (!r.is_object() || !r.contains("label") || !r["label"].is_string()) bad("a row without a label");
    const std::string label = r["label"];
    try {
      pe_from_label(label.substr(0, label.find('+')), PEConfig{});
    } catch (const UserError& e) {
      bad("row '" + label.substr(0, 40) + "': " + e.what());
    }
    auto whole = [](const nlohmann::json& v) { return v.is_number_integer() && v.get<int64_t>() >= 0; };
    if (!r.contains("seed") || !whole(r["seed"])) bad("row " + label + ": no seed");
    for (const char* key : {"acc", "loss", "n", "factors"})
      if (!r.contains(key) || !r[key].is_array() || r[key].size() != factors.size())
        bad("row " + label + ": '" + key + "' is not a list with one entry per bucket");
    for (size_t k = 0; k < factors.size(); ++k) {
      const auto &acc = r["acc"][k], &loss = r["loss"][k];
      if (!acc.is_number() || !(acc.get<double>() >= 0.0 && acc.get<double>() <= 1.0)) bad("row " + label + ": an accuracy outside [0, 1]");
      if (!loss.is_number() || !std::isfinite(loss.get<double>()) || loss.get<double>() < 0) bad("row " + label + ": a loss that is not finite and >= 0");
      if (!whole(r["n"][k])) bad("row " + label + ": a count that is not a whole number");
      if (r["factors"][k] != factors[k]) bad("row " + label + ": factors other than the buckets'");
    }
    if (r.contains("bits_per_byte")) {  // the text task's
      const auto& b = r["bits_per_byte"];
      if (!b.is_array() || b.size() != factors.size()) bad("row " + label + ": 'bits_per_byte' is not a list with one entry per bucket");
      for (const auto& x : b)
        if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 0)
          bad("row " + label + ": a bits per byte that is not finite and >= 0");
    }
  }
}

std::string extrapolation_metric(const std::vector<nlohmann::json>& rows) {
  const bool bits = !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const nlohmann::json& r) {
    return r.contains("bits_per_byte");
  });
  return bits ? "bits_per_byte" : "acc";
}

nlohmann::json summarise_extrapolation(const std::vector<nlohmann::json>& rows) {
  // Language modelling (the text task) is judged by bits per byte, every other task by accuracy.
  const std::string metric = extrapolation_metric(rows);
  const double scale = metric == "acc" ? 100.0 : 1.0;  // accuracy as %
  std::map<std::string, std::vector<const nlohmann::json*>> by_label;
  std::vector<std::string> order;  // first appearance: the order the user listed the PEs in
  for (const auto& r : rows) {
    const std::string l = r.at("label");
    if (!by_label.count(l)) order.push_back(l);
    by_label[l].push_back(&r);
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& label : order) {
    const auto& rs = by_label[label];
    const auto& factors = rs.front()->at("factors");
    nlohmann::json mean = nlohmann::json::array(), sd = nlohmann::json::array(), seeds = nlohmann::json::array();
    for (const auto* r : rs) seeds.push_back(r->at("seed"));
    for (size_t k = 0; k < factors.size(); ++k) {
      std::vector<double> xs;
      for (const auto* r : rs) xs.push_back(scale * r->at(metric)[k].get<double>());
      const MeanStd ms = mean_sample_std(xs);
      mean.push_back(ms.mean);
      sd.push_back(ms.std);
    }
    // One seed: std is null as a whole (mean_sample_std's null per bucket).
    out.push_back({{"label", label}, {"seeds", seeds}, {"factors", factors}, {"metric", metric}, {"mean", mean},
                   {"std", rs.size() > 1 ? sd : nlohmann::json(nullptr)}});
  }
  return out;
}

std::string extrapolation_heading(const nlohmann::json& doc) {
  const TaskConfig t = readable_task(doc.at("task"), "extrapolation table");
  try {
    std::set<uint64_t> seeds_per_pe, examples;
    for (const auto& row : doc.at("table")) seeds_per_pe.insert(row.at("seeds").size());
    int longest = 1;
    for (const auto& b : doc.at("buckets")) {
      examples.insert(b.at("examples").get<uint64_t>());
      longest = std::max(longest, b.at("factor").get<int>());
    }
    const std::string seeds = one_or_other(seeds_per_pe), ex = one_or_other(examples);
    const auto& table = doc.at("table");
    const bool bits = !table.empty() && table.front().value("metric", "acc") == "bits_per_byte";
    char buf[512];
    if (bits)  // text: every bucket scores the same first N bytes of the test documents
      std::snprintf(buf, sizeof buf,
                    "%s, trained on windows of %d bytes, tested zero-shot on windows up to %dx as long (the same %s bytes "
                    "of test text each); %s seed%s per PE; bits per byte (lower is better), mean ± sample std over seeds.\n\n",
                    t.name().c_str(), t.max_len(), longest, ex.c_str(), seeds.c_str(), seeds == "1" ? "" : "s");
    else
      std::snprintf(buf, sizeof buf,
                    "%s, trained on lengths %d-%d, tested zero-shot on buckets up to %dx as long (%s examples each); "
                    "%s seed%s per PE; chance %.1f %%; test accuracy %%, mean ± sample std over seeds.\n\n",
                    t.name().c_str(), t.min_len(), t.max_len(), longest, ex.c_str(), seeds.c_str(), seeds == "1" ? "" : "s",
                    100 * t.chance());
    return buf;
  } catch (const nlohmann::json::exception&) {
    throw UserError("extrapolation table: malformed table or buckets");
  }
}

std::string extrapolation_markdown(const nlohmann::json& table) {
  if (table.empty()) return "";
  std::string out = "| PE |";
  std::string sep = "| --- |";
  for (const auto& k : table.front().at("factors")) {
    out += " " + std::to_string(k.get<int>()) + "x |";
    sep += " --- |";
  }
  out += "\n" + sep + "\n";
  for (const auto& row : table) {
    out += "| " + row.at("label").get<std::string>() + " |";
    const int digits = row.value("metric", "acc") == "bits_per_byte" ? 3 : 1;
    for (size_t k = 0; k < row.at("mean").size(); ++k) {
      const nlohmann::json sd = row["std"].is_null() ? nlohmann::json(nullptr) : row["std"][k];
      out += " " + format_mean_std(row["mean"][k].get<double>(), sd, digits) + " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace popebench
