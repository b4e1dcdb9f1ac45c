#pragma once

#include <functional>
#include <optional>

namespace importscope::supervisor {

struct SuperviseOptions {
    std::optional<double> timeout_s; ///< end the target after this long
    double grace_s = 3.0;            ///< after SIGINT at the timeout, wait this long before SIGKILL
};

/// How the supervised process ended.
struct ProcessEnd {
    int pid = 0;
    std::optional<int> code;
    std::optional<int> signal;
    bool core_dumped = false;
    bool timed_out = false;
    std::optional<int> forwarded_signal; ///< the SIGINT/SIGTERM/SIGHUP/SIGQUIT importscope passed on
};

/// Forks a child that runs `child_main` (which must not return) in a process group of its own, gives
/// it the terminal when importscope has it, and waits for it. SIGINT, SIGTERM, SIGHUP and SIGQUIT
/// sent to importscope are passed on to the whole group (a second one kills it). At the timeout the
/// group gets SIGINT, so that Python reports where it was, then SIGKILL after the grace period.
/// The supervisor itself never runs Python.
ProcessEnd supervise(const std::function<void()>& child_main, const SuperviseOptions& options);

} // namespace importscope::supervisor
