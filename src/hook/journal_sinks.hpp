#pragma once

// Where a traced process's journal records go (memray's sinks): a file of the run directory, or
// the memory the main process shares with the supervisor, behind one small interface that the
// journal writer owns.

#include "importscope/journal/shared_journal.hpp"
#include "importscope/util/fixed_buffer.hpp"
#include "importscope/util/unique_fd.hpp"

#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>

namespace importscope::hook {

/// Text for the supervisor's problem inbox, made without allocating.
using ProblemText = FixedBuffer<1024>;

/// Sends a problem to the supervisor's inbox (IMPORTSCOPE_PROBLEMS), if there is one; async-signal-safe.
void tell_problem(const char* text) noexcept;

/// The destination of one journal's records. Every call is async-signal-safe: a fatal signal's
/// handler writes the process's end through it.
class JournalSink {
public:
    virtual ~JournalSink() = default;
    JournalSink() = default;
    JournalSink(const JournalSink&) = delete;
    JournalSink& operator=(const JournalSink&) = delete;

    /// Appends one whole record (journal/record_format.hpp) at once; false when it was not written.
    virtual bool write(std::string_view record) noexcept = 0;

    /// In a child just forked, before Python's own at-fork hooks run (which start the child's own
    /// journal): what the sink may still write there.
    virtual void after_fork() noexcept = 0;

    /// Whether the sink had to open its destination again since it was last asked: the writer
    /// records a note, since the target did something to the journal.
    virtual bool take_reopened() noexcept { return false; }
};

/// A journal file of the run directory, appended to with one write(2) per record on an O_APPEND
/// descriptor kept at a high number. The target may close the descriptor (closerange) and open a
/// file of its own under the number: the file is then opened again by its path.
class FileSink final : public JournalSink {
public:
    /// Writes to `fd`, the journal file at `path`, on behalf of process `pid`; moves `fd` out of
    /// the target's way.
    FileSink(UniqueFd fd, std::string path, int pid) noexcept;

    bool write(std::string_view record) noexcept override;
    /// A child forked behind Python's back (libc's fork() through ctypes) goes on writing here,
    /// its records whole among its parent's, until it starts a journal of its own.
    void after_fork() noexcept override {}
    bool take_reopened() noexcept override { return std::exchange(m_reopened, false); }

private:
    /// Whether m_fd is still the journal file (checked before each write); reopens it if not.
    bool still_ours() noexcept;
    void remember_identity() noexcept;
    /// Names a failed write to the supervisor, once.
    void report_failure(const char* why) noexcept;

    UniqueFd m_fd;
    std::string m_path;
    int m_pid;
    std::pair<dev_t, ino_t> m_identity{}; ///< the file's, to tell it from a file that took its number
    bool m_reopened = false;
    bool m_reported_failure = false;
    ProblemText m_problem;
};

/// The journal the main process shares with the supervisor (journal::SharedJournal): each record
/// copied into memory that stays the supervisor's if the process dies, even by SIGKILL.
class SharedMemorySink final : public JournalSink {
public:
    explicit SharedMemorySink(journal::SharedJournalWriter memory) noexcept : m_memory(memory) {}

    /// False when the memory is full (SharedJournal::overflowed() says so), or after a fork.
    bool write(std::string_view record) noexcept override;
    /// The memory is the parent's: a forked child writes nothing into it.
    void after_fork() noexcept override { m_memory = {}; }

private:
    journal::SharedJournalWriter m_memory;
};

/// `fd` moved to a high number, close-on-exec, where a target's own files seldom go (they take the
/// lowest free number).
UniqueFd out_of_the_way(UniqueFd fd) noexcept;

} // namespace importscope::hook
