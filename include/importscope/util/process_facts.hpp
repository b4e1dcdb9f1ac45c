#pragma once

// The vocabulary the layers share about the run's processes: how a process ended (ProcessExit),
// what importscope did that ended the run (RunStop), and the Python programs and task launchers
// the supervisor saw running in the tree (ObservedPython, ObservedLauncher). The supervisor fills
// them from waitpid and /proc, the analysis from the journals, and the report writes them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope {

/// How a process's end became known.
enum class ExitKnownBy {
    waited,  ///< the main process, which the supervisor waited for
    exit,    ///< the process recorded its exit() with its status
    os_exit, ///< the process recorded os._exit()
    signal,  ///< the process recorded the fatal signal that ended it
    reaped,  ///< an orphan that the supervisor, the tree's child subreaper, waited for
    killed,  ///< a straggler that the supervisor ended at the end of the run
};

/// The report's word for it (run.exit.how): "waited", "exit", "os._exit", "signal", "reaped", "killed".
std::string_view to_string(ExitKnownBy how);
/// The inverse of to_string; nullopt for any other word.
std::optional<ExitKnownBy> exit_known_by(std::string_view word);

/// How a process ended: its status or the signal that ended it, and how that became known.
struct ProcessExit {
    std::optional<int> code;   ///< the exit status, when it exited
    std::optional<int> signal; ///< the signal that ended it
    bool core_dumped = false;
    ExitKnownBy how = ExitKnownBy::waited;

    /// A status from waitpid(2).
    static ProcessExit from_wait_status(int status, ExitKnownBy how = ExitKnownBy::waited);
};

/// What importscope did that ended the run, beside how its main process ended.
struct RunStop {
    bool timed_out = false;              ///< --timeout passed: the group got SIGINT
    bool stopped_on_finding = false;     ///< the first error finding ended the tree (--stop-on-finding)
    std::optional<int> forwarded_signal; ///< the SIGINT/SIGTERM/SIGHUP/... importscope received and passed on
    /// The group did not end within the grace period after the timeout's SIGINT, a stop's or a
    /// forwarded SIGTERM, and got SIGKILL.
    bool grace_over = false;
};

/// A Python interpreter seen running in the tree, by /proc or by the note of a child that had no
/// hooks of its version: how importscope learns of Python processes it did not trace.
struct ObservedPython {
    int pid = 0;
    int ppid = 0;
    std::string executable; ///< /proc/PID/exe
    std::vector<std::string> argv;
    /// Whether its environment leads it to trace itself, as journal::ProgramStart::env says it:
    /// "kept", "no-bootstrap-path" (it names the run, but PYTHONPATH lost the bootstrap), "dropped".
    std::string environment;
    std::optional<int> minor; ///< its Python 3 minor, when it said so (a child with no hooks of its version)

    bool operator==(const ObservedPython&) const = default;
};

/// A task launcher (task_launcher.hpp: srun, mpirun) of the run outside the journals: its tasks are
/// started by a cluster's daemons, outside the tree.
struct ObservedLauncher {
    int pid = 0;
    int ppid = 0;
    std::string via;        ///< "the command" (the run's own) or "seen running" (/proc)
    std::string executable; ///< /proc/PID/exe
    std::vector<std::string> argv;
};

} // namespace importscope
