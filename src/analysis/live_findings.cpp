#include "importscope/analysis/live_findings.hpp"

#include "importscope/journal/pybind11_message.hpp"

#include <algorithm>
#include <filesystem>
#include <variant>

namespace importscope::analysis {

namespace {

std::string file_name(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

/// The import failed or warned the way a second binding of a native type does.
bool says_type_bound_twice(const journal::ImportEnd& e)
{
    if (e.error && journal::rebound_type(e.error->message))
        return true;
    return std::any_of(e.warnings.begin(), e.warnings.end(),
                       [](const std::string& w) { return journal::rebound_type(w).has_value(); });
}

} // namespace

LiveFindings::LiveFindings(AnalysisOptions options) : m_options(std::move(options))
{
    m_options.known_issues = nullptr;
}

LiveFindings::Journal& LiveFindings::journal(const std::string& name)
{
    auto [it, inserted] = m_journals.try_emplace(name);
    if (inserted)
        m_order.push_back(name);
    return it->second;
}

bool LiveFindings::can_make_a_finding(Journal& j, const journal::Event& event)
{
    if (const auto* load = std::get_if<journal::ExtensionLoad>(&event))
        // The same file, or a copy under the same package-relative path, initialized again.
        return !j.extension_names.insert(file_name(load->realpath.empty() ? load->path : load->realpath)).second;
    if (const auto* begin = std::get_if<journal::ImportBegin>(&event)) {
        ++m_imports;
        if (begin->kind != "source" && begin->kind != "bytecode")
            return false;
        if (begin->identity)
            return !j.sources.emplace(begin->identity->dev, begin->identity->ino).second;
        return !j.unidentified_sources.insert(begin->realpath.empty() ? begin->origin : begin->realpath).second;
    }
    if (const auto* end = std::get_if<journal::ImportEnd>(&event))
        return says_type_bound_twice(*end) || j.waits_on_outcomes;
    if (std::holds_alternative<journal::ProcessStart>(event)) {
        ++m_processes;
        return false;
    }
    // An installation makes a finding when another copy shadows it or a --match name has it (a
    // vendored copy loaded beside it); the others (every top-level import has one) cannot.
    if (const auto* installation = std::get_if<journal::Installation>(&event))
        return !installation->shadowed.empty() || installation->matched;
    return std::holds_alternative<journal::AliasSeen>(event) ||
           std::holds_alternative<journal::TypeOwners>(event) || std::holds_alternative<journal::NoBuild>(event) ||
           std::holds_alternative<journal::Caught>(event);
}

void LiveFindings::saw(const std::string& journal_name, const journal::Event& event)
{
    Journal& j = journal(journal_name);
    if (can_make_a_finding(j, event))
        j.changed = true;
}

void LiveFindings::update(const ModelBuilder& builder)
{
    for (auto& [name, j] : m_journals) {
        if (!j.changed)
            continue;
        j.changed = false;
        const RunModel* part = builder.part_model(name);
        if (!part)
            continue;
        j.findings = analyze(*part, m_options);
        ++m_analyses;
        // A copy is an error once both copies initialized: its severity waits on the imports' ends.
        j.waits_on_outcomes = std::any_of(j.findings.begin(), j.findings.end(), [](const Finding& f) {
            return f.kind == "duplicate-extension-copy" && f.severity != Severity::error;
        });
    }
}

std::vector<Finding> LiveFindings::findings() const
{
    std::vector<Finding> all;
    for (const std::string& name : m_order) {
        const auto& found = m_journals.at(name).findings;
        all.insert(all.end(), found.begin(), found.end());
    }
    return all;
}

std::size_t LiveFindings::errors() const
{
    std::size_t count = 0;
    for (const auto& [name, j] : m_journals)
        count += static_cast<std::size_t>(std::count_if(j.findings.begin(), j.findings.end(),
                                                        [](const Finding& f) { return f.severity == Severity::error; }));
    return count;
}

} // namespace importscope::analysis
