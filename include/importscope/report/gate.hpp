#pragma once

#include "importscope/analysis/finding.hpp"

#include <set>
#include <string>
#include <vector>

namespace importscope::report {

/// --fail-on: which findings make a command exit with status 1.
class FailOn {
public:
    /// "error" (the default), "warning" (errors and warnings), "none", or a comma-separated list
    /// of finding kinds. Throws Error (status 2) for an unknown kind.
    static FailOn parse(const std::string& spec);

    bool fails(const analysis::Finding& finding) const;

    /// How many of `findings` fail: the findings that give `run` and `scan` their exit status.
    std::size_t count(const std::vector<analysis::Finding>& findings) const;

private:
    enum class Mode { errors, warnings, none, kinds };
    Mode m_mode = Mode::errors;
    std::set<std::string> m_kinds;
};

} // namespace importscope::report
