#pragma once

#include <optional>
#include <string>
#include <vector>

namespace importscope {

/// Runs a program (argv[0] is its path) with stdin on /dev/null and stderr on /dev/null or, with
/// `keep_stderr`, on importscope's; returns its stdout when it exits with status 0 within
/// `timeout_s`, nullopt otherwise (it is killed at the timeout).
std::optional<std::string> run_and_capture(const std::vector<std::string>& argv, double timeout_s,
                                           bool keep_stderr = false);

} // namespace importscope
