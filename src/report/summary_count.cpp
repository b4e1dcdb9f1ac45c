#include "importscope/report/summary_count.hpp"

namespace importscope::report {

void SummaryCount::add(const Document& report)
{
    const std::string host = report.run ? report.run->host : std::string();
    for (const ReportedProcess& process : report.processes)
        m_processes.insert({host, process.pid});
    for (const ReportedModule& module : report.modules)
        add_module(module.initialized_extension);
    for (const ReportedFinding& finding : report.findings) {
        if (finding.pid != 0) // a scan's findings are no process's
            m_processes_with_findings.insert({host, finding.pid});
        ++(finding.severity == analysis::Severity::error ? m_counted.errors : m_counted.warnings);
    }
    m_counted.untraced_processes += report.untraced.size();
}

void SummaryCount::add_module(bool initialized_extension)
{
    ++m_counted.modules;
    if (initialized_extension)
        ++m_counted.extension_inits;
}

Summary SummaryCount::summary() const
{
    Summary summary = m_counted;
    summary.processes = m_processes.size();
    summary.processes_with_findings = m_processes_with_findings.size();
    summary.python_processes = summary.processes + summary.untraced_processes;
    summary.findings = summary.errors + summary.warnings;
    return summary;
}

Summary summarize(const Document& report)
{
    SummaryCount count;
    count.add(report);
    return count.summary();
}

} // namespace importscope::report
