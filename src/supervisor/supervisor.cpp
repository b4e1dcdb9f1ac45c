#include "importscope/supervisor/supervisor.hpp"

#include "importscope/supervisor/process_tree.hpp"
#include "importscope/supervisor/signals.hpp"
#include "supervisor/job_control.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/error.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <malloc.h>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace importscope::supervisor {

namespace {

constexpr std::int64_t k_never = INT64_MAX;
/// How long a target has to end after a forwarded SIGTERM before its group gets SIGKILL.
constexpr double k_sigterm_grace_s = 10.0;

timespec to_timespec(std::int64_t ns)
{
    ns = std::max<std::int64_t>(ns, 0);
    return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

std::int64_t seconds_to_ns(double s)
{
    return static_cast<std::int64_t>(s * 1e9);
}

/// The escalation that ends the tree: a first signal, then SIGKILL once the grace period is over.
class Ending {
public:
    Ending(pid_t group, double grace_s) : m_group(group), m_grace_ns(seconds_to_ns(grace_s)) {}
    bool started() const { return m_started; }
    void start(int first_signal) { start(first_signal, m_grace_ns); }
    void start(int first_signal, std::int64_t grace_ns)
    {
        if (m_started) {
            kill_now();
            return;
        }
        m_started = true;
        ::kill(-m_group, first_signal);
        m_kill_at = monotonic_ns() + grace_ns;
    }
    void kill_now()
    {
        ::kill(-m_group, SIGKILL);
        m_kill_at = k_never;
    }
    std::int64_t kill_at() const { return m_kill_at; }

private:
    pid_t m_group;
    std::int64_t m_grace_ns;
    bool m_started = false;
    std::int64_t m_kill_at = k_never;
};

constexpr std::int64_t k_watch_ns = 250'000'000;
/// While the tree winds down, each end of one of importscope's children wakes the supervisor at
/// once; a descendant that is not its child ends unannounced, so it looks again at least this often.
constexpr std::int64_t k_recheck_ns = 10'000'000;

std::vector<int> merged(std::vector<int> a, const std::vector<int>& b)
{
    for (int pid : b)
        if (std::find(a.begin(), a.end(), pid) == a.end())
            a.push_back(pid);
    return a;
}

/// What the child left in the start pipe: its writer has ended, executed a program or closed it.
/// A descendant forked during start-up may hold the write end: read without blocking.
std::string read_start_words(int fd)
{
    ::fcntl(fd, F_SETFL, O_NONBLOCK);
    std::string words;
    char buffer[512];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        words.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return words;
}


/// One supervised run, in the order it goes: start the worker, wait for it while the time, the
/// ticks and the signals ask for things, then end what is left of the tree.
class Supervision {
public:
    explicit Supervision(const SuperviseOptions& options) : m_options(options)
    {
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
        m_not_of_the_tree.insert(m_guardian.pid());
    }

    SupervisedRun run(const std::function<void(int start_fd)>& child_main)
    {
        start(child_main);
        if (m_options.after_start)
            m_not_of_the_tree.merge(m_options.after_start());
        wait_for_main();
        m_end.start_words = read_start_words(m_start_fd);
        end_the_tree();
        m_end.pythons_seen = m_programs.pythons();
        m_end.launchers_seen = m_programs.launchers();
        return std::move(m_end);
    }

private:
    void start(const std::function<void(int start_fd)>& child_main)
    {
        int start_pipe[2];
        if (::pipe2(start_pipe, O_CLOEXEC) != 0)
            throw system_error("pipe", errno);
        const pid_t pid = ::fork();
        if (pid < 0)
            throw system_error("fork", errno);
        if (pid == 0) {
            ::setpgid(0, 0);
            if (m_terminal.owned())
                TerminalForeground::give_to(::getpid());
            HeldSignals::restore_in_child();
            std::signal(SIGPIPE, SIG_DFL); // NOLINT(cert-err33-c): the target's, as a shell gives it
            ::close(start_pipe[0]);
            if (m_guardian.fd() >= 0)
                ::close(m_guardian.fd());
            child_main(start_pipe[1]);
            ::_exit(127);
        }
        ::close(start_pipe[1]);
        keep_heap_once_forked();
        m_start_fd = start_pipe[0];
        m_pid = pid;
        m_end.pid = pid;
        m_ending.emplace(pid, m_options.grace_s);
        m_guardian.watch(pid, true);
        m_guardian.watch(pid);
        ::setpgid(pid, pid); // both sides set it, so neither races the other
        if (m_terminal.owned())
            TerminalForeground::give_to(pid);
        const std::int64_t now = monotonic_ns();
        m_timeout_at = m_options.timeout_s ? now + seconds_to_ns(*m_options.timeout_s) : k_never;
        m_tick_ns = seconds_to_ns(m_options.tick_s);
        m_next_tick = m_options.on_tick ? now + m_tick_ns : k_never;
        m_next_watch = now + k_watch_ns;
    }

    /// From the worker's fork on, the supervisor's memory is its own (the target's malloc, in the
    /// fork, keeps its defaults): the model grows to tens of MB in many steps, and each block that
    /// malloc gave back to the kernel (a trimmed heap top, a large block's own mapping) costs a page
    /// fault per page when the next step takes it again. So none is given back until the end.
    static void keep_heap_once_forked()
    {
        constexpr int k_never_trimmed_below = 256 << 20;
        constexpr int k_largest_from_heap = 32 << 20; // glibc's largest; a larger block is mapped on its own
        constexpr int k_heap_step = 1 << 20;
        ::mallopt(M_TRIM_THRESHOLD, k_never_trimmed_below);
        ::mallopt(M_MMAP_THRESHOLD, k_largest_from_heap);
        ::mallopt(M_TOP_PAD, k_heap_step);
    }

    /// Reaps the main process and the orphaned descendants handed to us; true once the main one ended.
    /// A main process stopped by job control (Ctrl-Z) stops importscope with it until SIGCONT.
    bool reap()
    {
        bool main_done = false;
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG | WUNTRACED) == m_pid) {
            if (!WIFSTOPPED(status)) {
                record_main_end(status);
                main_done = true;
            } else if (is_job_control_stop(WSTOPSIG(status))) {
                m_terminal.stop_with(m_pid, WSTOPSIG(status));
            }
        }
        for (;;) {
            const pid_t done = ::waitpid(-1, &status, WNOHANG);
            if (done <= 0)
                return main_done;
            if (done == m_pid) {
                record_main_end(status);
                main_done = true;
            } else {
                record_orphan_end(done, status);
            }
        }
    }

