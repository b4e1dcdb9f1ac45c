#include "importscope/report/render.hpp"

#include "importscope/report/escape.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/summary.hpp"
#include "importscope/util/error.hpp"
#include "report/markdown_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace importscope::report {

using nlohmann::json;

namespace {

std::string stack_block(const std::vector<journal::Frame>& stack, const std::string& indent = "")
{
    std::vector<std::string> lines;
    lines.reserve(stack.size());
    for (const journal::Frame& frame : stack)
        lines.push_back(fmt::format("{}:{} in {}", frame.file, frame.line, frame.function));
    return fenced(lines, indent);
}

std::string site_of(const std::optional<journal::Frame>& site)
{
    return site ? markdown_code(fmt::format("{}:{}", site->file, site->line)) : "unknown";
}

const journal::ExceptionInfo* error_of(const analysis::ExtensionInit& load)
{
    return load.error ? &*load.error : nullptr;
}

const journal::ExceptionInfo* error_of(const analysis::SourceExecution& /*execution*/)
{
    return nullptr;
}

/// The imports a finding is made of (a duplicate init's loads, a source file's executions), each
/// with how it ended, where it was made and its stack.
template <typename Load>
std::string imports_block(const std::vector<Load>& loads, int pid)
{
    if (loads.empty())
        return {};
    std::string out = "**Imports** (pid " + std::to_string(pid) + "):\n\n";
    for (std::size_t i = 0; i < loads.size(); ++i) {
        const Load& load = loads[i];
        const journal::ExceptionInfo* error = error_of(load);
        const std::string outcome =
            error ? markdown_text(fmt::format("{}: {}", error->type, error->message)) : markdown_text(load.status);
        out +=
            fmt::format("{}. {}: {}, from {}\n\n", i + 1, markdown_code(load.module), outcome, site_of(load.call_site));
        if (!load.stack.empty())
            out += "   <details><summary>import stack</summary>\n\n" + stack_block(load.stack, "   ") +
                   "\n   </details>\n\n";
    }
    return out;
}

/// Each root cause with its fix, and how many of the findings below it explains.
std::string causes_section(const std::vector<ReportedCause>& causes)
{
    if (causes.empty())
        return {};
    std::string out = "## Root causes\n\n";
    for (const ReportedCause& cause : causes)
        out += fmt::format("### {}: {}\n\n{}\n\nIt explains {} of the findings below (caused by {}).\n\n"
                           "{}",
                           analysis::to_string(cause.severity), markdown_text(cause.kind), markdown_text(cause.message),
                           cause.findings, markdown_code(cause.id), advice_markdown("**Fix.**", cause.advice));
    return out;
}

std::string finding_section(const ReportedFinding& f)
{
    std::string out = fmt::format("### {}: {}\n\n{}\n\n{}\n\n", analysis::to_string(f.severity), markdown_text(f.kind),
                                  markdown_text(f.message), markdown_prose(f.explanation));
    if (f.caused_by)
        out += fmt::format("Caused by {} (see Root causes).\n\n", markdown_code(*f.caused_by));
    if (const auto* init = std::get_if<analysis::DuplicateInitEvidence>(&f.evidence))
        out += imports_block(init->initializations, f.pid);
    else if (const auto* exec = std::get_if<analysis::DuplicateSourceExecEvidence>(&f.evidence))
        out += imports_block(exec->executions, f.pid);
    else if (const auto* conflict = std::get_if<analysis::NativeTypeConflictEvidence>(&f.evidence);
             conflict && !conflict->stack.empty())
        out += "<details><summary>import stack</summary>\n\n" + stack_block(conflict->stack) + "\n</details>\n\n";
    out += advice_markdown("**Fix:**", f.advice);
    if (const auto& known = f.known_issue) {
        const std::string id = known->links.empty()
                                   ? markdown_text(known->id)
                                   : fmt::format("[{}]({})", markdown_text(known->id), markdown_text(known->links[0]));
        out += fmt::format("**Known issue {}:** {}\n\n", id, markdown_text(known->title));
        for (const std::string& advice : known->advice)
            out += "- " + markdown_prose(advice) + "\n";
        out += "\n";
    }
    return out;
}

/// The table's rows of a scan: what was examined, with which interpreter.
std::string scan_rows(const Scan& scan)
{
    std::string out = fmt::format("| scanned | {} source files ({} parsed), {} extensions, nothing run |\n",
                                  scan.files.sources, scan.files.parsed, scan.files.extensions);
    out += fmt::format("| python | {} ({}) |\n", markdown_code(scan.python.executable, true),
                       markdown_text(scan.python.version));
    return out;
}

/// The table's rows of a run: the target, how it ended, what was recorded.
std::string run_rows(const Run& run, const Summary& summary)
{
    const ReportedTarget& target = run.target;
    std::string command = target.kind == "module"    ? "-m " + target.value
                          : target.kind == "command" ? "-c ..."
                                                     : target.value;
    for (const std::string& arg : target.args)
        command += " " + arg;

    std::string out = fmt::format("| target | {} |\n", markdown_code("python " + command, true));
    out += fmt::format("| ended | {} |\n", markdown_text(run.exit.description));
    if (const auto& exc = run.exit.exception)
        out += fmt::format("| uncaught | {} |\n", markdown_code(exc->type + ": " + exc->message, true));
    out += fmt::format("| processes | {} ({} with findings) |\n", summary.processes, summary.processes_with_findings);
    out += fmt::format("| modules recorded | {} |\n", summary.modules);
    out += fmt::format("| extension inits | {} |\n", summary.extension_inits);
    return out;
}

} // namespace

