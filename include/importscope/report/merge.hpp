#pragma once

// `importscope merge`: one report from the reports of the ranks and nodes of a job, read one at a
// time, with the job at a glance (each finding once, with the runs, ranks and hosts that found it,
// and the runs that found nothing).

#include "importscope/report/document.hpp"
#include "importscope/report/summary_count.hpp"
#include "importscope/util/atomic_file.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace importscope::report {

/// Reports merged as they are read: processes keep the host they ran on; frames, module records,
/// processes, findings and untraced processes go to scratch files as each report comes (each
/// record's frame indexes moved along), so that a merge of thousands of reports holds one report
/// at a time and a line per run. A run given more than once (the same host, start, end, command
/// line and processes) is merged once, and `problems` says so. The summary is counted again, as
/// a run's is (SummaryCount).
class ReportMerge {
public:
    ReportMerge();
    ~ReportMerge();
    ReportMerge(const ReportMerge&) = delete;
    ReportMerge& operator=(const ReportMerge&) = delete;

    /// Adds a run's report, read from `source`. Throws Error (status 2) for a scan's report.
    void add(const Document& report, const std::string& source);

    /// The merged report, laid out as a run's report is; once. Throws Error when nothing was added.
    void write(const TextSink& sink);

private:
    struct Scratch;
    struct Group; ///< a finding as the runs share it
    void add_run(const Document& report, const std::string& source);
    void add_findings(const Document& report, std::size_t run);
    AcrossRuns across_runs() const;

    std::unique_ptr<Scratch> m_frames, m_modules, m_processes, m_findings, m_untraced;
    std::uint64_t m_frame_count = 0;
    std::optional<Document> m_first; ///< the first report but its records: what the runs share
    std::vector<MergedRun> m_runs;
    std::vector<ReportedCause> m_causes;
    std::vector<std::string> m_problems;
    std::optional<Outcome> m_outcome;
    SummaryCount m_count;                  ///< the merged runs' processes, records and findings
    std::map<std::string, Group> m_groups; ///< by finding_key
    std::vector<std::string> m_group_order;
    std::map<std::string, std::size_t> m_times_given; ///< by run identity
    std::vector<std::pair<std::string, std::string>> m_given_again; ///< identity, "HOST: the run started at ..."
};

/// The same for reports at hand: the merged report as `importscope report` would read it.
Document merge_reports(const std::vector<Document>& reports);

/// "0-6,8,10-31": sorted whole numbers as ranges.
std::string ranges_text(const std::set<std::int64_t>& numbers);

} // namespace importscope::report
