#pragma once

#include <optional>
#include <string>
#include <vector>

namespace importscope {

/// How a program run by capture_program() ended, and what it wrote on stdout.
struct CapturedRun {
    enum class End { succeeded, failed, timed_out, not_started };
    End end = End::not_started;
    std::string output;
    /// For a failed run: "exit status 1", "signal 11".
    std::string how;
};

/// Runs a program (argv[0] is its path) with stdin on /dev/null and stderr on /dev/null or, with
/// `keep_stderr`, on importscope's; it is killed at `timeout_s`. Its stdout is kept up to 16 MiB.
CapturedRun capture_program(const std::vector<std::string>& argv, double timeout_s, bool keep_stderr = false);

/// capture_program()'s stdout when the program exited with status 0 within `timeout_s`, nullopt
/// otherwise.
std::optional<std::string> run_and_capture(const std::vector<std::string>& argv, double timeout_s,
                                           bool keep_stderr = false);

} // namespace importscope
