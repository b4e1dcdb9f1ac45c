#include "importscope/report/summary.hpp"

#include "importscope/report/compare.hpp"
#include "importscope/report/escape.hpp"

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
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
std::string role_of(const Document& report, int pid)
{
    for (const ReportedProcess& p : report.processes)
        if (p.pid == pid)
            return p.role.value_or("");
    return {};
}

/// "6 processes (main, 4 spawn workers, resource tracker)": how many of each role, in a fixed order.
std::string processes_text(const Document& report, std::size_t count)
{
    constexpr std::array k_roles = {"main",       "spawn worker",     "forkserver", "forkserver worker",
                                    "fork child", "resource tracker", "subprocess"};
    // Each process by its first image's role; a later image is Python exec'd again in it.
    std::set<std::pair<std::string, int>> seen;
    std::vector<const ReportedProcess*> firsts;
    for (const ReportedProcess& p : report.processes)
        if (seen.insert({p.host.value_or(""), p.pid}).second)
            firsts.push_back(&p);
    std::vector<std::string> parts;
    for (const std::string role : k_roles) {
        const auto n = static_cast<std::size_t>(
            std::count_if(firsts.begin(), firsts.end(), [&](const ReportedProcess* p) { return p->role == role; }));
        if (n > 0)
            parts.push_back(n == 1 ? role : fmt::format("{} {}", n, roles(role, n)));
    }
    const std::size_t execs = report.processes.size() - firsts.size();
    const std::string exec_text = execs > 0 ? fmt::format("; {} exec'd Python again", execs) : "";
    const std::string total = plural(count, "process", "processes");
    return count > 1 && !parts.empty() ? fmt::format("{} ({}{})", total, fmt::join(parts, ", "), exec_text) : total;
}

/// "pid 11, 12: spawn workers" when they share a role, else "pid 10 main, 11 spawn worker".
std::string pids_text(const Document& report, const std::vector<int>& pids)
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

std::string site_text(const analysis::ExtensionInit& load)
{
    if (!load.call_site)
        return "call site unknown";
    return fmt::format("from {}:{}", load.call_site->file, load.call_site->line);
}

std::string outcome_text(const analysis::ExtensionInit& load)
{
    if (load.error)
        return fmt::format("{}: {}", load.error->type, load.error->message);
    return load.status;
}

/// The Python processes importscope did not see, each with why and what to do.
std::string untraced_text(const Document& report, const Painter& paint)
{
    if (report.untraced.empty())
        return {};
    std::string out = fmt::format("importscope: {}: {} of {} Python processes traced; not traced:\n",
                                  paint("warning", fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold),
                                  report.summary.processes, report.summary.python_processes);
    for (const auto& u : report.untraced) {
        out += fmt::format("  pid {} started {} ({})\n", u.parent_pid, fmt::join(u.argv, " "), u.via);
        out += fmt::format("    why: {}\n    fix: {}\n", u.reason, u.advice);
    }
    return out;
}

/// "a.py:3" or "a.py:3, or b.py:9": the places of a list of frames.
std::string places_text(const std::vector<journal::Frame>& frames)
{
    std::vector<std::string> places;
    places.reserve(frames.size());
    for (const journal::Frame& frame : frames)
        places.push_back(fmt::format("{}:{}", frame.file, frame.line));
    return fmt::format("{}", fmt::join(places, ", or "));
}

std::string severity_label(analysis::Severity severity, const Painter& paint)
{
    const bool is_error = severity == analysis::Severity::error;
    return paint(is_error ? "error" : "warning",
                 fmt::fg(is_error ? fmt::terminal_color::red : fmt::terminal_color::yellow) | fmt::emphasis::bold);
}

/// The pids of findings[i] and of its copies in other processes (every rank of a data-parallel
/// run), which are shown once: all marked shown. Two findings of one process are two.
std::vector<int> take_copies(const std::vector<ReportedFinding>& findings, std::size_t i, std::vector<bool>& shown)
{
    const ReportedFinding& f = findings[i];
    std::vector<int> pids;
    for (std::size_t j = i; j < findings.size(); ++j)
        if (!shown[j] && (j == i || findings[j].pid != f.pid) && findings[j].kind == f.kind &&
            findings[j].file == f.file && findings[j].module_names == f.module_names) {
            shown[j] = true;
            pids.push_back(findings[j].pid);
        }
    return pids;
}

