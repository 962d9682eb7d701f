// Fuzz target: an extrapolation table (extrapolation.json), read as `merge` and `export
// --extrapolation` read it: checked against the format, then summarised, printed and exported.
#include "common/error.hpp"
#include "common/json_read.hpp"
#include "fuzz/fuzz_util.hpp"
#include "report/export_csv.hpp"
#include "report/extrapolation.hpp"

using namespace popebench;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::write_input("extrapolation.json", data, size);
  try {
    const nlohmann::json doc = read_extrapolation(read_json_file(path), path);
    std::vector<nlohmann::json> rows(doc.at("rows").begin(), doc.at("rows").end());
    extrapolation_markdown(summarise_extrapolation(rows));
    extrapolation_csv({{path, doc}});
  } catch (const UserError&) {
  }
  return 0;
}
