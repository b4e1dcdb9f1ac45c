#include "importscope/analysis/live_tally.hpp"

#include <algorithm>
#include <variant>

namespace importscope::analysis {

void LiveTally::add(const journal::Event& e)
{
    if (std::holds_alternative<journal::ProcessStart>(e)) {
        ++m_processes;
        m_extension_events.events.push_back(e);
    } else if (std::holds_alternative<journal::ImportBegin>(e)) {
        ++m_imports;
    } else if (std::holds_alternative<journal::ExtensionLoad>(e)) {
        m_extension_events.events.push_back(e);
        m_extensions_changed = true;
    }
}

void LiveTally::update()
{
    if (!m_extensions_changed)
        return;
    m_extensions_changed = false;
    m_findings = analyze(build_model(m_extension_events));
}

void LiveTally::add(const std::vector<journal::Event>& events)
{
    for (const auto& e : events)
        add(e);
    update();
}

std::size_t LiveTally::errors() const
{
    return static_cast<std::size_t>(std::count_if(m_findings.begin(), m_findings.end(),
                                                  [](const Finding& f) { return f.severity == Severity::error; }));
}

} // namespace importscope::analysis
