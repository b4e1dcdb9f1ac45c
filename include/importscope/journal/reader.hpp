#pragma once

#include "importscope/journal/event.hpp"

#include <cstdint>
#include <filesystem>
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

/// Parses journal text; `source` names it in problem descriptions.
void parse_journal(std::string_view text, std::string_view source, JournalContents& into);

/// Reads and parses the journal file at `path`. A missing or unreadable file is a problem, not an error.
void read_journal(const std::filesystem::path& path, JournalContents& into);

/// Reads every journal of a run directory (see run_layout.hpp), one JournalContents each.
std::vector<JournalContents> read_run_journals(const std::filesystem::path& run_dir);

} // namespace importscope::journal
