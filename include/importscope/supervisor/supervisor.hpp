#pragma once

// The supervision of a run: supervise() starts the worker and waits for it, and says how each process
// of the tree ended.

#include "importscope/supervisor/process_tree.hpp"
#include "importscope/util/process_facts.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>
#include <string>

namespace importscope::supervisor {

/// What a tick found (SuperviseOptions::on_tick).
struct Tick {
    bool end_tree = false; ///< end the tree (SIGTERM, then SIGKILL after the grace period), as --stop-on-finding does
    bool busy = true;      ///< it found something new to do: the next tick comes after the shortest interval
};

struct SuperviseOptions {
    std::optional<double> timeout_s; ///< end the target after this long
    double grace_s = 3.0;            ///< after the first signal that ends the tree, wait this long before SIGKILL
    /// Called while the target runs: `tick_s` after a busy tick; after each tick that was not, the
    /// interval doubles, up to `idle_tick_s` (when it is longer), so that a target that sits idle
    /// (a server between requests) wakes importscope a few times a second, not fifty.
    std::function<Tick()> on_tick;
    double tick_s = 0.25;
    double idle_tick_s = 0.0;
    /// After the main process ends by itself, how long to wait for the rest of its group.
    double linger_s = 1.0;
    /// Called once, right after the main process is started, for what need not delay its start;
    /// returns the children it started itself (the fingerprint helper), which are not part of the
    /// tree.
    std::function<std::set<int>()> after_start;
};

/// A guardian (process_tree.hpp) that died while the run went on, and the one that took its place.
struct GuardianEnd {
    int pid = 0;
    ProcessExit exit;
    int replaced_by = -1; ///< the new guardian's pid, or -1 when none could be started
};

/// What supervise() saw of the run: how the supervised process ended, what importscope did to end it,
/// and the rest of the tree.
struct SupervisedRun {
    int pid = 0;
    ProcessExit exit; ///< the main process's, known by `waited`
    RunStop stop;     ///< stopped_on_finding: on_tick asked to end the tree
    /// What the child wrote into its start channel before it ended or executed another program
    /// (embed::start_word): the handshake.
    std::string start_words;
    /// Descendants orphaned by their parent and reaped by importscope (a child subreaper).
    std::map<int, ProcessExit> reaped;
    /// Descendants still alive when the run was over, which importscope ended (SIGTERM at a natural
    /// end, then SIGKILL; SIGKILL at once when importscope ended the run).
    std::vector<int> ended_by_importscope;
    /// Python interpreters seen running in the tree (every 250 ms, and at the end).
    std::vector<ObservedPython> pythons_seen;
    /// Task launchers (srun, mpirun) seen running in the tree, likewise.
    std::vector<ObservedLauncher> launchers_seen;
    /// Guardians that died before the run was over, killed by the target most likely.
    std::vector<GuardianEnd> guardian_ends;
};

/// Forks a child that runs `child_main(start_fd)` (which must not return) in a process group of its own, gives
/// it the terminal when importscope has it, and waits for it. SIGINT, SIGTERM, SIGHUP, SIGQUIT,
/// SIGBUS, SIGSYS, SIGTRAP and the real-time signals sent to importscope are passed on to the whole
/// group (a second one kills it; a SIGTERM it outlives by 10 s too); SIGUSR1 and SIGUSR2
/// to the main process; SIGALRM, SIGPIPE and the other signals whose default would end importscope
/// are ignored. When the run is over no process of the tree is left: what outlives the main process
/// (even outside its group or session) is ended, and a Guardian ends the tree if importscope dies. At the timeout the
/// group gets SIGINT, so that Python reports where it was, then SIGKILL after the grace period.
/// A main process stopped by SIGTSTP, SIGTTIN or SIGTTOU (Ctrl-Z) stops importscope too, until
/// SIGCONT continues both (job_control.hpp).
/// importscope is the child subreaper of the tree, so descendants whose parent died are reaped
/// here and their end is known. `start_fd` is the close-on-exec write end of a pipe whose content
/// comes back as SupervisedRun::start_words. The supervisor itself never runs Python.
SupervisedRun supervise(const std::function<void(int start_fd)>& child_main, const SuperviseOptions& options);

} // namespace importscope::supervisor
