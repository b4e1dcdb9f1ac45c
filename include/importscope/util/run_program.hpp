#pragma once

#include <optional>
#include <string>
#include <vector>

namespace importscope {

/// Runs a program (argv[0] is its path) with stdin and stderr on /dev/null, and returns its stdout
/// when it exits with status 0 within `timeout_s`; nullopt otherwise (it is killed at the timeout).
std::optional<std::string> run_and_capture(const std::vector<std::string>& argv, double timeout_s);

} // namespace importscope
