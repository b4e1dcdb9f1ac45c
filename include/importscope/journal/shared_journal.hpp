#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace importscope::journal {

/// The bytes before a shared journal's first line (SharedJournal::k_header).
inline constexpr std::size_t k_shared_journal_header = 256;

/// The worker's side of a SharedJournal: where its memory is, and where the next line goes. It is
/// plain data, handed to the worker in its plan; every call is async-signal-safe.
class SharedJournalLines {
public:
    SharedJournalLines() = default;
    SharedJournalLines(char* data, std::size_t capacity) noexcept : m_data(data), m_capacity(capacity) {}

    explicit operator bool() const noexcept { return m_data != nullptr; }

    /// Writes the journal's name into the header, before any line.
    void publish_name(std::string_view name) noexcept;

    /// Copies `line`, which ends in its newline, after the lines before it, the newline last, so
    /// that a reader that sees the newline sees the whole line. A line that does not fit is
    /// dropped, and the header says so (SharedJournal::overflowed): false.
    bool append(std::string_view line) noexcept;

private:
    char* m_data = nullptr;
    std::size_t m_capacity = 0;
    std::size_t m_end = k_shared_journal_header; ///< where the next line goes
};

/// The journal of the process the supervisor forks (the worker), in memory the two share: the
/// worker copies each line into it, so an event costs no system call, and the pages are the
/// supervisor's as much as the worker's, so a worker that is killed, even by SIGKILL, loses
/// nothing it wrote. Its first k_header bytes name the journal (the worker also creates an empty
/// file of that name, which keeps the name taken in the run directory) and, in their last byte,
/// say whether a line did not fit; the lines follow, each written with its newline last; the rest
/// is zeros. The worker's children write files.
class SharedJournal {
public:
    static constexpr std::size_t k_header = k_shared_journal_header;
    /// Address space, not memory: only the pages written to are ever allocated.
    static constexpr std::size_t k_default_capacity = std::size_t{1} << 30;

    /// Creates the memory (memfd_create) and maps it; throws Error when it cannot.
    explicit SharedJournal(std::size_t capacity = k_default_capacity);
    ~SharedJournal();
    SharedJournal(const SharedJournal&) = delete;
    SharedJournal& operator=(const SharedJournal&) = delete;

    std::size_t capacity() const noexcept { return m_capacity; }
    /// Where the worker writes, for its plan.
    SharedJournalLines lines() const noexcept { return {m_data, m_capacity}; }

    /// The journal's file name, once the worker has written it; empty before.
    std::string name() const;

    /// The lines from `offset` (at least k_header) that are whole: up to and including the last
    /// newline written so far.
    std::string_view complete_lines(std::size_t offset) const;

    /// Everything written from `offset`, with a last line that never got its newline: for when
    /// the worker has ended.
    std::string_view written(std::size_t offset) const;

    /// Whether the worker dropped a line because the memory was full.
    bool overflowed() const;

private:
    char* m_data = nullptr;
    std::size_t m_capacity = 0;
};

} // namespace importscope::journal