    /// Collects the descendants handed to us (we are their subreaper) that have ended.
    void reap_orphans()
    {
        int status = 0;
        for (pid_t done; (done = ::waitpid(-1, &status, WNOHANG)) > 0;)
            record_orphan_end(done, status);
    }

    void record_orphan_end(pid_t pid, int status)
    {
        if (pid == m_guardian.pid())
            replace_guardian(status);
        else
            m_end.reaped[pid] = ProcessExit::from_wait_status(status, ExitKnownBy::reaped);
    }

    /// At a natural end: descendants still running get SIGTERM and up to the grace period to end.
    /// False when there were none (the common case: one walk of /proc and no more).
    bool terminate_then_wait()
    {
        const std::vector<int> left = descendants_of(static_cast<int>(::getpid()), m_not_of_the_tree);
        m_programs.look(left);
        if (left.empty())
            return false;
        for (int pid : left)
            if (::kill(pid, SIGTERM) == 0)
                m_end.ended_by_importscope.push_back(pid);
        const std::int64_t until = monotonic_ns() + seconds_to_ns(m_options.grace_s);
        for (std::int64_t now = monotonic_ns(); now < until; now = monotonic_ns()) {
            reap_orphans();
            if (descendants_of(static_cast<int>(::getpid()), m_not_of_the_tree).empty())
                break;
            await_child_end(std::min(until - now, k_recheck_ns));
        }
        return true;
    }

    /// The guardian died before the run was over (the target can see and kill it, its sibling):
    /// another takes its place at once, so that importscope's own death still ends the tree.
    void replace_guardian(int status)
    {
        GuardianEnd end{m_guardian.pid(), ProcessExit::from_wait_status(status), -1};
        end.replaced_by = m_guardian.replace();
        if (end.replaced_by > 0)
            m_not_of_the_tree.insert(end.replaced_by);
        m_end.guardian_ends.push_back(end);
    }

    void record_main_end(int status)
    {
        m_end.exit = ProcessExit::from_wait_status(status);
    }

