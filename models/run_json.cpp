#include "models/run_json.hpp"

#include "common/files.hpp"
#include "common/json_int.hpp"
#include "common/json_read.hpp"

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
    r.pe = j.at("config").at("pe").at("kind");
    r.seed = json_int<uint64_t>(j.at("config").at("train"), "seed");
    r.steps = json_int<int64_t>(j.at("config").at("train"), "steps");
    if (r.status == "complete") {
      const auto& f = j.at("final");
      r.val_acc = f.at("val").at("acc");
      r.test_acc = f.at("test").at("acc");
      r.val_loss = f.at("val").at("loss");
      r.test_loss = f.at("test").at("loss");
    }
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
