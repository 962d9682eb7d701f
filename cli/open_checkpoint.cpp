#include "cli/open_checkpoint.hpp"

#include <omp.h>

#include "common/error.hpp"

namespace popebench::cli {

void require_dataset_fits(const std::string& dir, const TaskConfig& data, const RunConfig& cfg) {
  if (data.name() != cfg.task.name())
    throw UserError(dir + " holds " + data.name() + " data; the checkpoint was trained on " + cfg.task.name());
  if (data.vocab_size() != cfg.model.vocab_size || data.width() > cfg.model.max_len)
    throw UserError(dir + ": its vocabulary or sequence length does not fit the checkpoint's model");
}

OpenedCheckpoint open_checkpoint(const std::string& path, const std::string& out, int threads,
                                 const std::vector<NamedPath>& more_outputs) {
  if (!out.empty()) check_output_path(out, "--out");
  for (const auto& o : more_outputs)
    if (!o.path.empty()) check_output_path(o.path, o.what);
  std::vector<NamedPath> outputs = {{out, "--out"}};
  outputs.insert(outputs.end(), more_outputs.begin(), more_outputs.end());
  refuse_outputs_over_inputs(outputs, {{path, "the checkpoint"}});
  if (threads > 0) omp_set_num_threads(threads);
  OpenedCheckpoint o;
  o.ck = load_checkpoint(path);
  o.cfg = checkpoint_run_config(o.ck, path);
  return o;
}

}  // namespace popebench::cli