/// "settings read on the failing import path: FLASHINFER_MEGA_FUSED_STAGE=0 (flashinfer/moe.py:41),
/// VLLM_X unset (...)": the variables that may have chosen the path, from evidence.environment_read.
std::string settings_text(const ReportedFinding& f)
{
    const std::vector<analysis::EnvironmentReadEvidence> reads = analysis::environment_read_of(f.evidence);
    if (reads.empty())
        return {};
    std::vector<std::string> on_path;
    std::vector<std::string> by_package;
    for (const analysis::EnvironmentReadEvidence& read : reads)
        (read.on_import_path ? on_path : by_package)
            .push_back(fmt::format("{}{} ({}:{})", read.name, read.value ? "=" + *read.value : std::string(" unset"),
                                   read.file, read.line));
    std::string out;
    if (!on_path.empty())
        out += fmt::format("  settings read on the failing import path: {}\n", fmt::join(on_path, ", "));
    if (!by_package.empty())
        out += fmt::format("  settings read by the packages on that path: {}\n", fmt::join(by_package, ", "));
    return out;
}

/// "  seen at a.py:16, b.py:15": where a scan saw what makes a static finding.
std::string seen_text(const ReportedFinding& f)
{
    std::vector<std::string> places;
    for (const analysis::SourcePlace& place : analysis::static_seen_of(f.evidence))
        places.push_back(place.line > 0 ? fmt::format("{}:{}", place.file, place.line) : place.file);
    return places.empty() ? std::string() : fmt::format("  seen at {}\n", fmt::join(places, ", "));
}

/// A merged report's finding as the runs share it (across_runs), or null.
const SharedFinding* shared_of(const Document& report, const ReportedFinding& f)
{
    if (!report.across_runs)
        return nullptr;
    const std::string key = finding_key(f);
    for (const SharedFinding& shared : report.across_runs->findings)
        if (shared.key == key)
            return &shared;
    return nullptr;
}

/// "in 31 of 32 runs (ranks 0-6,8-31) on 4 hosts (a1, a2, a3, a4)": where a merged report's
/// finding was found.
std::string runs_text(const AcrossRuns& across, const SharedFinding& shared)
{
    constexpr std::size_t k_named_hosts = 4;
    const std::string ranks = shared.ranks ? fmt::format(" (ranks {})", *shared.ranks) : "";
    std::string hosts = fmt::format("{}", fmt::join(shared.hosts.begin(),
                                                     shared.hosts.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                                shared.hosts.size(), k_named_hosts)),
                                                     ", "));
    if (shared.hosts.size() > k_named_hosts)
        hosts += fmt::format(", ... {}", shared.hosts.back());
    return fmt::format("in {} of {} runs{} on {} ({})", shared.runs, across.runs, ranks,
                       plural(shared.hosts.size(), "host", "hosts"), hosts);
}

/// A merged report's first lines: the runs, and each finding once with the runs that found it and
/// those that found nothing.
std::string across_runs_text(const Document& report, const AcrossRuns& across, const Painter& paint)
{
    constexpr std::size_t k_named_clean = 8;
    std::string out = fmt::format("importscope: merged {} on {}{}\n", plural(across.runs, "run", "runs"),
                                  plural(across.hosts, "host", "hosts"),
                                  across.ranks ? fmt::format(" (ranks {})", *across.ranks) : "");
    for (const SharedFinding& shared : across.findings)
        out += fmt::format("importscope: {}: {} {}\n", severity_label(shared.severity, paint), shared.kind,
                           runs_text(across, shared));
    if (across.clean.empty() || across.findings.empty())
        return out;
    std::vector<std::string> clean;
    const auto& runs = report.run ? report.run->merged_from.value_or(std::vector<MergedRun>{}) : std::vector<MergedRun>{};
    for (std::size_t index : across.clean) {
        if (clean.size() == k_named_clean || index >= runs.size())
            break;
        const MergedRun& run = runs[index];
        std::string rank;
        if (run.job && run.job->rank)
            rank = fmt::format("rank {} on ", *run.job->rank);
        clean.push_back(fmt::format("{}{}{}", rank, run.host, run.source ? fmt::format(" ({})", *run.source) : ""));
    }
    const std::size_t more = across.clean.size() - clean.size();
    out += fmt::format("importscope: clean: {}: {}{}\n", plural(across.clean.size(), "run", "runs"),
                       fmt::join(clean, ", "), more > 0 ? fmt::format(" and {} more", more) : "");
    return out;
}

