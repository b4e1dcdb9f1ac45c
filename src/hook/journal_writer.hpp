#pragma once

#include "importscope/journal/event.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

namespace importscope::hook {

/// The traced process's end of the journal: an O_APPEND file descriptor to which each event is
/// written with one write(2) as it happens, so a crash loses nothing already recorded.
class JournalWriter {
public:
    /// The process's one writer.
    static JournalWriter& instance();

    /// Starts writing to `fd` (owned from now on) on behalf of process `pid`.
    void open(int fd, int pid) noexcept;

    /// Starts this process's own journal in `run_dir` (journal-<pid>-<n>.jsonl, mode 0600), closing
    /// any journal inherited from a parent. Sequence numbers start again. False when it cannot.
    bool start(const std::filesystem::path& run_dir) noexcept;

    /// Stops recording (a forked child when children are not followed).
    void close() noexcept;

    int fd() const noexcept { return m_fd; }
    bool is_open() const noexcept { return m_fd >= 0; }
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

    /// Appends one event; failures are counted, never raised into the target. True when the whole
    /// line was written.
    bool append(const journal::Event& event) noexcept;

    std::uint64_t failed_writes() const noexcept { return m_failed_writes; }

private:
    JournalWriter() = default;
    static std::int64_t now_ns() noexcept;

    std::string m_line; ///< the line being written (under the GIL), its buffer kept for the next
    int m_fd = -1;
    int m_pid = 0;
    std::uint64_t m_serial = 0;
    std::atomic<std::uint64_t> m_seq{0};
    std::atomic<std::uint64_t> m_import_id{0};
    std::atomic<std::uint64_t> m_failed_writes{0};
};

} // namespace importscope::hook
