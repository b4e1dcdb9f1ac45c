#include "cli/run_stages.hpp"

#include "importscope/util/atomic_file.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <unistd.h>

namespace importscope::cli {

nlohmann::json make_report(const RunRequest& request, const report::RunInfo& info, const analysis::RunModel& model,
                           const std::vector<analysis::Finding>& findings, const std::vector<std::string>& failures,
                           report::Outcome& outcome)
{
    // The module records go from the model straight into the file's text (report_writer.cpp).
    nlohmann::json report_json = report::build_report(info, model, findings);
    outcome = report::decide_outcome(
        {failures, request.gate.count(findings), info.exit, request.options.ignore_target_status});
    report_json["run"]["outcome"] = outcome;
    report::redact_secrets(report_json);
    if (request.redaction)
        report::redact_paths(report_json, *request.redaction);
    return report_json;
}

void write_report_file(const std::string& output, const nlohmann::json& report_json, const analysis::RunModel& model,
                       const report::PathRedaction* redact, supervisor::RunDir& run_dir,
                       const journal::SharedJournal* shared)
{
    try {
        write_file_atomically(output,
                              [&](const TextSink& sink) { report::write_report(report_json, model, redact, sink); });
    } catch (const Error& e) {
        run_dir.keep();
        if (shared && !shared->name().empty()) // into the empty file that holds its name
            try {
                write_file_atomically(run_dir.path() / shared->name(), shared->written(journal::SharedJournal::k_header));
            } catch (const Error&) {
            }
        throw Error(fmt::format("{} (the journals are kept in {})", e.what(), run_dir.path().string()),
                    ExitStatus::tool_failure);
    }
}

void print_outcome(const RunRequest& request, const nlohmann::json& report_json, const report::Outcome& outcome)
{
    const RunOptions& options = request.options;
    // The summary is rendered from the report as written, read back as `importscope report` reads it.
    if (!options.quiet || !report_json.at("findings").empty())
        print_to_stderr(
            report::render(report_json.get<report::Document>(), request.summary_format, stderr_wants_color()));
    if (!options.quiet)
        print_to_stderr(fmt::format("importscope: report written to {}\n", options.output));
    if (outcome.reason == "tool-failure")
        print_to_stderr(fmt::format("importscope: error: {}\n", outcome.message));
    else if (outcome.status != 0 && outcome.reason != "findings" && !options.quiet)
        // A CI log says at its end why the step failed when importscope found nothing.
        print_to_stderr(fmt::format("importscope: exit status {}: {}\n", outcome.status, outcome.message));
}

} // namespace importscope::cli
