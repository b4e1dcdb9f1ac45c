#pragma once

#include "importscope/journal/event.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/journal/shared_journal.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace importscope::journal {

/// Reads the journals of a run directory while the run goes on, into one JournalContents per
/// journal. The supervisor is idle until the target ends: reading then, on its own core, takes the
/// parsing of a long journal off the time to the report, and the live view sees each event as soon
/// as its record is whole.
class JournalTail {
public:
    /// Takes each event with its journal's file name and frames so far (JournalParser::EventSink),
    /// instead of its being kept for finish().
    using EventSink = std::function<void(const std::string& journal, Event&&, const FrameTable& frames)>;

    /// `known`: how the sink's events give a frame written by number (JournalParser).
    explicit JournalTail(std::filesystem::path run_dir, EventSink sink = nullptr,
                         KnownFrames known = KnownFrames::whole)
        : m_run_dir(std::move(run_dir)), m_sink(std::move(sink)), m_known(known)
    {
    }

    /// Also reads the journal in `shared` (which must outlive the tail) under the name its
    /// header gives, instead of the empty file of that name.
    void follow(const SharedJournal* shared) { m_shared = shared; }

    /// Reads what the journals gained since the last poll: each record completed since then becomes
    /// an event (a file's record still being written waits for its rest, a shared journal's for its
    /// size), for the sink or for finish().
    void poll();

    /// How many bytes the journals gave so far, all together: unchanged by a poll that found nothing.
    std::uint64_t bytes_read() const { return m_bytes_read; }

    /// After the run, once: reads the rest, ends each journal (a last record cut short is a
    /// problem), and gives every journal's contents in file-name order (without events when a
    /// sink took them).
    std::vector<JournalContents> finish();

private:
    struct FileState {
        std::uint64_t offset = 0;
        JournalContents contents;
        std::unique_ptr<JournalParser> parser; ///< fills `contents`
        bool shared = false;                   ///< read from m_shared, not from the file
        bool too_large = false;                ///< past k_max_journal_bytes: no longer read
    };

    /// The state of the journal called `name`, made the first time.
    FileState& state_of(const std::string& name);
    /// Reads what one journal gained; false when it cannot be opened.
    bool read(const std::filesystem::path& path);
    /// Reads what the shared journal gained: its whole records, or everything at the end.
    void read_shared(bool to_end);

    /// The run directory's journals as last listed, and the directory's modification time then.
    const std::vector<std::filesystem::path>& journals_now();

    std::filesystem::path m_run_dir;
    std::vector<std::filesystem::path> m_listed;
    std::optional<std::int64_t> m_listed_mtime_ns;
    unsigned m_polls_since_listing = 0;
    EventSink m_sink;
    KnownFrames m_known;
    const SharedJournal* m_shared = nullptr;
    std::map<std::string, FileState> m_files; ///< by file name, the order of list_journals()
    std::uint64_t m_bytes_read = 0;
};

} // namespace importscope::journal
