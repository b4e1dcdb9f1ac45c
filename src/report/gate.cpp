#include "importscope/report/gate.hpp"

#include "importscope/analysis/finding.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace importscope::report {

namespace {

const std::set<std::string> k_known_kinds(analysis::k_finding_kinds.begin(), analysis::k_finding_kinds.end());

} // namespace

FailOn FailOn::parse(const std::string& spec)
{
    FailOn gate;
    if (spec == "error" || spec.empty())
        return gate;
    if (spec == "warning") {
        gate.m_mode = Mode::warnings;
        return gate;
    }
    if (spec == "none") {
        gate.m_mode = Mode::none;
        return gate;
    }
    gate.m_mode = Mode::kinds;
    std::size_t start = 0;
    while (start <= spec.size()) {
        const std::size_t comma = std::min(spec.find(',', start), spec.size());
        const std::string kind = spec.substr(start, comma - start);
        if (!k_known_kinds.count(kind))
            throw Error(fmt::format("--fail-on {}: unknown finding kind \"{}\" (use error, warning, none, or kinds "
                                    "such as duplicate-extension-init,partial-alias)",
                                    spec, kind));
        gate.m_kinds.insert(kind);
        start = comma + 1;
    }
    return gate;
}

bool FailOn::fails(const analysis::Finding& finding) const
{
    switch (m_mode) {
    case Mode::errors:
        return finding.severity == analysis::Severity::error;
    case Mode::warnings:
        return true;
    case Mode::none:
        return false;
    case Mode::kinds:
        return m_kinds.count(finding.kind) > 0;
    }
    return false;
}

std::size_t FailOn::count(const std::vector<analysis::Finding>& findings) const
{
    return static_cast<std::size_t>(
        std::count_if(findings.begin(), findings.end(), [&](const analysis::Finding& f) { return fails(f); }));
}

} // namespace importscope::report
