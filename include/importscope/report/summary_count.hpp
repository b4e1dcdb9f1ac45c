#pragma once

// The report's "summary" (document.hpp, Summary), counted in one place for every report: a run's,
// a scan's and a merge of many runs'.

#include "importscope/report/document.hpp"

#include <set>
#include <string>
#include <utility>

namespace importscope::report {

/// The counts of a report's summary, added up report by report: `run` and `scan` count their one
/// report, `merge` each run's as it reads it. A process is told by its host and pid, so that one
/// that exec'd Python again (a process image each) counts once, and the same pid on two hosts twice.
class SummaryCount {
public:
    /// The processes, module records, findings and untraced processes of `report`, on its run's host.
    void add(const Document& report);
    /// A module record that is not in a Document: `run` streams them from the model.
    void add_module(bool initialized_extension);

    /// What is counted so far; journal_bytes is no count, and is left empty.
    Summary summary() const;

private:
    Summary m_counted; ///< the counts that are sums
    std::set<std::pair<std::string, int>> m_processes;
    std::set<std::pair<std::string, int>> m_processes_with_findings;
};

/// The summary of one report.
Summary summarize(const Document& report);

} // namespace importscope::report
