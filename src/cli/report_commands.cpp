#include "cli/report_commands.hpp"

#include "importscope/report/compare.hpp"
#include "importscope/report/merge.hpp"
#include "importscope/report/gate.hpp"
#include "importscope/report/reader.hpp"
#include "importscope/report/render.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/atomic_file.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace importscope::cli {

namespace {

constexpr const char* k_status_footer = "Exit status: 0 done, 1 see the command's description, 2 bad usage or an input "
                                        "that is not an importscope report (nothing is written then).";

bool stdout_wants_color()
{
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

/// A report that passed the reader's checks can still hold a value of an unexpected type deep
/// inside what is kept as JSON (a finding's evidence, say); rendering it then fails in nlohmann.
/// That is still "not a report", said in one line.
template <typename Body>
auto with_report_errors(const std::string& name, Body&& body)
{
    try {
        return body();
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("{}: not an importscope report: {}", name, e.what()));
    }
}

} // namespace

void check_output(const std::string& output, const std::vector<std::filesystem::path>& inputs, Replaces replaces)
{
    if (!output.empty() && output != "-")
        check_writable_destination(output, inputs, replaces);
}

void emit(const std::string& output, const std::string& text)
{
    if (output.empty() || output == "-") {
        // A closed or full standard output (a pipe whose reader is gone, say) must not pass for success.
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
            throw system_error("standard output", errno);
        return;
    }
    write_file_atomically(output, text);
}

CLI::App* setup_report(CLI::App& app, ReportOptions& options)
{
    CLI::App* cmd = app.add_subcommand("report", "Render a report for a terminal, an issue, CI or Graphviz");
    cmd->add_option("FILE", options.input, "The JSON report")->required();
    cmd->add_option("--format", options.format, "text, markdown, junit, dot or sarif (for code scanning)")
        ->capture_default_str();
    cmd->add_option("-o,--output", options.output, "Write here instead of standard output")->type_name("OUT");
    cmd->footer(k_status_footer);
    return cmd;
}

CLI::App* setup_diff(CLI::App& app, DiffOptions& options)
{
    CLI::App* cmd = app.add_subcommand(
        "diff", "Compare two reports: which findings disappeared, appeared or stayed, which versions changed. "
                "Exit status 1 when NEW has a finding that --fail-on selects and OLD did not");
    cmd->add_option("OLD", options.old_report, "The report from before")->required();
    cmd->add_option("NEW", options.new_report, "The report from after")->required();
    cmd->add_option("--fail-on", options.fail_on,
                    "Which new findings fail: error, warning, none, or a comma list of kinds")
        ->capture_default_str();
    cmd->add_option("-o,--output", options.output, "Write here instead of standard output")->type_name("OUT");
    cmd->footer(k_status_footer);
    return cmd;
}

CLI::App* setup_merge(CLI::App& app, MergeOptions& options)
{
    CLI::App* cmd = app.add_subcommand("merge", "Merge the reports of several nodes or ranks into one");
    cmd->add_option("FILES", options.inputs, "The reports to merge")->required();
    cmd->add_option("-o,--output", options.output, "The merged report")->required()->type_name("ALL.json");
    cmd->footer(k_status_footer);
    return cmd;
}

int run_report(const ReportOptions& options)
{
    const report::Format format = report::parse_format(options.format);
    check_output(options.output, {options.input});
    auto document = report::read_report(options.input);
    const std::string text = with_report_errors(options.input, [&] {
        return report::render(std::move(document), format, options.output.empty() && stdout_wants_color());
    });
    emit(options.output, text);
    return static_cast<int>(ExitStatus::ok);
}

int run_diff(const DiffOptions& options)
{
    const report::FailOn gate = report::FailOn::parse(options.fail_on);
    check_output(options.output, {options.old_report, options.new_report});
    const report::Document before = report::read_report(options.old_report);
    const report::Document after = report::read_report(options.new_report);
    const report::ReportDiff diff = with_report_errors(options.old_report + " or " + options.new_report,
                                                       [&] { return report::diff_reports(before, after); });
    emit(options.output, report::render_diff(diff));
    const bool fails = std::any_of(diff.appeared.begin(), diff.appeared.end(),
                                   [&](const report::ReportedFinding& f) { return gate.fails(f); });
    return static_cast<int>(fails ? ExitStatus::new_findings : ExitStatus::ok);
}

int run_merge(const MergeOptions& options)
{
    check_output(options.output, {options.inputs.begin(), options.inputs.end()}, Replaces::report_only);
    // One report at a time: a job's thousands of rank reports are never held at once.
    report::ReportMerge merge;
    for (const auto& input : options.inputs) {
        const report::Document document = report::read_report(input);
        // Checked as `report` checks it, by the renderers that read what the reader kept as JSON: a
        // merge of a wrongly typed report would be one too.
        with_report_errors(input, [&] { return report::render(document, report::Format::markdown, false); });
        merge.add(document, input);
    }
    write_file_atomically(options.output, [&](const TextSink& sink) { merge.write(sink); });
    return static_cast<int>(ExitStatus::ok);
}

} // namespace importscope::cli
