#pragma once

#include "importscope/util/unique_fd.hpp"

#include <string>
#include <vector>

/// How a traced process tells the supervisor that it cannot journal (the run directory is full,
/// deleted, out of descriptors): a datagram to a socket in Linux's abstract namespace, which needs
/// no file, no disk space and no descriptor inherited from the supervisor. Its name is visible to
/// every user (/proc/net/unix), so the kernel's credentials of each sender are checked: a datagram
/// from another user is refused, counted, never read as a problem. A flood costs little: at most
/// k_problems_kept messages are kept, the rest counted.
namespace importscope::journal {

/// The supervisor's end: made before the target starts, read while it runs and after.
class ProblemInbox {
public:
    /// Binds a new abstract socket; throws Error when it cannot.
    ProblemInbox();
    ProblemInbox(const ProblemInbox&) = delete;
    ProblemInbox& operator=(const ProblemInbox&) = delete;

    /// The address to hand to traced processes (IMPORTSCOPE_PROBLEMS).
    const std::string& address() const { return m_address; }

    /// Every message received so far from a process of the supervisor's own user and not taken
    /// yet, in arrival order, up to k_problems_kept in all.
    std::vector<std::string> take();

    /// After the last take(), in words: how many of the run's own messages were dropped past
    /// k_problems_kept (a failure, as the messages are), or "" when none.
    std::string dropped() const;
    /// How many datagrams from another user were refused (a note: nobody else can make the run
    /// fail), or "" when none.
    std::string refused() const;
    /// How many datagrams take() has read so far, kept, dropped or refused: what tells the
    /// supervisor that the traced processes are still sending, after the first k_problems_kept.
    std::size_t received() const { return m_kept + m_dropped + m_refused; }

    static constexpr std::size_t k_problems_kept = 100;

    /// In a child forked from the supervisor that runs the target: closes the inbox's descriptor,
    /// which close-on-exec does not close in a child that execs nothing, so that the target has
    /// every descriptor it would have under python (a `ulimit -n` counts them).
    void close_in_forked_child() const noexcept;

private:
    UniqueFd m_fd;
    std::string m_address;
    std::size_t m_kept = 0;
    std::size_t m_dropped = 0;
    std::size_t m_refused = 0;
    unsigned m_refused_uid = 0; ///< the last refused sender's
};

/// Sends `text` to the inbox at `address`; async-signal-safe, never fails loudly (false if it
/// could not be sent).
bool send_problem(const char* address, const char* text) noexcept;

} // namespace importscope::journal
