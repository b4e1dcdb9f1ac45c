#pragma once

#include <cstddef>
#include <string>
#include <vector>

/// The worker: the process that embeds CPython and runs the target. It is started by the supervisor
/// (fork) and ends the way `python` would have ended for this target.
namespace importscope::embed {

/// What the target is, as on python's command line.
enum class TargetKind { script, module, command };

struct Target {
    TargetKind kind = TargetKind::script;
    std::string value;             ///< script path, module name or code
    std::vector<std::string> args; ///< the target's own arguments, untouched
};

struct WorkerPlan {
    std::string python_executable;     ///< becomes sys.executable; its installation's paths are used
    bool foreign_installation = false; ///< not the installation libpython came from
    std::string fallback_dynload;      ///< last-resort stdlib extension directory (foreign only)
    Target target;
    std::vector<std::string> match; ///< module-name patterns to record
    std::string run_dir;            ///< the private directory where every traced process journals
    bool follow = true;             ///< follow Python children (bootstrap on PYTHONPATH, forks)
    std::string bootstrap_dir;      ///< holds the children's sitecustomize and hook module
    char* shared_journal = nullptr; ///< the supervisor's journal::SharedJournal, or null: a file
    std::size_t shared_journal_capacity = 0;
};

/// Runs the target in an embedded interpreter with the hooks in place before any of its code, then
/// ends the process with the target's exit status. Never returns.
[[noreturn]] void run_worker(const WorkerPlan& plan);

/// sys.argv for a target, as python sets it: [script, args...], ["-m", args...] or ["-c", args...].
std::vector<std::string> target_argv(const Target& target);

} // namespace importscope::embed
