// The paper's own numbers on Indirect Indexing (test accuracy %, mean and std over 3 seeds):
// Table 1 (RoPE, PoPE) and the v3 Table 9 baselines, SPEC §1. The summaries print them beside
// ours where the runs are of the paper's task (report/summary.hpp: is_paper_task); `reproduce
// --pe all` trains these PEs in this order.
#pragma once
#include <string>
#include <vector>

namespace popebench {

struct PaperValue {
  double mean = 0, std = 0;
  bool present = false;  // false where the paper reports no number for the PE
};
PaperValue paper_indirect_indexing(const std::string& pe);
// The PEs the paper reports on Indirect Indexing, in its order: Table 1, then v3 Table 9.
const std::vector<std::string>& paper_indirect_indexing_pes();

}  // namespace popebench
