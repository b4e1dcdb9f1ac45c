#pragma once

#include "importscope/analysis/live_findings.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/journal/tail.hpp"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace importscope::cli {

/// The run as it goes on: reads the journals as they grow (the supervisor has nothing else to do
/// then, and has a core of its own), folds their events into the model, keeps the findings so far (LiveFindings: the final
/// report's analysis, run again on a journal only after an event that can make a finding), and on a terminal keeps one status line
/// on stderr's last row, below the target's output, up to date (elapsed time, processes, imports, findings, the newest one). What is left
/// when the target ends is the little the journals gained since the last update.
class LiveView {
public:
    /// `analysis` as for the final analysis of the run.
    LiveView(std::filesystem::path run_dir, bool show_status, analysis::AnalysisOptions analysis = {});
    ~LiveView() { clear(); }
    LiveView(const LiveView&) = delete;
    LiveView& operator=(const LiveView&) = delete;

    bool shows_status() const { return m_show_status; }

    /// Also reads the worker's journal in `shared`, which must outlive this.
    void follow(const journal::SharedJournal* shared) { m_tail.follow(shared); }

    /// Reads what the journals gained and redraws the status line; true once an error finding exists.
    bool update();

    /// Erases the status line and gives its row back to the scrolling text.
    void clear();

    /// After the run: erases the status line, reads the rest of the journals and gives the model.
    analysis::RunModel finish();

private:
    analysis::ModelBuilder m_builder;
    analysis::LiveFindings m_findings;
    journal::JournalTail m_tail;
    bool m_show_status;
    static constexpr std::int64_t k_redraw_ns = 100'000'000; ///< updates come more often than a person reads
    void draw(std::string line);
    unsigned short m_rows = 0; ///< the terminal's height while the status line has the last row; 0: not drawn
    std::int64_t m_drawn_ns = 0;
    std::int64_t m_started_ns;
};

} // namespace importscope::cli
