#include "importscope/analysis/live_findings.hpp"

#include <algorithm>
#include <filesystem>
#include <variant>

namespace importscope::analysis {

namespace {

std::string file_name(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

} // namespace

LiveFindings::LiveFindings(AnalysisOptions options, std::span<const Finder> registry)
    : m_options(std::move(options)), m_finders(registry)
{
    m_options.known_issues = nullptr;
    for (const Finder& finder : m_finders)
        m_changing = m_changing | finder.changed_by;
}

LiveFindings::Journal& LiveFindings::journal(const std::string& name)
{
    auto [it, inserted] = m_journals.try_emplace(name);
    if (inserted)
        m_order.push_back(name);
    return it->second;
}

LiveContext LiveFindings::context_of(Journal& j, const journal::Event& event)
{
    LiveContext context;
    context.findings = j.findings;
    if (const auto* load = std::get_if<journal::ExtensionLoad>(&event))
        context.repeats_extension_name =
            !j.extension_names.insert(file_name(load->realpath.empty() ? load->path : load->realpath)).second;
    else if (const auto* begin = std::get_if<journal::ImportBegin>(&event);
             begin && (begin->kind == "source" || begin->kind == "bytecode"))
        context.repeats_source =
            begin->identity
                ? !j.sources.emplace(begin->identity->dev, begin->identity->ino).second
                : !j.unidentified_sources.insert(begin->realpath.empty() ? begin->origin : begin->realpath).second;
    return context;
}

bool LiveFindings::can_make_a_finding(Journal& j, const journal::Event& event)
{
    if (std::holds_alternative<journal::ImportBegin>(event))
        ++m_imports;
    else if (std::holds_alternative<journal::ProcessStart>(event))
        ++m_processes;
    if (!m_changing.contains(event))
        return false;
    const LiveContext context = context_of(j, event);
    return std::any_of(m_finders.begin(), m_finders.end(),
                       [&](const Finder& finder) { return finder.changed_by_event(event, context); });
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
        j.findings = analyze(*part, m_options, m_finders);
        ++m_analyses;
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
