#pragma once

// What the journal fuzz targets check once a journal is read: the model, the analysis and the
// report made of whatever it held. No input may crash them or throw.

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/report/report.hpp"

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace importscope::fuzz {

inline void check_journal(const journal::JournalContents& contents)
{
    // As the supervisor reads a run: each event folded as it comes (for a journal importscope
    // wrote, what the batch fold gives: test_live_model.cpp; for any other, still a model).
    journal::JournalContents live = contents;
    analysis::ModelBuilder builder;
    for (auto& e : live.events)
        builder.add(live.source, std::move(e));
    live.events.clear();
    std::vector<journal::JournalContents> rest;
    rest.push_back(std::move(live));
    const analysis::RunModel followed = builder.finish(std::move(rest));

    const auto model = analysis::build_model(contents);
    analysis::AnalysisOptions options;
    options.hash_file = [](const std::string& path) { return std::optional<std::string>(path.substr(0, 3)); };
    const auto findings = analysis::analyze(model, options);
    report::RunInfo run;
    run.main_pid = 1;
    // The report is JSON whatever the journal held, and merge's writer lays it out as run's does.
    for (const analysis::RunModel* m : {&model, &followed}) {
        const std::string text = report::report_text(report::build_report(run, *m, analysis::conclude(*m, findings)), *m);
        if (!nlohmann::json::accept(text) || report::pretty_text(nlohmann::json::parse(text)) != text)
            std::abort();
    }
}

} // namespace importscope::fuzz
