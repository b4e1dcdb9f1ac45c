#pragma once

#include "hook/journal_sinks.hpp"

#include "importscope/journal/event.hpp"
#include "importscope/journal/shared_journal.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace importscope::hook {

/// The traced process's end of the journal: encodes each event as a binary record
/// (journal/record_format.hpp) and hands it to the sink it owns (journal_sinks.hpp), a file or the
/// memory shared with the supervisor, so that each event is in the kernel's hands as it happens and
/// a crash loses nothing already recorded. One per process: the hooks' C callbacks reach it by
/// instance().
class JournalWriter {
public:
    /// The process's one writer.
    static JournalWriter& instance();

    /// Offers this process's first journal the supervisor's shared memory (zeros past its
    /// header): start() writes there instead of to the file it creates. A child forked from here
    /// does not inherit the offer, nor the shared journal (the sinks' after_fork()).
    void offer_shared(journal::SharedJournalWriter shared) noexcept;

    /// Starts this process's own journal in `run_dir` (journal-<pid>-<n>.isj, mode 0600), closing
    /// any journal inherited from a parent. Sequence numbers start again. False when it cannot.
    bool start(const std::filesystem::path& run_dir) noexcept;

    /// Starts writing to `sink` on behalf of process `pid` (a test's journal file, say).
    void write_to(std::unique_ptr<JournalSink> sink, int pid) noexcept;

    /// Stops recording (a forked child when children are not followed).
    void close() noexcept;

    /// Whether a journal is open, or was open in the parent this process was forked from (until
    /// start() or close()).
    bool is_open() const noexcept { return m_sink != nullptr; }
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

    /// Appends one event as a record (encode_record_to), encoded under the GIL into a buffer kept
    /// from one event to the next. Failures are counted, never raised into the target. True when
    /// the whole event was written. (Callers move their event in: a copy into the variant would
    /// cost an allocation per string.)
    bool append(const journal::Event& event) noexcept;
    /// The same for an import's begin, written as it is: the loader wrapper keeps one from one
    /// import to the next, with its strings' buffers.
    bool append(const journal::ImportBegin& event) noexcept;

    /// Appends the process's end, made without allocating: async-signal-safe.
    bool append_end(std::string_view how, int code) noexcept;

    std::uint64_t failed_writes() const noexcept { return m_failed_writes; }

private:
    JournalWriter() = default;
    template <typename AnyEvent>
    bool append_any(const AnyEvent& event) noexcept;
    /// Hands a whole record to the sink, counting a failure.
    bool write(std::string_view record) noexcept;
    static std::int64_t now_ns() noexcept;
    /// In a child just forked (pthread_atfork): the sink's after_fork().
    static void after_fork() noexcept;

    std::unique_ptr<JournalSink> m_sink; ///< null: not recording
    journal::SharedJournalWriter m_offer; ///< shared memory for the next start()
    std::string m_record; ///< the record being written (under the GIL), its buffer kept for the next
    ProblemText m_problem;
    int m_pid = 0;
    std::uint64_t m_serial = 0;
    std::atomic<std::uint64_t> m_seq{0};
    std::atomic<std::uint64_t> m_import_id{0};
    std::atomic<std::uint64_t> m_failed_writes{0};
};

} // namespace importscope::hook