/// A known issue's lines: its id and title, its advice, its links.
std::string known_issue_text(const analysis::KnownIssue& known)
{
    std::string out = fmt::format("  known issue {}: {}\n", known.id, known.title);
    for (const std::string& advice : known.advice)
        out += fmt::format("    - {}\n", advice);
    for (const std::string& link : known.links)
        out += fmt::format("    see {}\n", link);
    return out;
}

/// A finding whole: what, in which processes, the loads, why, the fix, the known issue (unless
/// `known_shown`: its cause's lines gave it).
std::string finding_text(const Document& report, const ReportedFinding& f, const std::vector<int>& pids,
                         const Painter& paint, bool known_shown = false)
{
    std::string out = fmt::format("importscope: {}: {}: {}\n", severity_label(f.severity, paint), f.kind, f.message);
    const std::size_t process_count = report.summary.processes;
    if (const SharedFinding* shared = shared_of(report, f))
        out += fmt::format("  {}\n", runs_text(*report.across_runs, *shared));
    else if (process_count > 1)
        out += fmt::format("  {} of {} processes initialized {} under {} names ({})\n", pids.size(), process_count,
                           f.file, f.module_names.size(), pids_text(report, pids));
    if (const auto* init = std::get_if<analysis::DuplicateInitEvidence>(&f.evidence))
        for (std::size_t k = 0; k < init->initializations.size(); ++k) {
            const analysis::ExtensionInit& load = init->initializations[k];
            out += fmt::format("    {}. {}  {}  ({})\n", k + 1, paint(load.module, fmt::emphasis::bold),
                               outcome_text(load), site_text(load));
        }
    out += settings_text(f);
    out += seen_text(f);
    out += fmt::format("  why: {}\n", f.explanation);
    out += fmt::format("  fix: {}\n", terminal_lines(f.advice, "  "));
    if (f.known_issue && !known_shown)
        out += known_issue_text(*f.known_issue);
    return out;
}

/// The known issues that the findings of cause `id` match, each once, in the findings' order: a
/// cause of warnings alone shows none of them whole, and a known issue's advice (upgrade the
/// package that does it) is what its user can act on.
std::vector<const analysis::KnownIssue*> known_issues_of(const std::vector<ReportedFinding>& findings,
                                                         const std::string& id)
{
    std::vector<const analysis::KnownIssue*> known;
    for (const ReportedFinding& f : findings)
        if (f.caused_by == id && f.known_issue &&
            std::none_of(known.begin(), known.end(), [&](const auto* k) { return k->id == f.known_issue->id; }))
            known.push_back(&*f.known_issue);
    return known;
}

/// "6 duplicate-extension-init, 34 duplicate-source-exec": a cause's findings by kind.
std::string kinds_text(const std::vector<ReportedFinding>& findings, const std::string& id)
{
    std::map<std::string, std::size_t> counts;
    for (const auto& f : findings)
        if (f.caused_by == id)
            ++counts[f.kind];
    std::vector<std::string> parts;
    parts.reserve(counts.size());
    for (const auto& [kind, n] : counts)
        parts.push_back(fmt::format("{} {}", n, kind));
    return fmt::format("{}", fmt::join(parts, ", "));
}