    /// The timeout, the escalation to SIGKILL, and the tick (which may ask to end the tree).
    void act_on_time(std::int64_t now)
    {
        if (now >= m_timeout_at && !m_end.stop.timed_out && !m_ending->started()) {
            m_end.stop.timed_out = true;
            m_ending->start(SIGINT); // Python shows where it was with a KeyboardInterrupt traceback
        }
        if (now >= m_ending->kill_at()) {
            m_end.stop.grace_over = true;
            m_ending->kill_now();
        }
        if (now >= m_next_tick) {
            const Tick tick = m_options.on_tick();
            m_tick_ns = tick.busy ? seconds_to_ns(m_options.tick_s)
                                  : std::max(seconds_to_ns(m_options.tick_s),
                                             std::min(2 * m_tick_ns, seconds_to_ns(m_options.idle_tick_s)));
            m_next_tick = now + m_tick_ns;
            if (tick.end_tree && !m_ending->started()) {
                m_end.stop.stopped_on_finding = true;
                m_ending->start(SIGTERM);
            }
        }
        if (now >= m_next_watch) {
            // The guardian learns the tree as it grows, so that it can end it if importscope dies.
            m_next_watch = now + k_watch_ns;
            const std::vector<int> descendants = descendants_of(static_cast<int>(::getpid()), m_not_of_the_tree);
            for (int descendant : descendants)
                m_guardian.watch(descendant);
            m_programs.look(descendants);
        }
    }

    /// Waits for a signal until the next thing to do is due.
    int next_signal()
    {
        const std::int64_t wake_at =
            std::min({m_end.stop.timed_out ? k_never : m_timeout_at, m_ending->kill_at(), m_next_tick, m_next_watch});
        siginfo_t info{};
        if (wake_at == k_never)
            return sigwaitinfo(&m_signals.set(), &info);
        const timespec wait = to_timespec(wake_at - monotonic_ns());
        return sigtimedwait(&m_signals.set(), &info, &wait);
    }

    void on_signal(int received)
    {
        const SignalRole role = received > 0 ? role_of(received) : SignalRole::other;
        if (role == SignalRole::passed)
            ::kill(m_pid, received);
        if (role != SignalRole::forwarded)
            return;
        if (!m_end.stop.forwarded_signal && !m_ending->started()) {
            m_end.stop.forwarded_signal = received;
            // A target that ignores SIGTERM gets SIGKILL after a grace period: whoever sent it wants
            // the run over. The others, Ctrl-C above all, are the target's to handle; a second one kills.
            if (received == SIGTERM)
                m_ending->start(SIGTERM, seconds_to_ns(k_sigterm_grace_s));
            else
                ::kill(-m_pid, received);
        } else {
            m_ending->kill_now(); // asked again: stop waiting for the target to wind down
        }
    }

    void wait_for_main()
    {
        while (!reap()) {
            act_on_time(monotonic_ns());
            on_signal(next_signal());
        }
    }

    /// Nothing of the tree outlives the run: at a natural end the group gets the linger and what
    /// is left SIGTERM, then the grace period; a run importscope ended gets SIGKILL. Those that
    /// left the group or the session too are found as the subreaper's descendants, by /proc.
    void end_the_tree()
    {
        bool left_over = true; // whether a walk for what outlived the run is still due
        if (m_end.stop.timed_out || m_end.stop.stopped_on_finding || m_end.stop.forwarded_signal) {
            ::kill(-m_pid, SIGKILL); // what is left of the group was ours to end
        } else {
            // Let the rest of the group wind down (a resource tracker sees its pipe close).
            const std::int64_t until = monotonic_ns() + seconds_to_ns(m_options.linger_s);
            for (std::int64_t now = monotonic_ns(); now < until; now = monotonic_ns()) {
                reap_orphans(); // a zombie of the group still counts as one of it
                if (::kill(-m_pid, 0) != 0)
                    break;
                await_child_end(std::min(until - now, k_recheck_ns));
            }
            reap_orphans();
            left_over = terminate_then_wait();
        }
        if (left_over)
            m_end.ended_by_importscope = merged(m_end.ended_by_importscope, kill_descendants(m_not_of_the_tree));
        reap_orphans(); // those it killed are zombies by now
        m_guardian.release();
    }

    const SuperviseOptions& m_options;
    HeldSignals m_signals; ///< first: nothing is delivered before the loop waits for it
    TerminalForeground m_terminal;
    Guardian m_guardian;
    std::set<int> m_not_of_the_tree;
    ProgramWatch m_programs;
    SupervisedRun m_end;
    std::optional<Ending> m_ending;
    pid_t m_pid = 0;
    int m_start_fd = -1;
    std::int64_t m_timeout_at = k_never;
    std::int64_t m_next_tick = k_never;
    std::int64_t m_tick_ns = 0; ///< the interval to the next tick: tick_s, longer while the ticks find nothing
    std::int64_t m_next_watch = k_never;
};

} // namespace

SupervisedRun supervise(const std::function<void(int start_fd)>& child_main, const SuperviseOptions& options)
{
    return Supervision(options).run(child_main);
}

} // namespace importscope::supervisor
