#include "importscope/app/journal_dump.hpp"

#include "importscope/journal/dump.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

namespace importscope::app {

int dump_journal_file(const JournalOptions& options)
{
    const journal::DumpResult result = journal::dump_journal(options.file, write_to_stdout);
    flush_stdout();
    for (const std::string& problem : result.problems)
        print_to_stderr(fmt::format("importscope: warning: {}\n", problem));
    return static_cast<int>(result.problems.empty() ? ExitStatus::ok : ExitStatus::skipped_records);
}

} // namespace importscope::app
