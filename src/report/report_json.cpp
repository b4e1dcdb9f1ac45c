// build_report() (report.hpp): the report's document but for the module records and their frames:
// the run, its processes, findings, causes, aliases, environment and summary.

#include "importscope/report/report.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/report/document.hpp"
#include "importscope/report/summary_count.hpp"

#include "importscope/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <ctime>

namespace importscope::report {

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

/// How a process ended, as the report says it; `stop` is the run's, for the main process.
ReportedExit exit_record(const ProcessExit& exit, const RunStop& stop = {})
{
    ReportedExit out;
    out.process = exit;
    if (exit.signal)
        out.signal_name = signal_name(*exit.signal);
    out.timed_out = stop.timed_out;
    out.stopped_on_finding = stop.stopped_on_finding;
    if (stop.forwarded_signal)
        out.forwarded_signal = signal_name(*stop.forwarded_signal);
    out.description = describe_exit(exit, stop);
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

ReportedProgram program_record(const journal::ProgramStart& program)
{
    return {program.via, program.executable, program.argv, program.seq};
}

/// processes[].environment_read and environment_bulk_read.
void add_environment_reads(ReportedProcess& process, const analysis::ProcessEnvironmentReads& reads)
{
    auto& variables = process.environment_read.emplace();
    variables.reserve(reads.variables.size());
    for (const auto& variable : reads.variables)
        variables.push_back({variable.name, variable.set, variable.set ? std::optional(variable.value) : std::nullopt,
                             variable.read_at});
    auto& bulk = process.environment_bulk_read.emplace();
    bulk.reserve(reads.bulk.size());
    for (const auto& read : reads.bulk)
        bulk.push_back({read.at, read.variables});
}

ReportedProcess process_record(const analysis::ProcessRecord& p, const analysis::ProcessEnvironmentReads& reads,
                               const RunInfo& run, bool is_main)
{
    ReportedProcess process;
    process.pid = p.pid;
    process.ppid = p.ppid;
    process.argv = p.argv;
    process.executable = p.executable;
    process.python_version = p.python_version;
    process.cwd = p.cwd;
    process.start_method = p.start_method;
    process.role = analysis::process_role(p);
    process.multiprocessing.emplace(); // null for a process that multiprocessing did not start
    if (p.worker)
        process.multiprocessing->emplace(ReportedWorker{p.worker->name, p.worker->target});
    process.journal = p.journal;
    process.host = run.host;
    for (const auto& program : p.programs)
        process.programs.push_back(program_record(program));
    if (p.start_wall_ns)
        process.started_at = iso_time(p.start_wall_ns);
    process.uncaught_exception = p.uncaught;
    if (is_main) {
        process.ended_at = iso_time(run.ended_ns);
        process.exit = exit_record(run.exit, run.stop);
    } else if (const auto exit = other_process_exit(p, run)) {
        process.exit = exit_record(*exit);
        if (p.end && p.end_wall_ns)
            process.ended_at = iso_time(p.end_wall_ns);
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
    // The main process gives its exception as uncaught_exception; the run gives it as its exit's.
    out.exit = {exit_record(run.exit, run.stop), main_process ? main_process->uncaught : std::nullopt};
    return out;
}

} // namespace

Document build_report(const RunInfo& run, const analysis::RunModel& model, const analysis::Conclusions& conclusions)
{
    Document report;
    report.schema = k_schema;
    report.tool = {"importscope", k_version, run.worker_minor};
    const analysis::ProcessRecord* main_process = nullptr;
    report.processes.reserve(model.processes.size());
    for (std::size_t i = 0; i < model.processes.size(); ++i) {
        const analysis::ProcessRecord& p = model.processes[i];
        // The main process is the first image of the worker's pid (before any exec).
        const bool is_main = p.pid == run.main_pid && !main_process;
        report.processes.push_back(process_record(p, conclusions.environment_reads.at(i), run, is_main));
        if (is_main)
            main_process = &p;
    }
    report.run = run_record(run, main_process);
    for (const auto& finding : conclusions.findings)
        report.findings.push_back({finding, std::nullopt});
    for (const auto& cause : conclusions.causes)
        report.causes.push_back(reported_cause(cause));
    report.aliases = alias_records(model);
    report.problems = model.problems;
    for (const auto& untraced : run.untraced)
        report.untraced.push_back({untraced, std::nullopt});
    report.environment = run.environment;
    // The module records are streamed from the model, not held in the document: counted from there.
    SummaryCount count;
    count.add(report);
    for (const analysis::ModuleRecord& r : model.modules)
        count.add_module(r.initialized_extension);
    report.summary = count.summary();
    report.summary.journal_bytes = model.journal_bytes;
    return report;
}

} // namespace importscope::report
