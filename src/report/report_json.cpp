#include "importscope/report/report.hpp"
#include "importscope/analysis/environment_reads.hpp"
#include "importscope/analysis/root_causes.hpp"
#include "importscope/report/document.hpp"

#include "importscope/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <cstring>
#include <ctime>

namespace importscope::report {

using nlohmann::json;

std::string signal_name(int signal)
{
    if (const char* abbrev = sigabbrev_np(signal))
        return fmt::format("SIG{}", abbrev);
    return fmt::format("signal {}", signal);
}

std::string describe_exit(const ExitInfo& exit)
{
    std::string text;
    if (exit.signal)
        text = fmt::format("killed by {}{}", signal_name(*exit.signal), exit.core_dumped ? " (core dumped)" : "");
    else if (exit.code)
        text = fmt::format("exited with status {}", *exit.code);
    else
        text = "ended in an unknown way";
    if (exit.how == "os._exit")
        text += " (os._exit)";
    else if (exit.how == "killed")
        text += " by importscope at the end of the run";
    if (exit.timed_out)
        text += " after the timeout";
    else if (exit.stopped_on_finding)
        text += " after the first error finding (--stop-on-finding)";
    else if (exit.forwarded_signal)
        text += fmt::format(" after importscope passed on {}", signal_name(*exit.forwarded_signal));
    return text;
}

std::string iso_time(std::int64_t wall_ns)
{
    const std::time_t seconds = static_cast<std::time_t>(wall_ns / 1'000'000'000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[32];
    if (std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc) == 0)
        return {};
    return fmt::format("{}.{:03}Z", buffer, (wall_ns / 1'000'000) % 1000);
}

namespace {

json optional_json(const auto& value)
{
    return value ? json(*value) : json(nullptr);
}

json exit_json(const ExitInfo& exit)
{
    return json{{"code", optional_json(exit.code)},
                {"signal", optional_json(exit.signal)},
                {"signal_name", exit.signal ? json(signal_name(*exit.signal)) : json(nullptr)},
                {"core_dumped", exit.core_dumped},
                {"timed_out", exit.timed_out},
                {"stopped_on_finding", exit.stopped_on_finding},
                {"forwarded_signal", exit.forwarded_signal ? json(signal_name(*exit.forwarded_signal)) : json(nullptr)},
                {"how", exit.how.empty() ? "waited" : exit.how},
                {"description", describe_exit(exit)}};
}

} // namespace

namespace {

Cause reported_cause(const analysis::RootCause& cause)
{
    return {cause.id,      cause.kind,   cause.severity, cause.pids,
            cause.message, cause.advice, cause.evidence, cause.findings.size()};
}

/// How a process other than the main one ended: as it recorded itself, else as importscope saw it.
std::optional<ExitInfo> other_process_exit(const analysis::ProcessRecord& p, const RunInfo& run)
{
    if (p.end) {
        ExitInfo exit;
        exit.code = p.end->code;
        exit.signal = p.end->signal;
        exit.how = p.end->how;
        return exit;
    }
    if (const auto it = run.seen_ends.find(p.pid); it != run.seen_ends.end())
        return it->second;
    return std::nullopt;
}

json program_json(const journal::ProgramStart& program)
{
    return json{
        {"via", program.via}, {"executable", program.executable}, {"argv", program.argv}, {"order", program.seq}};
}

/// processes[].environment_read and environment_bulk_read.
void add_environment_reads(json& process, const analysis::ProcessRecord& p)
{
    const analysis::ProcessEnvironmentReads reads = analysis::environment_reads(p);
    json variables = json::array();
    for (const auto& variable : reads.variables)
        variables.push_back({{"name", variable.name},
                             {"set", variable.set},
                             {"value", variable.set ? json(variable.value) : json(nullptr)},
                             {"read_at", variable.read_at}});
    json bulk = json::array();
    for (const auto& read : reads.bulk)
        bulk.push_back({{"at", read.at}, {"variables", read.variables}});
    process["environment_read"] = std::move(variables);
    process["environment_bulk_read"] = std::move(bulk);
}

json process_json(const analysis::ProcessRecord& p, const RunInfo& run, bool is_main)
{
    json programs = json::array();
    for (const auto& program : p.programs)
        programs.push_back(program_json(program));
    json process{{"pid", p.pid},
                 {"ppid", p.ppid},
                 {"argv", p.argv},
                 {"executable", p.executable},
                 {"python_version", p.python_version},
                 {"cwd", p.cwd},
                 {"start_method", p.start_method},
                 {"role", analysis::process_role(p)},
                 {"multiprocessing", p.worker ? json{{"name", p.worker->name}, {"target", p.worker->target}}
                                              : json(nullptr)},
                 {"journal", p.journal},
                 {"host", run.host},
                 {"programs", programs},
                 {"started_at", p.start_wall_ns ? json(iso_time(p.start_wall_ns)) : json(nullptr)},
                 {"ended_at", nullptr},
                 {"exit", nullptr},
                 {"uncaught_exception", optional_json(p.uncaught)}};
    if (is_main) {
        process["ended_at"] = iso_time(run.ended_ns);
        process["exit"] = exit_json(run.exit);
    } else if (const auto exit = other_process_exit(p, run)) {
        process["exit"] = exit_json(*exit);
        if (p.end && p.end->wall_ns)
            process["ended_at"] = iso_time(p.end->wall_ns);
    }
    add_environment_reads(process, p);
    return process;
}

/// run.python: the interpreter, and the libpython the target ran on.
json python_json(const RunInfo& run)
{
    json python = {{"executable", run.python_executable}, {"version", run.python_version}};
    if (!run.python_libpython.empty()) {
        python["libpython"] = run.python_libpython;
        python["static_build"] = run.python_static_build;
    }
    if (run.python_static_build)
        python["runtime_version"] = run.python_runtime_version;
    return python;
}

json aliases_json(const analysis::RunModel& model)
{
    json aliases = json::array();
    for (const auto& alias : model.aliases) {
        json& out = aliases.emplace_back(json{{"pid", alias.pid},
                                              {"key", alias.event.key},
                                              {"module", alias.event.module_name},
                                              {"file", alias.event.file},
                                              {"order", alias.event.seq},
                                              {"first_seen_at", alias.event.stack}});
        if (!alias.event.set_by.empty())
            out["set_at"] = alias.event.set_by;
    }
    return aliases;
}

/// The report's "run": importscope's command line, the target, the interpreter, how it ended.
json run_json(const RunInfo& run, const analysis::ProcessRecord* main_process)
{
    json exit = exit_json(run.exit);
    exit["exception"] = main_process ? optional_json(main_process->uncaught) : json(nullptr);
    return json{{"argv", run.argv},
                {"cwd", run.cwd},
                {"host", run.host},
                {"target",
                 {{"kind", run.target_kind},
                  {"value", run.target},
                  {"args", run.target_args},
                  {"interpreter_options", run.interpreter_options}}},
                {"python", python_json(run)},
                {"match", run.match},
                {"timeout_s", optional_json(run.timeout_s)},
                {"follow", run.follow},
                {"started_at", iso_time(run.started_ns)},
                {"ended_at", iso_time(run.ended_ns)},
                {"duration_s", static_cast<double>(run.ended_ns - run.started_ns) / 1e9},
                {"exit", exit}};
}

Summary run_summary(const RunInfo& run, const analysis::RunModel& model, const std::vector<analysis::Finding>& findings)
{
    Summary summary;
    summary.extension_inits = static_cast<std::size_t>(std::count_if(
        model.modules.begin(), model.modules.end(), [](const auto& r) { return r.initialized_extension; }));
    summary.errors = static_cast<std::size_t>(std::count_if(
        findings.begin(), findings.end(), [](const auto& f) { return f.severity == analysis::Severity::error; }));
    std::set<int> pids_with_findings;
    for (const auto& f : findings)
        pids_with_findings.insert(f.pid);
    summary.processes = model.processes.size();
    summary.processes_with_findings = pids_with_findings.size();
    summary.python_processes = model.processes.size() + run.untraced.size();
    summary.untraced_processes = run.untraced.size();
    summary.modules = model.modules.size();
    summary.journal_bytes = model.journal_bytes;
    summary.findings = findings.size();
    summary.warnings = findings.size() - summary.errors;
    return summary;
}

} // namespace

json build_report(const RunInfo& run, const analysis::RunModel& model, const std::vector<analysis::Finding>& findings)
{
    json processes = json::array();
    const analysis::ProcessRecord* main_process = nullptr;
    for (const auto& p : model.processes) {
        // The main process is the first image of the worker's pid (before any exec).
        const bool is_main = p.pid == run.main_pid && !main_process;
        processes.push_back(process_json(p, run, is_main));
        if (is_main)
            main_process = &p;
    }
    std::vector<analysis::Finding> reported = findings;
    std::vector<Cause> causes;
    for (const auto& cause : analysis::find_root_causes(findings)) {
        for (std::size_t index : cause.findings)
            reported[index].caused_by = cause.id;
        causes.push_back(reported_cause(cause));
    }
    return json{
        {"schema", k_schema},
        {"tool", {{"name", "importscope"}, {"version", k_version}, {"python", run.worker_minor}}},
        {"run", run_json(run, main_process)},
        {"processes", processes},
        {"findings", reported},
        {"causes", causes},
        {"aliases", aliases_json(model)},
        {"problems", model.problems},
        {"untraced", run.untraced},
        {"environment", run.environment},
        {"summary", run_summary(run, model, findings)},
    };
}

} // namespace importscope::report
