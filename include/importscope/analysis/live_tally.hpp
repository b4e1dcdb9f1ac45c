#pragma once

#include "importscope/analysis/finding.hpp"
#include "importscope/journal/event.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace importscope::analysis {

/// What a run has shown so far, kept up to date from the journal tail while it goes on: counts
/// for the status line, and the error findings that --stop-on-finding waits for. Only extension
/// loads can make a duplicate init, so only they are analysed again, and only when they change.
class LiveTally {
public:
    /// Counts one event; the findings follow at the next update().
    void add(const journal::Event& event);
    /// Analyses the extension loads again if they changed since the last update.
    void update();
    /// add() for each, then update().
    void add(const std::vector<journal::Event>& events);

    std::size_t processes() const { return m_processes; }
    std::size_t imports() const { return m_imports; }
    const std::vector<Finding>& findings() const { return m_findings; }
    std::size_t errors() const;

private:
    std::size_t m_processes = 0;
    std::size_t m_imports = 0;
    journal::JournalContents m_extension_events; // process starts and extension loads only
    bool m_extensions_changed = false;
    std::vector<Finding> m_findings;
};

} // namespace importscope::analysis
