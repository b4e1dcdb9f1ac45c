#pragma once

#include <CLI/App.hpp>

#include <string>

/// `importscope journal dump FILE`: a journal's records as JSON for people (journal/dump.hpp does it).
namespace importscope::cli {

struct JournalOptions {
    std::string file;
};

/// Adds `journal` and its one action, `dump`; returns `dump`.
CLI::App* setup_journal(CLI::App& app, JournalOptions& options);

int run_journal_dump(const JournalOptions& options);

} // namespace importscope::cli
