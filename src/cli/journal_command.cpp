#include "cli/journal_command.hpp"

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

} // namespace importscope::cli