/// A root cause: what it is, where it was set, its one fix; then the findings it explains, the first
/// error whole and the others a line each (the report has them all).
std::string cause_text(const Document& report, const ReportedCause& cause, std::vector<bool>& shown, const Painter& paint)
{
    constexpr std::size_t k_listed = 8;
    const auto& findings = report.findings;
    const std::string& id = cause.id;
    std::string out =
        fmt::format("importscope: {}: root cause: {}\n", severity_label(cause.severity, paint), cause.message);
    out +=
        fmt::format("  it explains {} ({}) in {}\n", plural(cause.findings, "finding", "findings"),
                    kinds_text(findings, id), pids_text(report, cause.pids.empty() ? std::vector<int>{0} : cause.pids));
    if (const auto* alias = std::get_if<analysis::AliasCause>(&cause.evidence)) {
        if (alias->set_at && !alias->set_at->empty())
            out += fmt::format("  set at {}:{}\n", alias->set_at->back().file, alias->set_at->back().line);
        else if (alias->set_in_code && !alias->set_in_code->empty())
            out += fmt::format("  set at {} ({} in the code: this CPython tells no program of stores into "
                               "sys.modules)\n",
                               places_text(*alias->set_in_code),
                               alias->set_in_code->size() == 1 ? "the line found" : "one of the lines found");
        if (!alias->first_seen_at.empty())
            out += fmt::format("  first used by an import at {}:{}\n", alias->first_seen_at.back().file,
                               alias->first_seen_at.back().line);
    }
    out += fmt::format("  fix: {}\n", terminal_lines(cause.advice, "  "));
    for (const analysis::KnownIssue* known : known_issues_of(findings, id))
        out += known_issue_text(*known);
    bool whole_shown = false;
    std::size_t listed = 0, more = 0;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        if (shown[i] || findings[i].caused_by != id)
            continue;
        const ReportedFinding& f = findings[i];
        const std::vector<int> pids = take_copies(findings, i, shown);
        if (!whole_shown && f.severity == analysis::Severity::error) {
            out += finding_text(report, f, pids, paint, f.known_issue.has_value());
            whole_shown = true;
        } else if (listed < k_listed) {
            out += fmt::format("  - {} {}: {}\n", severity_label(f.severity, paint), f.kind, f.message);
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
std::string scan_header(const Scan& scan)
{
    std::string out = fmt::format(
        "importscope: scanned {} and {} ({} parsed after the text prefilter) with Python {} ({:.2f} s), nothing run\n",
        plural(scan.files.sources, "source file", "source files"),
        plural(scan.files.extensions, "extension", "extensions"), scan.files.parsed, scan.python.version,
        scan.duration_s);
    if (!scan.unparsable.empty())
        out += fmt::format("importscope: note: {} could not be parsed (the report's problems list them)\n",
                           plural(scan.unparsable.size(), "file", "files"));
    return out;
}

/// A run's first lines: how the target ended, the interpreter, what was recorded.
std::string run_header(const Document& report, const Run& run)
{
    const Summary& summary = report.summary;
    std::string out;
    out += fmt::format("importscope: target {} ({:.2f} s)\n", run.exit.description, run.duration_s);
    if (const auto& exc = run.exit.exception)
        out += fmt::format("importscope: uncaught {}: {}\n", exc->type, exc->message);
    if (const PythonInfo& python = run.python; python.static_build.value_or(false))
        out += fmt::format("importscope: note: {} has no shared libpython (a static build): the target ran on "
                           "importscope's build of Python {} ({}), over that interpreter's stdlib and "
                           "site-packages\n",
                           python.executable, python.runtime_version.value_or(""), python.libpython.value_or(""));
    out += fmt::format("importscope: {}, {} recorded, {}\n", processes_text(report, summary.processes),
                       plural(summary.modules, "module", "modules"),
                       plural(summary.extension_inits, "extension init", "extension inits"));
    if (summary.processes == 0 && report.untraced.empty())
        out += "importscope: note: no Python process was traced, and none was seen running: the command "
               "started no Python that kept importscope's environment, or one that ended within 250 ms after "
               "it was given an environment of its own (env -i, env= without PYTHONPATH); run that Python "
               "under importscope directly to trace it\n";
    return out;
}

} // namespace

std::string render_summary(const Document& report, bool color)
{
    const Painter paint(color);
    std::string out = report.scan ? scan_header(*report.scan) : run_header(report, report.run.value_or(Run{}));

    // Each root cause first, with the findings it explains nested under it; then the rest. A merged
    // report's finding is shown once, in its first run, with the runs that found it.
    const auto& findings = report.findings;
    std::vector<bool> shown(findings.size(), false);
    if (report.across_runs) {
        out += across_runs_text(report, *report.across_runs, paint);
        std::set<std::string> keys;
        for (std::size_t i = 0; i < findings.size(); ++i)
            shown[i] = !keys.insert(finding_key(findings[i])).second;
    }
    for (const ReportedCause& cause : report.causes)
        out += cause_text(report, cause, shown, paint);
    for (std::size_t i = 0; i < findings.size(); ++i)
        if (!shown[i])
            out += finding_text(report, findings[i], take_copies(findings, i, shown), paint);
    if (findings.empty())
        out += "importscope: no findings\n";
    out += untraced_text(report, paint);
    for (const std::string& problem : report.problems)
        out += fmt::format("importscope: note: {}\n", problem);
    return out;
}

} // namespace importscope::report
