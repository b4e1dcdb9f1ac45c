#pragma once

#include "importscope/journal/event.hpp"
#include "importscope/journal/shared_journal.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <sys/types.h>
#include <utility>

namespace importscope::hook {

/// The traced process's end of the journal. Each event is in the kernel's hands as it happens, so
/// a crash loses nothing already recorded: written with one write(2) to an O_APPEND file, or, in
/// the process the supervisor forked, copied into memory the supervisor shares
/// (journal::SharedJournal).
class JournalWriter {
public:
    /// The process's one writer.
    static JournalWriter& instance();

    /// Starts writing to `fd` (owned from now on; -1 with a shared journal) on behalf of process `pid`.
    void open(int fd, int pid) noexcept;

    /// Offers this process's first journal the supervisor's shared memory (zeros past its
    /// header): start() writes there instead of to the file it creates. A child forked from here
    /// does not inherit the offer, nor the shared journal.
    void offer_shared(journal::SharedJournalWriter shared) noexcept;

    /// Starts this process's own journal in `run_dir` (journal-<pid>-<n>.jsonl, mode 0600), closing
    /// any journal inherited from a parent. Sequence numbers start again. False when it cannot.
    bool start(const std::filesystem::path& run_dir) noexcept;

    /// Stops recording (a forked child when children are not followed).
    void close() noexcept;

    /// Whether a journal is open, or was open in the parent this process was forked from (until
    /// start() or close()).
    bool is_open() const noexcept { return m_fd >= 0 || m_shared || m_forked_from_shared; }
    int pid() const noexcept { return m_pid; }
    /// Tells journals apart: changes whenever the writer starts on another file (a forked child's).
    std::uint64_t serial() const noexcept { return m_serial; }

    /// The next position in this process's event order.
    std::uint64_t next_seq() noexcept { return ++m_seq; }
    /// The next import id (pairs begin and end events).
    std::uint64_t next_import_id() noexcept { return ++m_import_id; }

    /// Fills in the fields every event of this process has: pid, next sequence number, time.
    template <typename Event>
    Event& stamp(Event& event) noexcept
    {
        event.pid = m_pid;
        event.seq = next_seq();
        event.mono_ns = now_ns();
        return event;
    }

    /// Appends one event: a line in a file, a binary record (encode_record_to) in the shared
    /// journal. Failures are counted, never raised into the target. True when the whole event was
    /// written. (Callers move their event in: a copy into the variant would cost an allocation per
    /// string.)
    bool append(const journal::Event& event) noexcept;
    /// The same for an import's begin, written as it is: the loader wrapper keeps one from one
    /// import to the next, with its strings' buffers.
    bool append(const journal::ImportBegin& event) noexcept;

    /// Appends a line made elsewhere, ending in its newline (in the shared journal, a record that
    /// holds it); async-signal-safe.
    bool append_line(const char* line, std::size_t size) noexcept;

    std::uint64_t failed_writes() const noexcept { return m_failed_writes; }

private:
    JournalWriter() = default;
    /// Appends `event` (an Event, or an ImportBegin), encoded in the line buffer (under the GIL): a
    /// binary record in the shared journal, else a line.
    template <typename AnyEvent>
    bool append_any(const AnyEvent& event) noexcept;
    /// Appends a record to the shared journal, counting a failure.
    bool append_record(journal::RecordForm form, std::string_view payload) noexcept;
    static std::int64_t now_ns() noexcept;

    /// In a child just forked: the shared journal is the parent's, not to be written.
    static void forget_shared_after_fork() noexcept;

    /// Sends a problem to the supervisor's inbox (IMPORTSCOPE_PROBLEMS), if there is one.
    static void tell_problem(const char* text) noexcept;
    template <typename... Args>
    static const char* fmt_problem(const char* format, Args... args) noexcept;

    /// `fd` moved to a high number, close-on-exec.
    static int out_of_the_way(int fd) noexcept;
    /// Whether m_fd is still the journal file (checked before each write); reopens it if not.
    bool still_ours() noexcept;

    std::string m_name;               ///< the journal's file name
    std::string m_path;               ///< and its path, to open it again
    bool m_reopened = false;          ///< a note is due: the journal was opened again
    std::pair<dev_t, ino_t> m_identity{}; ///< the journal file's, to tell it from a file that took its number
    bool m_reported_failure = false; ///< a failed write was told to the supervisor already
    std::string m_line; ///< the line or record being written (under the GIL), its buffer kept for the next
    int m_fd = -1;
    journal::SharedJournalWriter m_offer;  ///< shared memory for the next start()
    journal::SharedJournalWriter m_shared; ///< the shared journal written to, if any
    bool m_forked_from_shared = false;
    int m_pid = 0;
    std::uint64_t m_serial = 0;
    std::atomic<std::uint64_t> m_seq{0};
    std::atomic<std::uint64_t> m_import_id{0};
    std::atomic<std::uint64_t> m_failed_writes{0};
};

} // namespace importscope::hook
