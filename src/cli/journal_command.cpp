#include "cli/journal_command.hpp"

#include "importscope/journal/dump.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>

namespace importscope::cli {

CLI::App* setup_journal(CLI::App& app, JournalOptions& options)
{
    CLI::App* journal = app.add_subcommand("journal", "Read the journals that traced processes write");
    journal->require_subcommand(1);
    CLI::App* dump = journal->add_subcommand(
        "dump", "Print each record of a journal file as one JSON object per line, every stack's frames whole: a "
                "child's journal-<pid>-<n>.isj, or the main process's as a kept run directory holds it");
    dump->add_option("FILE", options.file, "The journal file")->required();
    dump->footer("Exit status: 0 done, 1 some records were damaged (skipped, and named on standard error), 2 bad "
                 "usage, or a file that cannot be read or is not a journal of this importscope's format.");
    return dump;
}

int run_journal_dump(const JournalOptions& options)
{
    const journal::DumpResult result = journal::dump_journal(options.file, [](std::string_view line) {
        if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size())
            throw system_error("standard output", errno);
    });
    if (std::fflush(stdout) != 0)
        throw system_error("standard output", errno);
    for (const std::string& problem : result.problems)
        print_to_stderr(fmt::format("importscope: warning: {}\n", problem));
    return static_cast<int>(result.problems.empty() ? ExitStatus::ok : ExitStatus::skipped_records);
}

} // namespace importscope::cli
