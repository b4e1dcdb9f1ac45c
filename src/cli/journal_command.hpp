#pragma once

// `importscope journal dump FILE` on the command line: its declaration (app/journal_dump.hpp does it).

#include "importscope/app/journal_dump.hpp"

#include <CLI/App.hpp>

namespace importscope::cli {

using app::JournalOptions;

/// Adds `journal` and its one action, `dump`; returns `dump`.
CLI::App* setup_journal(CLI::App& app, JournalOptions& options);

} // namespace importscope::cli
