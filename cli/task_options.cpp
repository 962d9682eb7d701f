// Task options: bound to their own values and applied only when given, so a preset's or a
// task's defaults stand unless the command line overrides them, and an option that does not
// belong to the chosen task is refused instead of silently ignored.
#include "cli/commands.hpp"
#include "cli/run_options.hpp"
#include "common/error.hpp"

namespace popebench::cli {

void add_task_options(CLI::App& cmd, TaskOptions& o) {
  auto add = [&](CLI::Option* opt) { o.opts.push_back(opt); return opt; };
  std::vector<std::string> tasks;
  for (const TaskKindInfo& t : task_kinds()) tasks.push_back(t.name);
  add(cmd.add_option("--task", o.name, std::string(task_names()) + " (default indirect-indexing; `popebench list` says what each asks)")
          ->check(CLI::IsMember(tasks)));
  o.min_len = add(cmd.add_option("--min-len", o.v_min_len, "Shortest string (associative recall: fewest pairs; text: shortest training window in bytes); default 20 (associative recall 10, text 256)")->check(integer_in(0, 100000)));
  o.max_len = add(cmd.add_option("--max-len", o.v_max_len, "Longest string (associative recall: most pairs; text: the window in bytes, evaluation's too); default 40 (associative recall 20, text 256)")->check(integer_in(0, 100000)));
  o.corpus = add(cmd.add_option("--corpus", o.v_corpus, "Text: the folder of .rst / .rst.gz documents (default /usr/share/doc/linux-doc-6.1/Documentation, Debian's linux-doc-6.1)"));
  o.max_shift = add(cmd.add_option("--max-shift", o.v_max_shift, "Indirect Indexing: shifts in [-max, +max] (default 15)")->check(integer_in(0, 100000)));
  o.max_k = add(cmd.add_option("--max-k", o.v_max_k, "k-back: k in [1, max] (default 15)")->check(integer_in(0, 100000)));
  o.alphabet = add(cmd.add_option("--alphabet", o.v_alphabet, "Distinct symbols (associative recall: keys); default 52")->check(integer_in(0, 100000)));
  o.values = add(cmd.add_option("--values", o.v_values, "Associative recall: value symbols (default 26)")->check(integer_in(0, 100000)));
  o.zero_shift = add(cmd.add_flag("--allow-zero-shift", o.v_zero_shift,
                                  "Indirect Indexing: allow shift 0 (the paper does not say; excluded by default)"));
  o.pair_draw = add(cmd.add_option("--pair-draw", o.v_pair_draw,
                                   "Indirect Indexing: (source, shift) drawn jointly (default), shift-first or source-first"));
  const char* names[] = {"--n-train", "--n-val", "--n-test"};
  const char* help[] = {"Training examples (text: windows; default 1000000)", "Validation examples (text: bytes scored; default 10000)",
                        "Test examples (text: bytes scored; default 10000)"};
  for (int i = 0; i < 3; ++i) o.counts[i] = add(cmd.add_option(names[i], o.v_counts[i], help[i])->check(integer_in(0, 10000000000LL)));
}

void apply_task_options(const TaskOptions& o, TaskConfig& task) {
  auto given = [](const CLI::Option* opt) { return opt && opt->count() > 0; };
  if (!o.name.empty()) task.name = o.name;
  auto only_for = [&](const CLI::Option* opt, const char* t) {
    if (given(opt) && task.name != t)
      throw UserError(opt->get_name() + " applies to " + t + " only (the task is " + task.name + ")");
  };
  only_for(o.max_shift, "indirect-indexing");
  only_for(o.zero_shift, "indirect-indexing");
  only_for(o.pair_draw, "indirect-indexing");
  only_for(o.max_k, "k-back");
  only_for(o.values, "associative-recall");
  only_for(o.corpus, "text");
  if (o.alphabet && o.alphabet->count() > 0 && task.name == "text")
    throw UserError("--alphabet does not apply to text (its tokens are the 256 byte values)");
  if (given(o.min_len) || given(o.max_len))
    task.set_length_range(given(o.min_len) ? o.v_min_len : task.min_len(), given(o.max_len) ? o.v_max_len : task.max_len());
  if (given(o.max_shift)) task.indirect_indexing.max_shift = o.v_max_shift;
  if (given(o.zero_shift)) task.indirect_indexing.allow_zero_shift = o.v_zero_shift;
  if (given(o.pair_draw)) task.indirect_indexing.pair_draw = o.v_pair_draw;
  if (given(o.max_k)) task.k_back.max_k = o.v_max_k;
  if (given(o.values)) task.associative_recall.values = o.v_values;
  if (given(o.corpus)) task.text.corpus = o.v_corpus;
  if (given(o.alphabet)) {
    task.indirect_indexing.alphabet = o.v_alphabet;
    task.associative_recall.alphabet = o.v_alphabet;
    task.k_back.alphabet = o.v_alphabet;
  }
  uint64_t* counts[] = {&task.n_train, &task.n_val, &task.n_test};
  for (int i = 0; i < 3; ++i) {
    if (!given(o.counts[i])) continue;
    if (o.v_counts[i] < 0)
      throw UserError(o.counts[i]->get_name() + " must be >= 0 (got " + std::to_string(o.v_counts[i]) + ")");
    *counts[i] = static_cast<uint64_t>(o.v_counts[i]);
  }
  task.validate();
}

}  // namespace popebench::cli
