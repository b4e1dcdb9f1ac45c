#include "importscope/analysis/task_launchers.hpp"
#include "importscope/util/python_name.hpp"
#include "importscope/util/task_launcher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

namespace importscope::analysis {

namespace {

/// The launcher a program is, by its executable's file name or its argv[0]'s.
std::optional<TaskLauncher> launcher_of(const std::string& executable, const std::vector<std::string>& argv)
{
    if (auto launcher = task_launcher_named(file_name_of(executable)))
        return launcher;
    return argv.empty() ? std::nullopt : task_launcher_named(file_name_of(argv.front()));
}

/// The entry of one launcher: why its tasks are out of sight, and how to trace them.
UntracedProcess describe(TaskLauncher launcher, int parent_pid, std::string via, std::string executable,
                         std::vector<std::string> argv)
{
    const std::string name(file_name_of(argv.empty() ? executable : argv.front()));
    UntracedProcess entry{parent_pid, std::move(via), std::move(executable), std::move(argv), {}, {}};
    switch (launcher) {
    case TaskLauncher::srun:
        entry.reason = fmt::format(
            "{} has its tasks started by slurmd on the allocated nodes (through slurmstepd), not as its own "
            "children: they are outside importscope's process tree, which neither waits for them nor ends them, "
            "and a task on another node cannot write into this run, which lives on this node (a task on this "
            "node that kept {}'s environment may still be traced, and is then among the report's processes)",
            name, name);
        entry.advice = fmt::format("run importscope inside each task instead: {} ... importscope run -o "
                                   "'report-{{rank}}.json' -- python ..., then importscope merge report-*.json "
                                   "-o merged.json (docs/multi-node.md)",
                                   name);
        break;
    case TaskLauncher::sbatch:
        entry.reason =
            fmt::format("{} hands the batch script to slurmctld, and slurmd starts it on the first allocated node: the "
                        "script and every task it starts are outside importscope's process tree",
                        name);
        entry.advice = "run importscope inside each task of the batch script: srun importscope run -o "
                       "'report-{rank}.json' -- python ..., then importscope merge report-*.json -o merged.json "
                       "(docs/multi-node.md)";
        break;
    case TaskLauncher::mpirun:
        entry.reason = fmt::format(
            "{} starts the ranks on other hosts through its daemons (over ssh or the resource manager), not as "
            "its own children: they are outside importscope's process tree and cannot write into this run, "
            "which lives on this node (ranks on this host are its descendants, and traced if they are Python)",
            name);
        entry.advice = fmt::format("run importscope inside each rank instead: {} ... importscope run -o "
                                   "'report-{{rank}}.json' -- python ..., then importscope merge report-*.json "
                                   "-o merged.json (docs/multi-node.md)",
                                   name);
        break;
    }
    return entry;
}

/// Whether `seen` is a helper that another launcher seen forked (srun forks one, with its argv).
bool is_helper(const ObservedLauncher& seen, const std::vector<ObservedLauncher>& observed)
{
    return std::any_of(observed.begin(), observed.end(), [&](const ObservedLauncher& other) {
        return other.pid == seen.ppid && other.argv == seen.argv;
    });
}

/// Whether `seen` is the process of a start that a traced process recorded (one of the first
/// `starts` entries) and that no other sighting claimed yet: one entry for one process, and each of
/// two identical sruns one after the other its own.
bool claims_a_start(const ObservedLauncher& seen, const std::vector<UntracedProcess>& listed,
                    std::vector<bool>& claimed)
{
    for (std::size_t i = 0; i < claimed.size(); ++i) {
        const UntracedProcess& start = listed[i];
        const bool same = start.argv == seen.argv &&
                          (start.parent_pid == seen.ppid || (start.via == "os.exec" && start.parent_pid == seen.pid));
        if (same && !claimed[i]) {
            claimed[i] = true;
            return true;
        }
    }
    return false;
}

} // namespace

std::vector<UntracedProcess> untraced_launchers(const RunModel& model, const std::vector<ObservedLauncher>& observed)
{
    std::vector<UntracedProcess> listed;
    for (const ProcessRecord& starter : model.processes)
        for (const journal::ProgramStart& program : starter.programs)
            if (const auto launcher = launcher_of(program.executable, program.argv))
                listed.push_back(describe(*launcher, starter.pid, program.via, program.executable, program.argv));
    std::vector<bool> claimed(listed.size(), false);
    std::set<int> pids;
    for (const ObservedLauncher& seen : observed) {
        const auto launcher = launcher_of(seen.executable, seen.argv);
        if (!launcher || !pids.insert(seen.pid).second || is_helper(seen, observed) ||
            claims_a_start(seen, listed, claimed))
            continue;
        listed.push_back(describe(*launcher, seen.ppid, seen.via, seen.executable, seen.argv));
    }
    return listed;
}

} // namespace importscope::analysis
