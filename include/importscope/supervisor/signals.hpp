#pragma once

#include <csignal>

namespace importscope::supervisor {

/// What the supervisor does with a signal sent to importscope while the target runs.
enum class SignalRole {
    other,     ///< left to its default (SIGTSTP, SIGCONT, SIGWINCH, ...)
    forwarded, ///< passed on to the whole process group: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGBUS, ...
    passed,    ///< passed on to the main process alone: SIGUSR1, SIGUSR2
    ignored,   ///< their default would end importscope; they concern none of its work: SIGALRM, ...
};

SignalRole role_of(int signal);

/// Waits up to `most_ns` for a child of importscope to end (a SIGCHLD, which HeldSignals holds),
/// leaving every other held signal pending. Returns at once when one has ended since the last wait.
void await_child_end(long long most_ns);

/// Blocks every signal with a role (and SIGCHLD) from its construction to its destruction, so that
/// none ends importscope while it supervises the target or writes the report; the supervisor takes
/// them with sigtimedwait. Nested guards share the outermost one's original mask: a child restores
/// that mask, and the outermost guard discards what is still pending before it restores it.
class HeldSignals {
public:
    HeldSignals();
    ~HeldSignals();
    HeldSignals(const HeldSignals&) = delete;
    HeldSignals& operator=(const HeldSignals&) = delete;

    const sigset_t& set() const { return m_set; }
    /// In a forked child: the mask importscope had before the outermost guard.
    static void restore_in_child();

private:
    sigset_t m_set{};
    bool m_outermost = false;
};

} // namespace importscope::supervisor
