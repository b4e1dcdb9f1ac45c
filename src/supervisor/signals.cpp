#include "importscope/supervisor/signals.hpp"

#include <algorithm>
#include <ctime>
#include <iterator>
#include <pthread.h>

namespace importscope::supervisor {

namespace {

/// Their default ends the process: passed on to the group, so that the target ends as it would
/// have, and the report is written. SIGBUS, SIGSYS and SIGTRAP raised by a fault of importscope
/// itself are delivered whatever the mask (the kernel forces them), so only sent ones are taken.
constexpr int k_forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGBUS, SIGSYS, SIGTRAP};
/// Passed on to the main process alone: a wrapper stands aside for them.
constexpr int k_passed_signals[] = {SIGUSR1, SIGUSR2};
/// Their default would end the supervisor; they concern none of its work.
constexpr int k_ignored_signals[] = {SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT};

bool is_one_of(int signal, const auto& signals)
{
    return std::find(std::begin(signals), std::end(signals), signal) != std::end(signals);
}

int g_depth = 0;        ///< guards alive (the supervisor is single-threaded)
sigset_t g_original{};  ///< the mask before the outermost guard

} // namespace

SignalRole role_of(int signal)
{
    if (is_one_of(signal, k_forwarded_signals) || (signal >= SIGRTMIN && signal <= SIGRTMAX))
        return SignalRole::forwarded;
    if (is_one_of(signal, k_passed_signals))
        return SignalRole::passed;
    if (is_one_of(signal, k_ignored_signals))
        return SignalRole::ignored;
    return SignalRole::other;
}

HeldSignals::HeldSignals()
{
    sigemptyset(&m_set);
    sigaddset(&m_set, SIGCHLD);
    for (int s = 1; s <= SIGRTMAX; ++s)
        if (role_of(s) != SignalRole::other)
            sigaddset(&m_set, s);
    sigset_t old{};
    pthread_sigmask(SIG_BLOCK, &m_set, &old);
    m_outermost = g_depth++ == 0;
    if (m_outermost)
        g_original = old;
}

HeldSignals::~HeldSignals()
{
    if (--g_depth > 0)
        return;
    // What arrived once the report was under way is answered by the exit that follows: taken here,
    // so that it does not end importscope with another status once unblocked.
    const timespec now{0, 0};
    siginfo_t info{};
    while (sigtimedwait(&m_set, &info, &now) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &g_original, nullptr);
}

void await_child_end(long long most_ns)
{
    sigset_t child_ended{};
    sigemptyset(&child_ended);
    sigaddset(&child_ended, SIGCHLD);
    const timespec wait{static_cast<time_t>(most_ns / 1'000'000'000), static_cast<long>(most_ns % 1'000'000'000)};
    siginfo_t info{};
    sigtimedwait(&child_ended, &info, &wait);
}

void HeldSignals::restore_in_child()
{
    pthread_sigmask(SIG_SETMASK, &g_original, nullptr);
}

} // namespace importscope::supervisor