std::string render_markdown(const Document& report)
{
    std::string out = report.scan ? "# importscope scan\n\n" : "# importscope report\n\n";
    out += fmt::format("| | |\n|---|---|\n");
    out += report.scan ? scan_rows(*report.scan) : run_rows(report.run.value_or(Run{}), report.summary);
    out += fmt::format("| findings | {} errors, {} warnings |\n", report.summary.errors, report.summary.warnings);
    out += fmt::format("| importscope | {} (Python {}) |\n\n", markdown_text(report.tool.version),
                       markdown_text(report.tool.python));

    out += causes_section(report.causes);
    out += "## Findings\n\n";
    if (report.findings.empty())
        out += "No findings.\n\n";
    for (const auto& f : report.findings)
        out += finding_section(f);
    if (!report.problems.empty()) {
        out += "## Gaps in the record\n\n";
        for (const std::string& p : report.problems)
            out += "- " + markdown_text(p) + "\n";
        out += "\n";
    }
    std::vector<std::string> environment;
    const std::string dump = report.environment.dump(2);
    for (std::size_t start = 0; start <= dump.size();) {
        const std::size_t end = std::min(dump.find('\n', start), dump.size());
        environment.push_back(dump.substr(start, end - start));
        start = end + 1;
    }
    out += "<details><summary>Environment</summary>\n\n" + fenced(environment, "", "json") + "\n</details>\n";
    return out;
}

Format parse_format(const std::string& name)
{
    if (name == "text")
        return Format::text;
    if (name == "markdown")
        return Format::markdown;
    if (name == "junit")
        return Format::junit;
    if (name == "dot")
        return Format::dot;
    if (name == "sarif")
        return Format::sarif;
    throw Error(fmt::format("unknown format \"{}\": use text, markdown, junit, dot or sarif", name));
}

std::string render(Document report, Format format, bool color)
{
    // The renderers never read the module records or the frame table: they are left out of the
    // copy whose strings are escaped.
    report.modules.clear();
    report.frames.clear();
    nlohmann::json tree = report;
    escape_control_characters(tree, false, format == Format::sarif);
    report = tree.get<Document>();
    switch (format) {
    case Format::text:
        return render_summary(report, color);
    case Format::markdown:
        return render_markdown(report);
    case Format::junit:
        return render_junit(report);
    case Format::dot:
        return render_dot(report);
    case Format::sarif:
        return render_sarif(report);
    }
    return {};
}

} // namespace importscope::report
