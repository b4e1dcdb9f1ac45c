#include "importscope/report/summary.hpp"

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace importscope::report {

using nlohmann::json;

namespace {

class Painter {
public:
    explicit Painter(bool color) : m_color(color) {}
    std::string operator()(const std::string& text, fmt::text_style style) const
    {
        return m_color ? fmt::format(style, "{}", text) : text;
    }

private:
    bool m_color;
};

std::string plural(std::size_t n, const char* one, const char* many)
{
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

/// "spawn workers" for "spawn worker", and so on.
std::string roles(const std::string& role, std::size_t n)
{
    if (n == 1 || role == "main")
        return role;
    if (role == "fork child")
        return "fork children";
    if (role == "subprocess")
        return "subprocesses";
    return role + "s";
}

/// The role of the process `pid` in the report, or "" (a report from before roles).
std::string role_of(const json& report, int pid)
{
    for (const json& p : report.at("processes"))
        if (p.value("pid", 0) == pid)
            return p.value("role", "");
    return {};
}

/// "6 processes (main, 4 spawn workers, resource tracker)": how many of each role, in a fixed order.
std::string processes_text(const json& report, std::size_t count)
{
    constexpr std::array k_roles = {"main",       "spawn worker",     "forkserver", "forkserver worker",
                                    "fork child", "resource tracker", "subprocess"};
    std::vector<std::string> parts;
    for (const std::string role : k_roles) {
        const auto n = static_cast<std::size_t>(std::count_if(report.at("processes").begin(), report.at("processes").end(),
                                                              [&](const json& p) { return p.value("role", "") == role; }));
        if (n > 0)
            parts.push_back(n == 1 ? role : fmt::format("{} {}", n, roles(role, n)));
    }
    const std::string total = plural(count, "process", "processes");
    return count > 1 && !parts.empty() ? fmt::format("{} ({})", total, fmt::join(parts, ", ")) : total;
}

/// "pid 11, 12: spawn workers" when they share a role, else "pid 10 main, 11 spawn worker".
std::string pids_text(const json& report, const std::vector<int>& pids)
{
    std::vector<std::string> each;
    bool one_role = true;
    for (int pid : pids) {
        const std::string role = role_of(report, pid);
        one_role = one_role && role == role_of(report, pids.front());
        each.push_back(role.empty() ? std::to_string(pid) : fmt::format("{} {}", pid, role));
    }
    const std::string role = role_of(report, pids.front());
    if (one_role)
        return role.empty() ? fmt::format("pid {}", fmt::join(pids, ", "))
                            : fmt::format("pid {}: {}", fmt::join(pids, ", "), roles(role, pids.size()));
    return fmt::format("pid {}", fmt::join(each, ", "));
}

std::string site_text(const json& load)
{
    const json& site = load.value("call_site", json());
    if (!site.is_object())
        return "call site unknown";
    return fmt::format("from {}:{}", site.value("file", "?"), site.value("line", 0));
}

std::string outcome_text(const json& load)
{
    const json& error = load.value("error", json());
    if (error.is_object())
        return fmt::format("{}: {}", error.value("type", "?"), error.value("message", ""));
    return load.value("status", "unknown");
}

/// The Python processes importscope did not see, each with why and what to do.
std::string untraced_text(const json& report, const Painter& paint)
{
    const json& untraced = report.value("untraced", json::array());
    if (untraced.empty())
        return {};
    const json& summary = report.at("summary");
    std::string out = fmt::format(
        "importscope: {}: {} of {} Python processes traced; not traced:\n",
        paint("warning", fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold),
        summary.value("processes", 0), summary.value("python_processes", 0));
    for (const json& u : untraced) {
        out += fmt::format("  pid {} started {} ({})\n", u.value("parent_pid", 0),
                           fmt::join(u.value("argv", std::vector<std::string>{}), " "), u.value("via", ""));
        out += fmt::format("    why: {}\n    fix: {}\n", u.value("reason", ""), u.value("advice", ""));
    }
    return out;
}

std::string severity_label(const json& item, const Painter& paint)
{
    const bool is_error = item.value("severity", "") == "error";
    return paint(is_error ? "error" : "warning",
                 fmt::fg(is_error ? fmt::terminal_color::red : fmt::terminal_color::yellow) | fmt::emphasis::bold);
}

/// The pids of findings[i] and of its copies in other processes (every rank of a data-parallel
/// run), which are shown once: all marked shown. Two findings of one process are two.
std::vector<int> take_copies(const json& findings, std::size_t i, std::vector<bool>& shown)
{
    const json& f = findings[i];
    std::vector<int> pids;
    for (std::size_t j = i; j < findings.size(); ++j)
        if (!shown[j] && (j == i || findings[j].value("pid", 0) != f.value("pid", 0)) &&
            findings[j].value("kind", "") == f.value("kind", "") &&
            findings[j].value("file", "") == f.value("file", "") &&
            findings[j].value("module_names", json::array()) == f.value("module_names", json::array())) {
            shown[j] = true;
            pids.push_back(findings[j].value("pid", 0));
        }
    return pids;
}

/// "settings read on the failing import path: FLASHINFER_MEGA_FUSED_STAGE=0 (flashinfer/moe.py:41),
/// VLLM_X unset (...)": the variables that may have chosen the path, from evidence.environment_read.
std::string settings_text(const json& f)
{
    const json& reads = f.at("evidence").value("environment_read", json::array());
    if (reads.empty())
        return {};
    std::vector<std::string> on_path;
    std::vector<std::string> by_package;
    for (const json& read : reads) {
        const json& value = read.value("value", json());
        (read.value("on_import_path", false) ? on_path : by_package)
            .push_back(fmt::format("{}{} ({}:{})", read.value("name", ""),
                                   value.is_string() ? "=" + value.get<std::string>() : std::string(" unset"),
                                   read.value("file", "?"), read.value("line", 0)));
    }
    std::string out;
    if (!on_path.empty())
        out += fmt::format("  settings read on the failing import path: {}\n", fmt::join(on_path, ", "));
    if (!by_package.empty())
        out += fmt::format("  settings read by the packages on that path: {}\n", fmt::join(by_package, ", "));
    return out;
}

/// "  seen at a.py:16, b.py:15": where a scan saw what makes a static finding.
std::string seen_text(const json& f)
{
    const json& seen = f.at("evidence").value("static", json::object()).value("seen", json::array());
    std::vector<std::string> places;
    for (const json& place : seen)
        places.push_back(place.value("line", 0) > 0
                             ? fmt::format("{}:{}", place.value("file", ""), place.value("line", 0))
                             : place.value("file", ""));
    return places.empty() ? std::string() : fmt::format("  seen at {}\n", fmt::join(places, ", "));
}

/// A finding whole: what, in which processes, the loads, why, the fix, the known issue.
std::string finding_text(const json& report, const json& f, const std::vector<int>& pids, const Painter& paint)
{
    std::string out = fmt::format("importscope: {}: {}: {}\n", severity_label(f, paint), f.value("kind", ""),
                                  f.value("message", ""));
    const std::size_t process_count = report.at("summary").value("processes", std::size_t{0});
    if (process_count > 1)
        out += fmt::format("  {} of {} processes initialized {} under {} names ({})\n", pids.size(), process_count,
                           f.value("file", ""), f.value("module_names", json::array()).size(), pids_text(report, pids));
    const json& inits = f.at("evidence").value("initializations", json::array());
    for (std::size_t k = 0; k < inits.size(); ++k)
        out += fmt::format("    {}. {}  {}  ({})\n", k + 1, paint(inits[k].value("module", ""), fmt::emphasis::bold),
                           outcome_text(inits[k]), site_text(inits[k]));
    out += settings_text(f);
    out += seen_text(f);
    out += fmt::format("  why: {}\n", f.value("explanation", ""));
    out += fmt::format("  fix: {}\n", f.value("advice", ""));
    if (const json& known = f.value("known_issue", json()); known.is_object()) {
        out += fmt::format("  known issue {}: {}\n", known.value("id", ""), known.value("title", ""));
        for (const json& advice : known.value("advice", json::array()))
            out += fmt::format("    - {}\n", advice.get<std::string>());
        for (const json& link : known.value("links", json::array()))
            out += fmt::format("    see {}\n", link.get<std::string>());
    }
    return out;
}

/// "6 duplicate-extension-init, 34 duplicate-source-exec": a cause's findings by kind.
std::string kinds_text(const json& findings, const std::string& id)
{
    std::map<std::string, std::size_t> counts;
    for (const json& f : findings)
        if (f.value("caused_by", "") == id)
            ++counts[f.value("kind", "")];
    std::vector<std::string> parts;
    parts.reserve(counts.size());
    for (const auto& [kind, n] : counts)
        parts.push_back(fmt::format("{} {}", n, kind));
    return fmt::format("{}", fmt::join(parts, ", "));
}

/// A root cause: what it is, where it was set, its one fix; then the findings it explains, the first
/// error whole and the others a line each (the report has them all).
std::string cause_text(const json& report, const json& cause, std::vector<bool>& shown, const Painter& paint)
{
    constexpr std::size_t k_listed = 8;
    const json& findings = report.at("findings");
    const std::string id = cause.value("id", "");
    std::string out = fmt::format("importscope: {}: root cause: {}\n", severity_label(cause, paint),
                                  cause.value("message", ""));
    out += fmt::format("  it explains {} ({}) in {}\n",
                       plural(cause.value("findings", std::size_t{0}), "finding", "findings"),
                       kinds_text(findings, id), pids_text(report, cause.value("pids", std::vector<int>{0})));
    if (const json& set = cause.at("evidence").value("set_at", json::array()); !set.empty())
        out += fmt::format("  set at {}:{}\n", set.back().value("file", "?"), set.back().value("line", 0));
    if (const json& seen = cause.at("evidence").value("first_seen_at", json::array()); !seen.empty())
        out += fmt::format("  first imported through at {}:{}\n", seen.back().value("file", "?"),
                           seen.back().value("line", 0));
    out += fmt::format("  fix: {}\n", cause.value("advice", ""));
    bool whole_shown = false;
    std::size_t listed = 0, more = 0;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        if (shown[i] || findings[i].value("caused_by", "") != id)
            continue;
        const json& f = findings[i];
        const std::vector<int> pids = take_copies(findings, i, shown);
        if (!whole_shown && f.value("severity", "") == "error") {
            out += finding_text(report, f, pids, paint);
            whole_shown = true;
        } else if (listed < k_listed) {
            out += fmt::format("  - {} {}: {}\n", severity_label(f, paint), f.value("kind", ""), f.value("message", ""));
            ++listed;
        } else {
            ++more;
        }
    }
    if (more > 0)
        out += fmt::format("  - and {} more (the report lists them: importscope report FILE)\n", more);
    return out;
}

/// A scan's first lines: what was examined, with which interpreter, how long it took.
std::string scan_header(const json& scan)
{
    const json& files = scan.at("files");
    std::string out = fmt::format(
        "importscope: scanned {} and {} ({} parsed after the text prefilter) with Python {} ({:.2f} s), nothing run\n",
        plural(files.value("sources", std::size_t{0}), "source file", "source files"),
        plural(files.value("extensions", std::size_t{0}), "extension", "extensions"), files.value("parsed", 0),
        scan.at("python").value("version", "?"), scan.value("duration_s", 0.0));
    if (const json& unparsable = scan.value("unparsable", json::array()); !unparsable.empty())
        out += fmt::format("importscope: note: {} could not be parsed (the report's problems list them)\n",
                           plural(unparsable.size(), "file", "files"));
    return out;
}

/// A run's first lines: how the target ended, the interpreter, what was recorded.
std::string run_header(const json& report)
{
    const json& run = report.at("run");
    const json& summary = report.at("summary");
    std::string out;
    out += fmt::format("importscope: target {} ({:.2f} s)\n", run.at("exit").value("description", ""),
                       run.value("duration_s", 0.0));
    if (const json& exc = run.at("exit").value("exception", json()); exc.is_object())
        out += fmt::format("importscope: uncaught {}: {}\n", exc.value("type", "?"), exc.value("message", ""));
    if (const json& python = run.value("python", json()); python.is_object() && python.value("static_build", false))
        out += fmt::format("importscope: note: {} has no shared libpython (a static build): the target ran on "
                           "importscope's build of Python {} ({}), over that interpreter's stdlib and "
                           "site-packages\n",
                           python.value("executable", ""), python.value("runtime_version", ""),
                           python.value("libpython", ""));
    out +=
        fmt::format("importscope: {}, {} recorded, {}\n", processes_text(report, summary.value("processes", 0)),
                    plural(summary.value("modules", 0), "module", "modules"),
                    plural(summary.value("extension_inits", 0), "extension init", "extension inits"));
    return out;
}

} // namespace

std::string render_summary(const json& report, bool color)
{
    const Painter paint(color);
    std::string out = report.contains("scan") ? scan_header(report.at("scan")) : run_header(report);

    // Each root cause first, with the findings it explains nested under it; then the rest.
    const json& findings = report.at("findings");
    std::vector<bool> shown(findings.size(), false);
    for (const json& cause : report.value("causes", json::array()))
        out += cause_text(report, cause, shown, paint);
    for (std::size_t i = 0; i < findings.size(); ++i)
        if (!shown[i])
            out += finding_text(report, findings[i], take_copies(findings, i, shown), paint);
    if (report.at("findings").empty())
        out += "importscope: no findings\n";
    out += untraced_text(report, paint);
    for (const json& problem : report.at("problems"))
        out += fmt::format("importscope: note: {}\n", problem.get<std::string>());
    return out;
}

} // namespace importscope::report
