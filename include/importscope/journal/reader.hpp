#pragma once

#include "importscope/journal/event.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::journal {

/// What could be read back from one or more journals. A process can die in the middle of a write,
/// so a damaged line is skipped and described in `problems`, never fatal.
struct JournalContents {
    std::string source;       ///< the journal's file name
    std::uint64_t bytes = 0;  ///< the size of what was read
    std::vector<Event> events;
    std::vector<std::string> problems;
};

/// Parses one journal's text as it grows: each whole line becomes an event (a damaged one, a
/// problem), and a last line without its newline waits for more text or for the journal's end.
class JournalParser {
public:
    /// Takes each event instead of its being kept in a JournalContents.
    using EventSink = std::function<void(Event&&)>;

    /// Fills `into`, which must outlive the parser; `source` names the journal in problems. With a
    /// `sink`, the events go there and `into` gets the problems only.
    JournalParser(std::string source, JournalContents& into, EventSink sink = nullptr)
        : m_source(std::move(source)), m_into(into), m_sink(std::move(sink))
    {
    }

    /// Parses the journal's next bytes.
    void feed(std::string_view text);

    /// Parses a shared journal's next records (SharedJournal::records()), each a line.
    void feed_records(std::string_view records);

    /// The journal's next line was cut short by the process's end: finish() says so.
    void cut_short() { m_cut_short = true; }

    /// The journal is complete: a line still without its newline, or a record cut_short() named,
    /// was cut short by the process's end.
    void finish();

    /// No event line is longer; one that is (a file of zeros, say) is skipped, never held whole.
    static constexpr std::size_t k_max_line = std::size_t{64} << 20;

private:
    void line(std::string_view text);
    /// Takes the event `decode_event` gives, or names the line it throws on in the problems.
    template <typename Decode>
    void take(const Decode& decode_event);
    void drop_overlong_line();

    std::string m_source;
    JournalContents& m_into;
    EventSink m_sink;
    FrameTable m_frames;
    std::string m_partial; ///< the start of a line whose newline has not come yet
    std::size_t m_lines = 0;
    std::size_t m_skipped = 0;
    bool m_overlong = false; ///< inside a line past k_max_line, skipped to its newline
    bool m_cut_short = false; ///< a last record never finished (cut_short())
    static constexpr std::size_t k_max_named_problems = 50;
};

/// A shared journal's records (SharedJournal::records()) as the lines of a journal file: a binary
/// record made its line again, a line as it is, and one that cannot be read left out.
std::string lines_of_records(std::string_view records);

/// What one read takes of a journal file at most; a journal no reader follows past.
inline constexpr std::uint64_t k_max_read = std::uint64_t{64} << 20;
inline constexpr std::uint64_t k_max_journal_bytes = std::uint64_t{4} << 30;

/// The problem of a journal past k_max_journal_bytes.
std::string journal_too_large(const std::string& name);

/// Parses journal text; `source` names it in problem descriptions.
void parse_journal(std::string_view text, std::string_view source, JournalContents& into);

/// The bytes of the file at `path` from `offset` to its end, or the next k_max_read of them, in one
/// read; nullopt when it cannot be opened, with errno saying why.
std::optional<std::string> read_from(const std::filesystem::path& path, std::uint64_t offset);

/// Reads and parses the journal file at `path`. A missing or unreadable file is a problem, not an error.
void read_journal(const std::filesystem::path& path, JournalContents& into);

/// Reads every journal of a run directory (see run_layout.hpp), one JournalContents each.
std::vector<JournalContents> read_run_journals(const std::filesystem::path& run_dir);

} // namespace importscope::journal
