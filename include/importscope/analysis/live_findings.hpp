#pragma once

#include "importscope/analysis/finders.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/journal/event.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace importscope::analysis {

/// The findings of a run while it goes on, for the status line and --stop-on-finding: the analysis
/// of the final report (analyze()), run again on one journal's part of the model when that journal
/// gained an event that a finder of the registry (finders.hpp) says can change its findings. Every
/// finding is about one process, so the findings of the parts are those of the whole. Each event is
/// looked at once, in constant time; a journal is analysed again at most once an update.
/// Identical extensions under different file names are found only by the final analysis.
class LiveFindings {
public:
    /// `options` as for the final analysis (its hasher may be shared with it); known issues unused.
    /// `registry`: the finders, and the events that make the view analyse again.
    explicit LiveFindings(AnalysisOptions options, std::span<const Finder> registry = finders());

    /// Looks at the next event of `journal`, before the model builder folds it.
    void saw(const std::string& journal, const journal::Event& event);

    /// Analyses again, from what `builder` folded of them, the journals marked since the last update.
    void update(const ModelBuilder& builder);

    std::size_t processes() const { return m_processes; }
    std::size_t imports() const { return m_imports; }
    /// The findings so far, journal by journal, the newest journal's last.
    std::vector<Finding> findings() const;
    std::size_t errors() const;
    /// How many times a journal was analysed again (what keeps the cost linear).
    std::size_t analyses() const { return m_analyses; }

private:
    struct Journal {
        std::set<std::string> extension_names; ///< file names of the extensions initialized
        std::set<std::pair<std::uint64_t, std::uint64_t>> sources; ///< source files run, by (st_dev, st_ino)
        std::set<std::string> unidentified_sources;                ///< those without an identity, by path
        bool changed = false;
        std::vector<Finding> findings;
    };

    Journal& journal(const std::string& name);
    bool can_make_a_finding(Journal& j, const journal::Event& event);
    static LiveContext context_of(Journal& j, const journal::Event& event);

    AnalysisOptions m_options;
    std::span<const Finder> m_finders;
    EventKinds m_changing; ///< the events some finder of m_finders names
    std::map<std::string, Journal> m_journals;
    std::vector<std::string> m_order; ///< journals in order of first appearance
    std::size_t m_processes = 0;
    std::size_t m_imports = 0;
    std::size_t m_analyses = 0;
};

} // namespace importscope::analysis
