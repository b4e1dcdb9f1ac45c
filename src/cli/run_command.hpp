#pragma once

#include <CLI/App.hpp>

#include <string>
#include <vector>

namespace importscope::cli {

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
    std::string fail_on = "error";         ///< which findings make the exit status 1
    std::string format = "text";           ///< the form of the summary on stderr
    std::vector<std::string> env_prefixes; ///< --env-prefix: more environment variables to record
    std::string script;
    std::string module;
    std::string command;
    std::vector<std::string> target_args; ///< everything after the target, untouched
    std::vector<std::string> argv;        ///< importscope's own command line, for the report
};

/// Declares `run` and its options on `app`.
CLI::App* setup_run(CLI::App& app, RunOptions& options);

/// Splits the words after `run` into importscope's own (options and the target: SCRIPT, -m MODULE
/// or -c CODE) and the target's arguments, which follow the target and are never parsed, as with
/// python. Option arity comes from the `run` subcommand's declarations.
std::pair<std::vector<std::string>, std::vector<std::string>>
split_target_arguments(const CLI::App& run, const std::vector<std::string>& words);

/// Runs the target under supervision and writes the report; returns the exit status.
int run_run(const RunOptions& options);

} // namespace importscope::cli
