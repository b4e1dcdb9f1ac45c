#include "supervisor/job_control.hpp"

#include <csignal>
#include <termios.h>
#include <unistd.h>

namespace importscope::supervisor {

namespace {

bool in_the_foreground()
{
    return ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
}

} // namespace

TerminalForeground::TerminalForeground() : m_owned(in_the_foreground()) {}

TerminalForeground::~TerminalForeground()
{
    if (m_owned)
        give_to(::getpgrp());
}

void TerminalForeground::give_to(pid_t group)
{
    // tcsetpgrp from a background group raises SIGTTOU; it is expected here.
    struct sigaction ignore {
    }, old{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGTTOU, &ignore, &old);
    ::tcsetpgrp(STDIN_FILENO, group);
    sigaction(SIGTTOU, &old, nullptr);
}

void TerminalForeground::stop_with(pid_t group, int stop_signal)
{
    if (m_owned && ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == group)
        give_to(::getpgrp());
    // The default action stops importscope here, until SIGCONT (the shell's fg or bg). In a process
    // group with no parent in the session (orphaned) the kernel discards the signal: nothing stops,
    // as a python there would not, and the worker is continued at once.
    struct sigaction stop {
    }, old{};
    stop.sa_handler = SIG_DFL;
    sigaction(stop_signal, &stop, &old);
    ::kill(::getpid(), stop_signal);
    sigaction(stop_signal, &old, nullptr);
    // fg: the terminal is importscope's again, and goes to the worker; bg: it stays with the shell.
    if (in_the_foreground()) {
        m_owned = true;
        give_to(group);
    }
    ::kill(-group, SIGCONT);
}

bool is_job_control_stop(int signal)
{
    return signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
}

} // namespace importscope::supervisor
