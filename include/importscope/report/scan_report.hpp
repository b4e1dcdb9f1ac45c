#pragma once

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/scan.hpp"
#include "importscope/report/document.hpp"
#include "importscope/report/outcome.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace importscope::report {

/// What `importscope scan` knows of itself, beside the scanner's facts.
struct ScanInfo {
    std::vector<std::string> argv; ///< importscope's own command line
    std::string cwd;
    std::string host;
    std::string python_executable;
    std::vector<std::string> paths; ///< the PATHs given
    bool environment = false;       ///< the interpreter's sys.path was scanned
    std::int64_t started_ns = 0;    ///< wall clock
    std::int64_t ended_ns = 0;
};

/// A scan's report: the schema of `run`'s, with "scan" in the place of "run" (docs/report-format.md)
/// and no processes or module records.
Document build_scan_report(const ScanInfo& info, const analysis::ScanFacts& facts,
                           const std::vector<analysis::Finding>& findings, const Outcome& outcome);

/// A scan's exit status: 1 for findings that --fail-on selects; else 125 when the scan is
/// incomplete (`unread`: files or directories it could not read, which may hide a finding); else 0.
Outcome decide_scan_outcome(std::size_t selected_findings, const std::vector<analysis::UnreadFile>& unread = {});

} // namespace importscope::report
