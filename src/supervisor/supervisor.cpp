#include "importscope/supervisor/supervisor.hpp"

#include "importscope/util/clock.hpp"
#include "importscope/util/error.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

namespace importscope::supervisor {

namespace {

constexpr int k_forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/// Blocks the signals the supervisor waits for, for as long as it lives; restores the mask after.
class BlockedSignals {
public:
    BlockedSignals()
    {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGCHLD);
        for (int s : k_forwarded_signals)
            sigaddset(&m_set, s);
        pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    }
    ~BlockedSignals() { pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }
    BlockedSignals(const BlockedSignals&) = delete;
    BlockedSignals& operator=(const BlockedSignals&) = delete;

    const sigset_t& set() const { return m_set; }
    void restore_in_child() const { pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }

private:
    sigset_t m_set{};
    sigset_t m_old{};
};

/// Hands the terminal's foreground to a process group and back, when importscope owns the terminal.
class TerminalForeground {
public:
    TerminalForeground() : m_owned(::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp()) {}
    bool owned() const { return m_owned; }
    static void give_to(pid_t group)
    {
        // tcsetpgrp from a background group raises SIGTTOU; it is expected here.
        struct sigaction ignore {
        }, old{};
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGTTOU, &ignore, &old);
        ::tcsetpgrp(STDIN_FILENO, group);
        sigaction(SIGTTOU, &old, nullptr);
    }
    ~TerminalForeground()
    {
        if (m_owned)
            give_to(::getpgrp());
    }

private:
    bool m_owned;
};

timespec to_timespec(std::int64_t ns)
{
    if (ns < 0)
        ns = 0;
    return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

} // namespace

ProcessEnd supervise(const std::function<void()>& child_main, const SuperviseOptions& options)
{
    BlockedSignals signals;
    TerminalForeground terminal;

    const pid_t pid = ::fork();
    if (pid < 0)
        throw system_error("fork", errno);
    if (pid == 0) {
        ::setpgid(0, 0);
        if (terminal.owned())
            TerminalForeground::give_to(::getpid());
        signals.restore_in_child();
        child_main();
        ::_exit(127);
    }
    ::setpgid(pid, pid); // both sides set it, so neither races the other
    if (terminal.owned())
        TerminalForeground::give_to(pid);

    ProcessEnd end;
    end.pid = pid;
    constexpr std::int64_t k_no_deadline = INT64_MAX;
    std::int64_t deadline =
        options.timeout_s ? monotonic_ns() + static_cast<std::int64_t>(*options.timeout_s * 1e9) : k_no_deadline;
    int status = 0;
    while (true) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR)
            throw system_error("waitpid", errno);

        siginfo_t info{};
        int received;
        if (deadline == k_no_deadline) {
            received = sigwaitinfo(&signals.set(), &info);
        } else {
            const timespec wait = to_timespec(deadline - monotonic_ns());
            received = sigtimedwait(&signals.set(), &info, &wait);
        }
        if (received < 0 && errno == EAGAIN) {
            if (!end.timed_out) {
                end.timed_out = true;
                ::kill(-pid, SIGINT); // Python shows where it was with a KeyboardInterrupt traceback
                deadline = monotonic_ns() + static_cast<std::int64_t>(options.grace_s * 1e9);
            } else {
                ::kill(-pid, SIGKILL);
                deadline = k_no_deadline;
            }
            continue;
        }
        if (received < 0 || received == SIGCHLD)
            continue;
        if (end.forwarded_signal || end.timed_out) {
            // Asked again: stop waiting for the target to wind down.
            ::kill(-pid, SIGKILL);
        } else {
            end.forwarded_signal = received;
            ::kill(-pid, received);
        }
    }
    if (end.timed_out || end.forwarded_signal)
        ::kill(-pid, SIGKILL); // what is left of the group was ours to end
    if (WIFEXITED(status))
        end.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        end.signal = WTERMSIG(status);
        end.core_dumped = WCOREDUMP(status);
    }
    return end;
}

} // namespace importscope::supervisor
