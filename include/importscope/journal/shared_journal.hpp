#pragma once

// The main process's journal in memory shared with the supervisor: SharedJournal, the supervisor's
// mapping and reader of whole records, and SharedJournalWriter, the worker's side.

#include <cstddef>
#include <string>
#include <string_view>

namespace importscope::journal {

/// The bytes before a shared journal's first record (SharedJournal::k_header).
inline constexpr std::size_t k_shared_journal_header = 256;

/// The worker's side of a SharedJournal: where its memory is, and where the next record goes. It
/// is plain data, handed to the worker in its plan; every call is async-signal-safe.
class SharedJournalWriter {
public:
    SharedJournalWriter() = default;
    SharedJournalWriter(char* data, std::size_t capacity) noexcept : m_data(data), m_capacity(capacity) {}

    explicit operator bool() const noexcept { return m_data != nullptr; }

    /// Writes the journal's name into the header, before any record.
    void publish_name(std::string_view name) noexcept;

    /// Copies a record (finish_record()'s, record_format.hpp) after the ones before it, its size
    /// last, so that a reader that sees the size sees the whole record. A record that does not fit
    /// is dropped, and the header says so (SharedJournal::overflowed): false.
    bool append(std::string_view record) noexcept;

private:
    /// The writer asks the kernel for the pages of the next chunk before it reaches them
    /// (MADV_POPULATE_WRITE): one system call instead of a page fault a page.
    static constexpr std::size_t k_populate_chunk = std::size_t{256} << 10;
    void populate_ahead(std::size_t offset) const noexcept;

    char* m_data = nullptr;
    std::size_t m_capacity = 0;
    std::size_t m_end = k_shared_journal_header; ///< where the next record goes
};

/// The journal of the process the supervisor forks (the worker), in memory the two share: the
/// worker copies each event into it, so an event costs no system call (once every 256 KiB, one
/// that allocates the next 256 KiB's pages at once), and the pages are the
/// supervisor's as much as the worker's, so a worker that is killed, even by SIGKILL, loses
/// nothing it wrote. Its first k_header bytes name the journal (the worker also creates an empty
/// file of that name, which keeps the name taken in the run directory) and, in their last byte,
/// say whether a record did not fit. The records follow, as a journal file holds them after its
/// header (record_format.hpp), each with its size written last; the rest is zeros. The worker's
/// children write files.
class SharedJournal {
public:
    static constexpr std::size_t k_header = k_shared_journal_header;
    /// Address space, not memory: only the pages written to, and the next chunk's, are allocated.
    static constexpr std::size_t k_default_capacity = std::size_t{1} << 30;

    /// Creates the memory (memfd_create) and maps it; throws Error when it cannot.
    explicit SharedJournal(std::size_t capacity = k_default_capacity);
    ~SharedJournal();
    SharedJournal(const SharedJournal&) = delete;
    SharedJournal& operator=(const SharedJournal&) = delete;

    std::size_t capacity() const noexcept { return m_capacity; }
    /// Where the worker writes, for its plan.
    SharedJournalWriter writer() const noexcept { return {m_data, m_capacity}; }

    /// The journal's file name, once the worker has written it; empty before.
    std::string name() const;

    /// The whole records from `offset` (k_header, or the end of records read before): each one
    /// whose size has been written, up to the first that has none yet.
    std::string_view records(std::size_t offset) const;

    /// Whether a record was begun at `offset`, the end of the whole ones, and never finished: for
    /// when the worker has ended, in the middle of writing it.
    bool cut_short(std::size_t offset) const;

    /// Whether the worker dropped a record because the memory was full.
    bool overflowed() const;

private:
    char* m_data = nullptr;
    std::size_t m_capacity = 0;
};

} // namespace importscope::journal
