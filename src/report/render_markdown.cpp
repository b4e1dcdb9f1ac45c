#include "importscope/report/render.hpp"

#include "importscope/report/redact_paths.hpp"
#include "importscope/report/summary.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace importscope::report {

using nlohmann::json;

namespace {

/// Text inside `code` spans: backticks would end the span.
std::string code(const std::string& text)
{
    std::string out = text;
    for (auto& c : out)
        if (c == '`')
            c = '\'';
    return "`" + out + "`";
}

std::string stack_block(const json& stack)
{
    std::string out = "```\n";
    for (const json& frame : stack)
        out += fmt::format("{}:{} in {}\n", frame.value("file", "?"), frame.value("line", 0),
                           frame.value("function", "?"));
    return out + "```\n";
}

std::string site_of(const json& load)
{
    const json& site = load.value("call_site", json());
    return site.is_object() ? code(fmt::format("{}:{}", site.value("file", "?"), site.value("line", 0))) : "unknown";
}

/// Each root cause with its fix, and how many of the findings below it explains.
std::string causes_section(const json& report)
{
    const json& causes = report.value("causes", json::array());
    if (causes.empty())
        return {};
    std::string out = "## Root causes\n\n";
    for (const json& cause : causes)
        out += fmt::format("### {}: {}\n\n{}\n\nIt explains {} of the findings below (caused by {}).\n\n"
                           "**Fix.** {}\n\n",
                           cause.value("severity", ""), cause.value("kind", ""), cause.value("message", ""),
                           cause.value("findings", 0), code(cause.value("id", "")),
                           cause.value("advice", ""));
    return out;
}

std::string finding_section(const json& f)
{
    std::string out = fmt::format("### {}: {}\n\n{}\n\n{}\n\n", f.value("severity", ""), f.value("kind", ""),
                                  f.value("message", ""), f.value("explanation", ""));
    if (f.contains("caused_by"))
        out += fmt::format("Caused by {} (see Root causes).\n\n", code(f.value("caused_by", "")));
    const json& evidence = f.value("evidence", json::object());
    const json& loads = evidence.contains("initializations") ? evidence.at("initializations")
                        : evidence.contains("executions")    ? evidence.at("executions")
                                                             : json::array();
    if (!loads.empty()) {
        out += "**Imports** (pid " + std::to_string(f.value("pid", 0)) + "):\n\n";
        for (std::size_t i = 0; i < loads.size(); ++i) {
            const json& load = loads[i];
            const json& error = load.value("error", json());
            const std::string outcome = error.is_object()
                                            ? fmt::format("{}: {}", error.value("type", ""), error.value("message", ""))
                                            : load.value("status", "");
            out +=
                fmt::format("{}. {}: {}, from {}\n\n", i + 1, code(load.value("module", "")), outcome, site_of(load));
            if (load.contains("stack") && !load.at("stack").empty())
                out += "   <details><summary>import stack</summary>\n\n" + stack_block(load.at("stack")) +
                       "\n   </details>\n\n";
        }
    } else if (evidence.contains("stack") && !evidence.at("stack").empty()) {
        out += "<details><summary>import stack</summary>\n\n" + stack_block(evidence.at("stack")) + "\n</details>\n\n";
    }
    out += "**Fix:** " + f.value("advice", "") + "\n\n";
    if (const json& known = f.value("known_issue", json()); known.is_object()) {
        const json& links = known.value("links", json::array());
        const std::string id = links.empty()
                                   ? known.value("id", "")
                                   : fmt::format("[{}]({})", known.value("id", ""), links[0].get<std::string>());
        out += fmt::format("**Known issue {}:** {}\n\n", id, known.value("title", ""));
        for (const json& advice : known.value("advice", json::array()))
            out += "- " + advice.get<std::string>() + "\n";
        out += "\n";
    }
    return out;
}

/// The table's rows of a scan: what was examined, with which interpreter.
std::string scan_rows(const json& scan)
{
    const json& files = scan.at("files");
    std::string out = fmt::format("| scanned | {} source files ({} parsed), {} extensions, nothing run |\n",
                                  files.value("sources", 0), files.value("parsed", 0), files.value("extensions", 0));
    out += fmt::format("| python | {} ({}) |\n", code(scan.at("python").value("executable", "")),
                       scan.at("python").value("version", ""));
    return out;
}

/// The table's rows of a run: the target, how it ended, what was recorded.
std::string run_rows(const json& report)
{
    const json& run = report.at("run");
    const json& summary = report.at("summary");
    const json& target = run.at("target");
    std::string command = target.value("kind", "") == "module"    ? "-m " + target.value("value", "")
                          : target.value("kind", "") == "command" ? "-c ..."
                                                                  : target.value("value", "");
    for (const json& arg : target.value("args", json::array()))
        command += " " + arg.get<std::string>();

    std::string out = fmt::format("| target | {} |\n", code("python " + command));
    out += fmt::format("| ended | {} |\n", run.at("exit").value("description", ""));
    if (const json& exc = run.at("exit").value("exception", json()); exc.is_object())
        out += fmt::format("| uncaught | {} |\n", code(exc.value("type", "") + ": " + exc.value("message", "")));
    out += fmt::format("| processes | {} ({} with findings) |\n", summary.value("processes", 0),
                       summary.value("processes_with_findings", 0));
    out += fmt::format("| modules recorded | {} |\n", summary.value("modules", 0));
    out += fmt::format("| extension inits | {} |\n", summary.value("extension_inits", 0));
    return out;
}

} // namespace

std::string render_markdown(const json& report)
{
    const json& summary = report.at("summary");
    std::string out = report.contains("scan") ? "# importscope scan\n\n" : "# importscope report\n\n";
    out += fmt::format("| | |\n|---|---|\n");
    out += report.contains("scan") ? scan_rows(report.at("scan")) : run_rows(report);
    out += fmt::format("| findings | {} errors, {} warnings |\n", summary.value("errors", 0),
                       summary.value("warnings", 0));
    out += fmt::format("| importscope | {} (Python {}) |\n\n", report.at("tool").value("version", ""),
                       report.at("tool").value("python", ""));

    out += causes_section(report);
    out += "## Findings\n\n";
    if (report.at("findings").empty())
        out += "No findings.\n\n";
    for (const json& f : report.at("findings"))
        out += finding_section(f);
    if (!report.at("problems").empty()) {
        out += "## Gaps in the record\n\n";
        for (const json& p : report.at("problems"))
            out += "- " + p.get<std::string>() + "\n";
        out += "\n";
    }
    out += "<details><summary>Environment</summary>\n\n```json\n" + report.value("environment", json()).dump(2) +
           "\n```\n\n</details>\n";
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
    throw Error(fmt::format("unknown format \"{}\": use text, markdown, junit or dot", name));
}

std::string render(json report, Format format, bool color)
{
    escape_control_characters(report);
    switch (format) {
    case Format::text:
        return render_summary(report, color);
    case Format::markdown:
        return render_markdown(report);
    case Format::junit:
        return render_junit(report);
    case Format::dot:
        return render_dot(report);
    }
    return {};
}

} // namespace importscope::report
