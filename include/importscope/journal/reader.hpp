#pragma once

// The tolerant reader of journals: a file's or a shared journal's records, as they grow, into events.

#include "importscope/journal/event.hpp"
#include "importscope/journal/record_format.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::journal {

/// What could be read back from one or more journals. A process can die in the middle of a write,
/// so a damaged record is skipped and described in `problems`, never fatal.
struct JournalContents {
    std::string source;       ///< the journal's file name
    std::uint64_t bytes = 0;  ///< the size of what was read
    std::vector<Event> events;
    std::vector<std::string> problems;
};

/// Parses one journal as it grows (record_format.hpp): a file's header, then each whole record
/// becomes an event (a damaged one, a problem), and a last record not yet whole waits for more
/// bytes or for the journal's end. A file of another format's version, or no journal at all, is
/// named in the problems and skipped; so is the rest of a file from bytes that are no record.
class JournalParser {
public:
    /// Takes each event instead of its being kept in a JournalContents, with the journal's frames
    /// so far (which hold those its stacks name by number).
    using EventSink = std::function<void(Event&&, const FrameTable& frames)>;

    /// Fills `into`, which must outlive the parser; `source` names the journal in problems. With a
    /// `sink`, the events go there and `into` gets the problems only; `known` says how their
    /// stacks give a frame written by number (events kept in `into` have every frame whole).
    JournalParser(std::string source, JournalContents& into, EventSink sink = nullptr,
                  KnownFrames known = KnownFrames::whole)
        : m_source(std::move(source)), m_into(into), m_sink(std::move(sink)),
          m_known(m_sink ? known : KnownFrames::whole)
    {
    }

    /// Parses a journal file's next bytes.
    void feed(std::string_view bytes);

    /// Parses a shared journal's next records (SharedJournal::records(), whole records, no header).
    void feed_records(std::string_view records);

    /// The journal's next record was cut short by the process's end: finish() says so.
    void cut_short() { m_cut_short = true; }

    /// Whether the rest of the journal is skipped (another version, no journal, bytes that are no
    /// record): its reader need not read it.
    bool skips_the_rest() const { return m_state == State::skipped; }

    /// The journal is complete: a record still not whole, or one cut_short() named, was cut short
    /// by the process's end.
    void finish();

private:
    enum class State { header, records, skipped };

    /// Takes the header, if not taken yet, and the whole records at the start of `bytes`.
    void parse(std::string_view& bytes);
    /// Checks the header at the start of `bytes`, and drops it; false while it is not whole.
    bool header(std::string_view& bytes);
    /// Takes the whole records at the start of `bytes`; the start of one not yet whole stays.
    void records(std::string_view& bytes);
    void record(const Record& record);
    /// Skips the rest of the journal, naming why.
    void skip_rest(const std::string& problem);
    /// Takes the event `decode_event` gives, or names the record it throws on in the problems.
    template <typename Decode>
    void take(const Decode& decode_event);

    std::string m_source;
    JournalContents& m_into;
    EventSink m_sink;
    KnownFrames m_known;
    FrameTable m_frames;
    State m_state = State::header;
    std::string m_partial;       ///< the start of a file's header or record whose rest has not come yet
    std::uint64_t m_offset = 0;  ///< the bytes taken: the header and the whole records
    std::size_t m_records = 0;
    std::size_t m_skipped = 0;
    bool m_cut_short = false; ///< a last record never finished (cut_short())
    static constexpr std::size_t k_max_named_problems = 50;
};

/// What one read takes of a journal file at most; a journal no reader follows past.
inline constexpr std::uint64_t k_max_read = std::uint64_t{64} << 20;
inline constexpr std::uint64_t k_max_journal_bytes = std::uint64_t{4} << 30;

/// The problem of a journal past k_max_journal_bytes.
std::string journal_too_large(const std::string& name);

/// Parses a whole journal file's bytes; `source` names it in problem descriptions.
void parse_journal(std::string_view bytes, std::string_view source, JournalContents& into);

/// The bytes of the file at `path` from `offset` to its end, or the next k_max_read of them, in one
/// read; nullopt when it cannot be opened, with errno saying why.
std::optional<std::string> read_from(const std::filesystem::path& path, std::uint64_t offset);

/// Reads and parses the journal file at `path`. A missing or unreadable file is a problem, not an error.
void read_journal(const std::filesystem::path& path, JournalContents& into);

/// Reads every journal of a run directory (see run_layout.hpp), one JournalContents each.
std::vector<JournalContents> read_run_journals(const std::filesystem::path& run_dir);

} // namespace importscope::journal
