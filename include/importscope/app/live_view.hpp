#pragma once

#include "importscope/collect/collector.hpp"

#include <cstdint>
#include <string>

namespace importscope::app {

/// The run on a terminal as it goes on: the collect stage (collect::Collector) polled, and one
/// status line on stderr's last row, below the target's output, kept up to date (elapsed time,
/// processes, imports, findings, the newest one).
class LiveView {
public:
    LiveView(collect::Collector& collector, bool show_status);
    ~LiveView() { clear(); }
    LiveView(const LiveView&) = delete;
    LiveView& operator=(const LiveView&) = delete;

    /// Polls the collector and redraws the status line; true once an error finding exists.
    bool update();

    /// How many bytes the journals gave so far: a tick that did not change it found the run idle.
    std::uint64_t journal_bytes_read() const { return m_collector.journal_bytes_read(); }

    /// Erases the status line and gives its row back to the scrolling text.
    void clear();

private:
    static constexpr std::int64_t k_redraw_ns = 100'000'000; ///< updates come more often than a person reads
    void draw(std::string line);

    collect::Collector& m_collector;
    bool m_show_status;
    unsigned short m_rows = 0; ///< the terminal's height while the status line has the last row; 0: not drawn
    std::int64_t m_drawn_ns = 0;
    std::int64_t m_started_ns;
};

} // namespace importscope::app
