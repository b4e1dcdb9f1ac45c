#include "importscope/collect/collector.hpp"

#include <variant>

namespace importscope::collect {

Collector::Collector(std::filesystem::path run_dir, analysis::AnalysisOptions analysis, Findings findings)
    : m_distribution_of(analysis.distribution_of), m_findings(std::move(analysis)), m_live(findings == Findings::live),
      m_tail(
          std::move(run_dir),
          [this](const std::string& journal, journal::Event&& e, const journal::FrameTable& frames) {
              m_files.complete(e);
              look_up_distributions(e);
              if (m_live)
                  m_findings.saw(journal, e);
              m_builder.add(journal, std::move(e), &frames);
          },
          journal::KnownFrames::by_number) // the model shares the table's frames
{
}

void Collector::look_up_distributions(const journal::Event& e) const
{
    const auto* installation = std::get_if<journal::Installation>(&e);
    if (!installation || !m_distribution_of)
        return;
    if (!installation->origin.empty())
        (void)m_distribution_of(installation->origin);
    for (const std::string& origin : installation->shadowed)
        (void)m_distribution_of(origin);
}

bool Collector::poll()
{
    m_tail.poll();
    if (!m_live)
        return false;
    m_findings.update(m_builder);
    return m_findings.errors() > 0;
}

analysis::RunModel Collector::finish()
{
    return m_builder.finish(m_tail.finish());
}

} // namespace importscope::collect
