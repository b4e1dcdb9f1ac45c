// The terminal and job control for the supervisor: the worker's process group holds the terminal's
// foreground while it runs, and a stop of the worker (Ctrl-Z) stops importscope with it, so that
// the shell sees the job stopped and `fg` continues both.
#pragma once

#include <sys/types.h>

namespace importscope::supervisor {

/// Hands the terminal's foreground to a process group and back, when importscope owns the terminal.
class TerminalForeground {
public:
    TerminalForeground();
    ~TerminalForeground();
    TerminalForeground(const TerminalForeground&) = delete;
    TerminalForeground& operator=(const TerminalForeground&) = delete;

    bool owned() const { return m_owned; }
    static void give_to(pid_t group);

    /// The worker's group `group` stopped with `stop_signal`: importscope takes the terminal back,
    /// stops itself by the same signal (its default action) and, once continued, gives the terminal
    /// to the group again if it is in the foreground, and continues the group.
    void stop_with(pid_t group, int stop_signal);

private:
    bool m_owned;
};

/// SIGTSTP, SIGTTIN and SIGTTOU: the stops that job control makes, which the job shares.
bool is_job_control_stop(int signal);

} // namespace importscope::supervisor
