#pragma once

#include <filesystem>
#include <vector>

namespace importscope::supervisor {

/// Ends traced processes that are still alive after the run was ended (they left the process group
/// with setsid, say). A pid is only killed when /proc shows it still carries this run's directory in
/// its environment, so a reused pid is never hit. Returns the pids it killed.
std::vector<int> kill_stragglers(const std::filesystem::path& run_dir, const std::vector<int>& candidates);

} // namespace importscope::supervisor
