#include "report/paper_table1.hpp"

namespace popebench {

const std::vector<std::string>& paper_indirect_indexing_pes() {
  static const std::vector<std::string> pes = {"rope", "pope", "rope-half", "alibi-half", "learned", "sinusoidal"};
  return pes;
}

PaperValue paper_indirect_indexing(const std::string& pe) {
  if (pe == "rope") return {11.16, 2.45, true};
  if (pe == "pope") return {94.82, 2.91, true};
  // v3 Table 9 baselines (SPEC §1)
  if (pe == "rope-half") return {28.50, 6.10, true};
  if (pe == "alibi-half") return {27.35, 10.77, true};
  if (pe == "learned") return {10.08, 0.19, true};
  if (pe == "sinusoidal") return {1.90, 0.04, true};
  return {};
}

}  // namespace popebench
