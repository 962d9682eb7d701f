#include "train/run_json.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/json_int.hpp"
#include "common/json_read.hpp"
#include "model/pe/pe_registry.hpp"

namespace popebench {

RunRecord read_run(const nlohmann::json& j, const std::string& what) {
  try {
    if (j.value("schema", "") != "popebench.run") throw UserError(what + ": not a popebench run JSON");
    const int v = json_int<int>(j, "schema_version");
    if (v < 1 || v > kRunSchemaVersion)
      throw UserError(what + ": run schema version " + std::to_string(v) + " is newer than this build reads (" +
                      std::to_string(kRunSchemaVersion) + ")");
    RunRecord r;
    r.status = j.at("status");
    if (r.status != "complete" && r.status != "partial" && r.status != "diverged")
      throw UserError(what + ": unknown run status '" + r.status.substr(0, 40) + "' (known: complete, partial, diverged)");
    r.pe = j.at("config").at("pe").at("kind");
    pe_kind(r.pe);  // an unknown PE: the error names the known ones
    r.seed = json_int<uint64_t>(j.at("config").at("train"), "seed");
    r.steps = json_int<int64_t>(j.at("config").at("train"), "steps");
    if (r.status == "complete") {
      const auto& f = j.at("final");
      r.val_acc = f.at("val").at("acc");
      r.test_acc = f.at("test").at("acc");
      r.val_loss = f.at("val").at("loss");
      r.test_loss = f.at("test").at("loss");
      // What a table averages must be what a run can measure (a file from elsewhere once made a
      // table print a negative mean, or "inf ± -nan").
      for (double a : {r.val_acc, r.test_acc})
        if (!(a >= 0.0 && a <= 1.0)) throw UserError(what + ": an accuracy outside [0, 1] in final");
      for (double l : {r.val_loss, r.test_loss})
        if (!std::isfinite(l) || l < 0) throw UserError(what + ": a loss that is not finite and >= 0 in final");
    }
    if (r.steps < 1) throw UserError(what + ": steps must be >= 1");
    r.raw = j;
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(what + ": malformed run JSON (" + std::string(e.what()) + ")");
  }
}

RunRecord read_run_file(const std::string& path) {
  return read_run(read_json_file(path), path);
}

}  // namespace popebench
