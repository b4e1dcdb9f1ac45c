// build_report() (report.hpp): the report's tree but for the module records and their frames: the
// run, its processes, findings, causes, aliases, environment and summary, keys sorted.

#include "importscope/report/report.hpp"
#include "importscope/analysis/conclusions.hpp"
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
    // Not sigabbrev_np(), which glibc has from 2.32 on only (the wheel needs no more than 2.28).
    struct Named {
        int number;
        const char* name;
    };
    static constexpr Named k_signals[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"},     {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},     {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},     {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"},     {SIGSTKFLT, "SIGSTKFLT"},
        {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"},     {SIGTSTP, "SIGTSTP"},
        {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},       {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},     {SIGWINCH, "SIGWINCH"},
        {SIGIO, "SIGIO"},     {SIGPWR, "SIGPWR"},       {SIGSYS, "SIGSYS"},
    };
    for (const Named& known : k_signals)
        if (known.number == signal)
            return known.name;
    return fmt::format("signal {}", signal);
}

std::string describe_exit(const ProcessExit& exit, const RunStop& stop)
{
    std::string text;
    if (exit.signal)
        text = fmt::format("killed by {}{}", signal_name(*exit.signal), exit.core_dumped ? " (core dumped)" : "");
    else if (exit.code)
        text = fmt::format("exited with status {}", *exit.code);
    else
        text = "ended in an unknown way";
    if (exit.how == ExitKnownBy::os_exit)
        text += " (os._exit)";
    else if (exit.how == ExitKnownBy::killed)
        text += " by importscope at the end of the run";
    if (stop.timed_out)
        text += " after the timeout";
    else if (stop.stopped_on_finding)
        text += " after the first error finding (--stop-on-finding)";
    else if (stop.forwarded_signal)
        text += fmt::format(" after importscope passed on {}", signal_name(*stop.forwarded_signal));
    if (stop.grace_over && stop.forwarded_signal == SIGTERM)
        text += ": it did not end after SIGTERM within the grace period of 10 s";
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

/// How a process ended, as the report says it; `stop` and `exception` are the run's (a process
/// gives its own exception as uncaught_exception).
Exit exit_record(const ProcessExit& exit, const RunStop& stop = {},
                 std::optional<journal::ExceptionInfo> exception = std::nullopt)
{
    Exit out;
    out.process = exit;
    if (exit.signal)
        out.signal_name = signal_name(*exit.signal);
    out.timed_out = stop.timed_out;
    out.stopped_on_finding = stop.stopped_on_finding;
    if (stop.forwarded_signal)
        out.forwarded_signal = signal_name(*stop.forwarded_signal);
    out.description = describe_exit(exit, stop);
    out.exception = std::move(exception);
    return out;
}

/// A process's "exit": the run's form of it but the exception.
json process_exit_json(const ProcessExit& exit, const RunStop& stop = {})
{
    json out = exit_record(exit, stop);
    out.erase("exception");
    return out;
}

} // namespace

