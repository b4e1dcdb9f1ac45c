#pragma once

#include "importscope/analysis/live_findings.hpp"
#include "importscope/collect/file_facts.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/journal/tail.hpp"

#include <filesystem>

namespace importscope::collect {

/// The collect stage: reads a run's journals as they grow (journal::JournalTail), completes each
/// event with its files' real paths and identities (FileFacts), folds it into the model
/// (analysis::ModelBuilder) and, when someone looks at them (the status line, --stop-on-finding),
/// keeps the findings so far (analysis::LiveFindings, the final report's own analysis, run again
/// on a journal only after an event that can make a finding there). Each installation's places
/// are looked up in the analysis's distribution lookup as they come, so that the metadata beside
/// them is read while the target runs, not after it. What is left when the target ends is the
/// little the journals gained since the last poll. No Python in it: the supervisor runs it on its
/// own core while the target runs.
class Collector {
public:
    /// Whether the findings are kept as the journals grow, or left to the final analysis alone.
    enum class Findings { live, at_the_end };

    /// `analysis` as for the final analysis of the run; its distribution lookup, when it has one,
    /// should be the final analysis's too (a cache), which the collector fills as it goes.
    explicit Collector(std::filesystem::path run_dir, analysis::AnalysisOptions analysis = {},
                       Findings findings = Findings::live);

    /// Also reads the worker's journal in `shared`, which must outlive this.
    void follow(const journal::SharedJournal* shared) { m_tail.follow(shared); }

    /// Reads what the journals gained; true once an error finding exists (never with
    /// Findings::at_the_end).
    bool poll();

    /// How many bytes the journals gave so far (journal::JournalTail::bytes_read).
    std::uint64_t journal_bytes_read() const { return m_tail.bytes_read(); }

    /// The findings so far, and the counts a status line shows (none with Findings::at_the_end).
    const analysis::LiveFindings& findings() const { return m_findings; }

    /// The module records so far, in the model's order (analysis::ModelBuilder::modules_in_order);
    /// valid until the next poll.
    std::vector<const analysis::ModuleRecord*> modules_in_order() const { return m_builder.modules_in_order(); }
    /// How many events so far made or changed a module record, finish()'s included.
    std::uint64_t record_changes() const { return m_builder.record_changes(); }
    /// Whether the main process is finalizing (its atexit handlers have run).
    bool main_finalizing() const { return m_builder.main_finalizing(); }

    /// After the run: reads the rest of the journals and gives the model.
    analysis::RunModel finish();

private:
    /// Looks up the places of an installation event, for the lookup's cache.
    void look_up_distributions(const journal::Event& e) const;

    FileFacts m_files;
    analysis::ModelBuilder m_builder;
    analysis::DistributionLookup m_distribution_of;
    analysis::LiveFindings m_findings;
    bool m_live;
    journal::JournalTail m_tail;
};

} // namespace importscope::collect
