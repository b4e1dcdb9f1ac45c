#include "importscope/app/run_stages.hpp"

#include "importscope/journal/record_format.hpp"

#include "importscope/util/atomic_file.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

namespace importscope::app {

report::Document make_report(const RunRequest& request, const report::RunInfo& info, const analysis::RunModel& model,
                             const analysis::Conclusions& conclusions, const std::vector<std::string>& failures,
                             bool not_executed, report::Outcome& outcome)
{
    // The module records go from the model straight into the file's text (report_writer.cpp).
    report::Document report = report::build_report(info, model, conclusions);
    outcome = report::decide_outcome(
        {failures, request.gate.count(conclusions.findings), info.exit, info.stop, request.options.ignore_target_status,
         not_executed});
    report.run->outcome = outcome;
    // Once, here: the file and the summary on stderr say the same.
    report::redact(report, request.redact());
    return report;
}

EarlyReport::EarlyReport(const std::string& output, const report::PathRedaction* redact,
                         const collect::Collector& collector, std::optional<FileSnapshot> before)
    : m_output(output), m_redact(redact), m_before(before), m_collector(collector)
{
}

void EarlyReport::offer() noexcept
{
    if (m_tried || !m_collector.main_finalizing())
        return;
    m_tried = true;
    try {
        const Destination destination = inspect_destination(m_output);
        if (destination.descriptor >= 0 || destination.write_through)
            return; // written into as it goes: it could not be taken back
        const std::vector<const analysis::ModuleRecord*> records = m_collector.modules_in_order();
        m_record_changes = m_collector.record_changes();
        m_places = places_of(records);
        m_file = std::make_unique<ReplacingFile>(destination.path);
        m_writer = std::make_unique<report::ReportWriter>(m_file->sink(), m_redact);
        m_writer->write_records(records);
    } catch (...) {
        drop();
    }
}

std::vector<EarlyReport::Place> EarlyReport::places_of(const std::vector<const analysis::ModuleRecord*>& records)
{
    std::vector<Place> places;
    places.reserve(records.size());
    std::size_t journal = 0;
    for (const analysis::ModuleRecord* r : records) {
        if (m_journals.empty() || m_journals[journal] != r->journal) { // mostly the record before's
            journal = static_cast<std::size_t>(std::find(m_journals.begin(), m_journals.end(), r->journal) -
                                               m_journals.begin());
            if (journal == m_journals.size())
                m_journals.push_back(r->journal);
        }
        places.push_back({journal, r->pid, r->order});
    }
    return places;
}

bool EarlyReport::holds(const analysis::RunModel& model) const
{
    // A failed write (a full disk) is tried again from the start, where its failure is told.
    if (!m_writer || !m_file->written() || m_collector.record_changes() != m_record_changes ||
        model.modules.size() != m_places.size())
        return false;
    for (std::size_t i = 0; i < m_places.size(); ++i) {
        const analysis::ModuleRecord& r = model.modules[i];
        const Place& place = m_places[i];
        if (r.pid != place.pid || r.order != place.order || r.journal != m_journals[place.journal])
            return false;
    }
    return true;
}

std::filesystem::path EarlyReport::finish(const report::Document& report)
{
    m_writer->write_rest(report);
    if (!m_before) {
        m_file->commit();
        return m_output;
    }
    const std::filesystem::path written = m_file->commit_unless_replaced(*m_before);
    return written == inspect_destination(m_output).path ? std::filesystem::path(m_output) : written;
}

void EarlyReport::drop()
{
    m_writer.reset();
    m_file.reset();
}

std::filesystem::path write_report_file(const std::string& output, const report::Document& report,
                                        const analysis::RunModel& model, const report::PathRedaction* redact,
                                        supervisor::RunDir& run_dir, const journal::SharedJournal* shared,
                                        EarlyReport* early, double reader_wait_s,
                                        const std::optional<FileSnapshot>& before)
{
    const auto produce = [&](const TextSink& sink) { report::write_report(report, model, redact, sink); };
    try {
        if (early && early->holds(model))
            return early->finish(report);
        if (early)
            early->drop();
        return write_file_beside_others(output, produce, reader_wait_s, before);
    } catch (const Error& e) {
        run_dir.keep();
        if (shared && !shared->name().empty()) // into the empty file that holds its name
            try {
                write_file_atomically(run_dir.path() / shared->name(),
                                      journal::journal_file_of(shared->records(journal::SharedJournal::k_header)));
            } catch (const Error&) {
            }
        const std::filesystem::path kept = run_dir.path() / "report.json";
        try {
            write_file_atomically(kept, produce);
        } catch (const Error&) {
            throw Error(fmt::format("{} (the journals are kept in {})", e.what(), run_dir.path().string()),
                        ExitStatus::tool_failure);
        }
        throw Error(fmt::format("{} (the journals are kept in {}, and the report as {})", e.what(),
                                run_dir.path().string(), kept.string()),
                    ExitStatus::tool_failure);
    }
}

void print_outcome(const RunRequest& request, const report::Document& report, const report::Outcome& outcome,
                   const std::filesystem::path& written)
{
    const RunOptions& options = request.options;
    // The summary is rendered from the report as written (its records aside), redacted as it is.
    if (!options.quiet || !report.findings.empty())
        print_to_stderr(report::render(report, request.summary_format, stderr_wants_color()));
    if (written != std::filesystem::path(options.output))
        print_to_stderr(fmt::format("importscope: warning: {} was written by another process while this run went on "
                                    "(two runs given the same -o?); this run's report is {} (placeholders such as "
                                    "-o 'report-{{host}}-{{rank}}.json' give each run its own)\n",
                                    options.output, written.string()));
    else if (!options.quiet)
        print_to_stderr(fmt::format("importscope: report written to {}\n", options.output));
    if (outcome.reason == "tool-failure")
        print_to_stderr(fmt::format("importscope: error: {}\n", outcome.message));
    else if (outcome.status != 0 && outcome.reason != "findings" && !options.quiet)
        // A CI log says at its end why the step failed when importscope found nothing.
        print_to_stderr(fmt::format("importscope: exit status {}: {}\n", outcome.status, outcome.message));
}

} // namespace importscope::app
