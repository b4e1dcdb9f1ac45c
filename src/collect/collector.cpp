#include "importscope/collect/collector.hpp"

namespace importscope::collect {

Collector::Collector(std::filesystem::path run_dir, analysis::AnalysisOptions analysis)
    : m_findings(std::move(analysis)),
      m_tail(std::move(run_dir),
             [this](const std::string& journal, journal::Event&& e) {
                 m_files.complete(e);
                 m_findings.saw(journal, e);
                 m_builder.add(journal, std::move(e));
             })
{
}

bool Collector::poll()
{
    m_tail.poll();
    m_findings.update(m_builder);
    return m_findings.errors() > 0;
}

analysis::RunModel Collector::finish()
{
    return m_builder.finish(m_tail.finish());
}

} // namespace importscope::collect
