#pragma once

// The registry of finders: each finding kind's finder beside the journal events that can change
// what it finds. analyze() runs every finder of it; the live view (LiveFindings) analyses a journal
// again only after an event that a finder of the same registry says can change its findings; so
// the two agree by construction, and a new finder is one entry here.

#include "importscope/analysis/event_kinds.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/journal/event.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace importscope::analysis {

/// What the live view knows of an event's journal when the event comes, for a finder's screen:
/// what the event repeats of it, and the findings of its last analysis.
struct LiveContext {
    bool repeats_extension_name = false; ///< an extension init of a file name initialized before in the journal
    bool repeats_source = false;         ///< a source or bytecode module whose file ran before in the journal
    std::span<const Finding> findings;   ///< the journal's findings as last analysed
};

struct Finder {
    std::string_view kind; ///< the finding kind it makes (k_finding_kinds)
    /// The journal events that can change its findings: after none of them, its findings stand.
    EventKinds changed_by;
    /// Narrows `changed_by` for the live view, cheaply (it runs for each such event): whether this
    /// event, with `context`, can change the findings. Null: every event of `changed_by` can.
    bool (*screen)(const journal::Event& event, const LiveContext& context) = nullptr;
    /// The findings; `duplicates` are those of the registry's first finder (duplicate inits), which
    /// the others build on (empty for the first).
    std::vector<Finding> (*find)(const RunModel& model, const AnalysisOptions& options,
                                 const std::vector<Finding>& duplicates) = nullptr;

    /// Whether `event` can change this finder's findings (changed_by, then screen).
    bool changed_by_event(const journal::Event& event, const LiveContext& context) const
    {
        return changed_by.contains(event) && (!screen || screen(event, context));
    }
};

/// Every finder of a run's journals, duplicate-extension-init first.
std::span<const Finder> finders();

/// Every finder of `registry` on the model in turn (the first one's findings given to the others as
/// `duplicates`), then the environment reads of each error finding, the known issues that match
/// and the findings' order. analyze() is this with finders().
std::vector<Finding> analyze(const RunModel& model, const AnalysisOptions& options, std::span<const Finder> registry);

} // namespace importscope::analysis
