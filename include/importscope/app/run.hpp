#pragma once

// The application's `run`: its options, and run(), which calls the stages of run_stages.hpp in
// turn (request, launch, collect, analyze, report) and returns the exit status.

#include <optional>
#include <string>
#include <vector>

namespace importscope::app {

/// Options of `importscope run`.
struct RunOptions {
    std::vector<std::string> match{"deep_gemm"};
    std::string output = "importscope-report.json";
    std::string python;
    double timeout_s = 0;
    bool timeout_given = false;
    bool no_follow = false;
    bool stop_on_finding = false;
    bool quiet = false;
    bool redact_paths = false;  ///< replace the home directory and user name in every path
    bool ignore_target_status = false; ///< the exit status looks at findings (and importscope's failures) only
    bool stdin_closed = false; ///< importscope started with descriptor 0 closed (<&-): so does the target
    std::string fail_on = "error";         ///< which findings make the exit status 3
    std::string format = "text";           ///< the form of the summary on stderr
    std::vector<std::string> env_prefixes; ///< --env-prefix: more environment variables to record
    std::string script;
    std::string module;
    std::string command;
    std::optional<std::string> program; ///< the COMMAND after `--`
    std::vector<std::string> target_args; ///< everything after the target, untouched
    std::vector<std::string> argv;        ///< importscope's own command line, for the report
};

/// Runs the target under supervision and writes the report; returns the exit status.
int run(const RunOptions& options);

} // namespace importscope::app