namespace {

ReportedCause reported_cause(const analysis::RootCause& cause)
{
    return {cause.id,      cause.kind,   cause.severity, cause.pids,
            cause.message, cause.advice, cause.evidence, cause.findings.size()};
}

/// How a process other than the main one ended: as it recorded itself, else as importscope saw it.
std::optional<ProcessExit> other_process_exit(const analysis::ProcessRecord& p, const RunInfo& run)
{
    if (p.end)
        return p.end;
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
void add_environment_reads(json& process, const analysis::ProcessEnvironmentReads& reads)
{
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

json process_json(const analysis::ProcessRecord& p, const analysis::ProcessEnvironmentReads& reads, const RunInfo& run,
                  bool is_main)
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
        process["exit"] = process_exit_json(run.exit, run.stop);
    } else if (const auto exit = other_process_exit(p, run)) {
        process["exit"] = process_exit_json(*exit);
        if (p.end && p.end_wall_ns)
            process["ended_at"] = iso_time(p.end_wall_ns);
    }
    add_environment_reads(process, reads);
    return process;
}

/// run.python: the interpreter, and the libpython the target ran on.
PythonInfo python_record(const RunInfo& run)
{
    PythonInfo python{run.python_executable, run.python_version, {}, {}, {}};
    if (!run.python_libpython.empty()) {
        python.libpython = run.python_libpython;
        python.static_build = run.python_static_build;
    }
    if (run.python_static_build)
        python.runtime_version = run.python_runtime_version;
    return python;
}

std::vector<Alias> alias_records(const analysis::RunModel& model)
{
    std::vector<Alias> aliases;
    aliases.reserve(model.aliases.size());
    for (const auto& alias : model.aliases) {
        const auto& event = alias.event;
        aliases.push_back({alias.pid, event.key, event.module_name, event.file, event.seq, event.stack,
                           event.set_by.empty() ? std::nullopt : std::optional(event.set_by),
                           event.set_in_code.empty() ? std::nullopt : std::optional(event.set_in_code)});
    }
    return aliases;
}

/// The report's "run": importscope's command line, the target, the interpreter, how it ended.
Run run_record(const RunInfo& run, const analysis::ProcessRecord* main_process)
{
    Run out;
    out.argv = run.argv;
    out.cwd = run.cwd;
    out.host = run.host;
    out.job = run.job;
    out.target = {run.target_kind, run.target, run.target_args, run.interpreter_options};
    out.python = python_record(run);
    out.match = run.match;
    out.timeout_s = run.timeout_s;
    out.follow = run.follow;
    out.started_at = iso_time(run.started_ns);
    out.ended_at = iso_time(run.ended_ns);
    out.duration_s = static_cast<double>(run.ended_ns - run.started_ns) / 1e9;
    out.exit = exit_record(run.exit, run.stop, main_process ? main_process->uncaught : std::nullopt);
    return out;
}

Summary run_summary(const RunInfo& run, const analysis::RunModel& model, const std::vector<analysis::Finding>& findings)
{
    Summary summary;
    summary.extension_inits = static_cast<std::size_t>(std::count_if(
        model.modules.begin(), model.modules.end(), [](const auto& r) { return r.initialized_extension; }));
    std::set<int> pids_with_findings;
    for (const auto& f : findings)
        pids_with_findings.insert(f.pid);
    // A process that exec'd Python again wrote a journal per image: it is one process.
    std::set<int> pids;
    for (const auto& p : model.processes)
        pids.insert(p.pid);
    summary.processes = pids.size();
    summary.processes_with_findings = pids_with_findings.size();
    summary.python_processes = pids.size() + run.untraced.size();
    summary.untraced_processes = run.untraced.size();
    summary.modules = model.modules.size();
    summary.journal_bytes = model.journal_bytes;
    summary.count_findings(findings);
    return summary;
}

} // namespace

json build_report(const RunInfo& run, const analysis::RunModel& model, const analysis::Conclusions& conclusions)
{
    json processes = json::array();
    const analysis::ProcessRecord* main_process = nullptr;
    for (std::size_t i = 0; i < model.processes.size(); ++i) {
        const analysis::ProcessRecord& p = model.processes[i];
        // The main process is the first image of the worker's pid (before any exec).
        const bool is_main = p.pid == run.main_pid && !main_process;
        processes.push_back(process_json(p, conclusions.environment_reads.at(i), run, is_main));
        if (is_main)
            main_process = &p;
    }
    std::vector<ReportedCause> causes;
    for (const auto& cause : conclusions.causes)
        causes.push_back(reported_cause(cause));
    return json{
        {"schema", k_schema},
        {"tool", Tool{"importscope", k_version, run.worker_minor}},
        {"run", run_record(run, main_process)},
        {"processes", processes},
        {"findings", conclusions.findings},
        {"causes", causes},
        {"aliases", alias_records(model)},
        {"problems", model.problems},
        {"untraced", run.untraced},
        {"environment", run.environment},
        {"summary", run_summary(run, model, conclusions.findings)},
    };
}

} // namespace importscope::report
