#pragma once

#include "importscope/analysis/model.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace importscope::analysis {

enum class Severity { warning, error };

const char* to_string(Severity severity);

/// One hazard found in a run: what, where, why it matters and what to do.
struct Finding {
    std::string kind; ///< e.g. "duplicate-extension-init"
    Severity severity = Severity::warning;
    int pid = 0;
    std::vector<std::string> module_names; ///< in the order they were loaded
    std::string file;                      ///< the file concerned, real path
    std::string message;                   ///< one line: what happened
    std::string explanation;               ///< why it is a hazard
    std::string advice;                    ///< what to do
    nlohmann::json evidence;               ///< kind-specific details (the loads, their call sites)
};

/// `duplicate-extension-init`: one extension file (by st_dev and st_ino, so symlinks and hard links
/// count) whose PyInit ran under two or more module names in one process.
std::vector<Finding> find_duplicate_extension_inits(const RunModel& model);

/// Every analysis over the run, in a deterministic order (severity, then kind, pid and file).
std::vector<Finding> analyze(const RunModel& model);

} // namespace importscope::analysis
