// Task options: bound to their own values and applied only when given, so a preset's or a
// task's defaults stand unless the command line overrides them, and an option that does not
// belong to the chosen task is refused instead of silently ignored. The tasks' own options come
// from their declarations (each task's options()); the length range and split sizes are every
// task's.
#include <type_traits>

#include "cli/commands.hpp"
#include "cli/command_line.hpp"
#include "common/error.hpp"

namespace popebench::cli {

namespace {
// Instantiated for every field type of the options' variant, also a bool for a task that has no
// bool field (never called so): GCC 12 then calls the read of the value-initialized Cfg{}
// uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <typename Cfg, typename T>
std::string default_text(T Cfg::*member) {
  const T v = Cfg{}.*member;
  if constexpr (std::is_same_v<T, bool>) return v ? " (default on)" : "";
  else if constexpr (std::is_same_v<T, std::string>) return " (default " + v + ")";
  else return " (default " + std::to_string(v) + ")";
}
#pragma GCC diagnostic pop

// "a", "a and b", "a, b and c"
std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

// What the CLI makes of one flag: its kind, range and help, gathered over the tasks that declare it.
struct FlagDecl {
  size_t kind = 0;  // TaskOption::member's index: int, bool, string
  int lo = 0, hi = 0;
  std::string help;
  std::vector<std::string> tasks;
};
}  // namespace

bool TaskOptions::given(const std::string& flag) const {
  auto it = own.find(flag);
  return it != own.end() && it->second.opt && it->second.opt->count() > 0;
}

void add_task_options(CLI::App& cmd, TaskOptions& o) {
  auto add = [&](CLI::Option* opt) { o.opts.push_back(opt); return opt; };
  std::vector<std::string> tasks;
  for (const TaskKindInfo& t : task_kinds()) tasks.push_back(t.name);
  add(cmd.add_option("--task", o.name, task_names() + " (default " + tasks.front() + "; `popebench list` says what each asks)")
          ->check(CLI::IsMember(tasks)));
  std::string min_help, max_help;
  std::vector<std::string> flags;  // in declaration order
  std::map<std::string, FlagDecl> decls;
  for_each_task_kind([&](const auto& t) {
    using Cfg = std::decay_t<decltype(t)>;
    const std::string sep = min_help.empty() ? "" : "; ";
    min_help += sep + Cfg::kName + ": " + Cfg::kLength + " " + std::to_string(t.min_len);
    max_help += sep + Cfg::kName + ": " + Cfg::kLength + " " + std::to_string(t.max_len);
    for (const TaskOption<Cfg>& d : Cfg::options()) {
      auto [it, fresh] = decls.try_emplace(d.flag);
      FlagDecl& f = it->second;
      if (fresh) {
        flags.push_back(d.flag);
        f.kind = d.member.index();
        f.lo = d.lo;
        f.hi = d.hi;
      } else if (f.kind != d.member.index() || f.lo != d.lo || f.hi != d.hi) {
        throw std::logic_error(std::string("tasks declare ") + d.flag + " with different types or ranges");
      }
      f.help += (f.help.empty() ? "" : "; ") + std::string(Cfg::kName) + ": " + d.help +
                std::visit([](auto m) { return default_text(m); }, d.member);
      f.tasks.push_back(Cfg::kName);
    }
  });
  o.min_len = add(cmd.add_option("--min-len", o.v_min_len, "The shortest length, by default " + min_help)->check(integer_in(0, 100000)));
  o.max_len = add(cmd.add_option("--max-len", o.v_max_len, "The longest length (text: evaluation's window too), by default " +
                                                               max_help)->check(integer_in(0, 100000)));
  for (const std::string& flag : flags) {
    const FlagDecl& f = decls.at(flag);
    TaskOptions::Given& g = o.own[flag];
    if (f.kind == 0) g.opt = add(cmd.add_option(flag, g.i, f.help)->check(integer_in(f.lo, f.hi)));
    else if (f.kind == 1) g.opt = add(cmd.add_flag(flag, g.b, f.help));
    else g.opt = add(cmd.add_option(flag, g.s, f.help));
  }
  const char* names[] = {"--n-train", "--n-val", "--n-test"};
  const char* help[] = {"Training examples (text: windows; default 1000000)", "Validation examples (text: bytes scored; default 10000)",
                        "Test examples (text: bytes scored; default 10000)"};
  for (int i = 0; i < 3; ++i) o.counts[i] = add(cmd.add_option(names[i], o.v_counts[i], help[i])->check(integer_in(0, 10000000000LL)));
}

void apply_task_options(const TaskOptions& o, TaskConfig& task) {
  auto given = [](const CLI::Option* opt) { return opt && opt->count() > 0; };
  // A task chosen again keeps the parameters it has (a preset's); another starts from its defaults.
  if (!o.name.empty() && o.name != task.name()) task.select(o.name);
  if (given(o.min_len) || given(o.max_len))
    task.set_length_range(given(o.min_len) ? o.v_min_len : task.min_len(), given(o.max_len) ? o.v_max_len : task.max_len());
  for (const auto& [flag, g] : o.own) {
    if (!given(g.opt)) continue;
    bool applied = false;
    std::visit([&](auto& t) {
      using Cfg = std::decay_t<decltype(t)>;
      for (const TaskOption<Cfg>& d : Cfg::options()) {
        if (flag != d.flag) continue;
        std::visit([&](auto m) {
          using T = std::decay_t<decltype(t.*m)>;
          if constexpr (std::is_same_v<T, int>) t.*m = g.i;
          else if constexpr (std::is_same_v<T, bool>) t.*m = g.b;
          else t.*m = g.s;
        }, d.member);
        applied = true;
      }
    }, task.params);
    if (!applied) {
      std::vector<std::string> owners;
      for_each_task_kind([&](const auto& t) {
        for (const auto& d : std::decay_t<decltype(t)>::options())
          if (flag == d.flag) owners.push_back(t.kName);
      });
      throw UserError(flag + " applies to " + joined(owners) + " only (the task is " + task.name() + ")");
    }
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
