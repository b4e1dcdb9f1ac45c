#pragma once

// The application's `journal dump FILE`: a journal's records as JSON lines on standard output for
// people (journal/dump.hpp reads them), its damaged records named on standard error.

#include <string>

namespace importscope::app {

struct JournalOptions {
    std::string file;
};

/// Returns the exit status: 0, or 1 when records were damaged; throws Error for a file that is no
/// journal of this format.
int dump_journal_file(const JournalOptions& options);

} // namespace importscope::app
