#pragma once

// `importscope journal dump`: a journal file's records as JSON, one object per line, for people.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::journal {

/// What a dump met besides the events: the records it skipped, each named.
struct DumpResult {
    std::size_t events = 0;
    std::vector<std::string> problems;
};

/// Prints each event of the journal file at `path` (a child's journal, or the main process's as a
/// kept run directory holds it) to `out` as one compact JSON object and a newline, every stack's
/// frames whole; a damaged record is skipped and named in the result. Throws Error (exit status 2)
/// when the file cannot be read, or does not start with a journal header of this build's version.
DumpResult dump_journal(const std::filesystem::path& path, const std::function<void(std::string_view)>& out);

} // namespace importscope::journal
