#include "importscope/app/report_commands.hpp"

#include "importscope/report/compare.hpp"
#include "importscope/report/merge.hpp"
#include "importscope/report/gate.hpp"
#include "importscope/report/reader.hpp"
#include "importscope/report/render.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/atomic_file.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace importscope::app {

namespace {

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
        write_to_stdout(text);
        flush_stdout();
        return;
    }
    write_file_atomically(output, text);
}

int render_report_file(const ReportOptions& options)
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

int diff_report_files(const DiffOptions& options)
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

int merge_report_files(const MergeOptions& options)
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

} // namespace importscope::app
