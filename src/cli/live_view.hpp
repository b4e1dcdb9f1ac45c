#pragma once

#include "importscope/analysis/live_tally.hpp"
#include "importscope/journal/tail.hpp"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace importscope::cli {

/// The run as it goes on: reads the journals as they grow (the supervisor has nothing else to do
/// then), keeps a LiveTally, and on a terminal keeps one status line on stderr up to date (elapsed
/// time, processes, imports, findings, the newest one).
class LiveView {
public:
    LiveView(std::filesystem::path run_dir, bool show_status);
    ~LiveView() { clear(); }
    LiveView(const LiveView&) = delete;
    LiveView& operator=(const LiveView&) = delete;

    bool shows_status() const { return m_show_status; }

    /// Reads what the journals gained and redraws the status line; true once an error finding exists.
    bool update();

    /// Erases the status line, so that what follows starts on a clean line.
    void clear();

    /// After the run: erases the status line and gives every journal's contents (JournalTail::finish).
    std::vector<journal::JournalContents> finish();

private:
    journal::JournalTail m_tail;
    analysis::LiveTally m_tally;
    bool m_show_status;
    bool m_drawn = false;
    std::int64_t m_started_ns;
};

} // namespace importscope::cli
