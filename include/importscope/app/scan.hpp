#pragma once

// The application's `scan`: the scanner (src/scan/scanner.py) run with the examined interpreter,
// its progress line on stderr, the static findings, the report, the exit status.

#include <string>
#include <vector>

namespace importscope::app {

/// Options of `importscope scan`.
struct ScanOptions {
    std::vector<std::string> paths; ///< source trees or site directories; none: the environment
    std::string python;             ///< the interpreter whose environment is scanned and whose ast parses
    bool environment = false;       ///< with PATHs: scan the interpreter's sys.path too
    std::string output = "importscope-scan.json";
    std::string fail_on = "error";
    std::string format = "text";
    bool quiet = false;
    bool redact_paths = false; ///< replace the home directory and user name in every path
    double timeout_s = 1800;
    std::vector<std::string> argv; ///< importscope's own command line, for the report
};

/// Examines an environment or source trees without running them, writes the report; returns the
/// exit status (0 none, 1 findings that --fail-on selects, 125 the scan could not be done).
int scan(const ScanOptions& options);

} // namespace importscope::app
