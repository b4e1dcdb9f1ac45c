#pragma once

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/scan.hpp"
#include "importscope/analysis/untraced.hpp"
#include "importscope/journal/event.hpp"
#include "importscope/report/job.hpp"
#include "importscope/report/outcome.hpp"
#include "importscope/util/json_fields.hpp"
#include "importscope/util/process_facts.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace importscope {

/// A process's end in a report (run.exit.how): to_string(ExitKnownBy); another word is refused.
inline void to_json(nlohmann::json& j, ExitKnownBy how)
{
    j = std::string(to_string(how));
}
inline void from_json(const nlohmann::json& j, ExitKnownBy& how)
{
    const std::optional<ExitKnownBy> known = j.is_string() ? exit_known_by(j.get<std::string>()) : std::nullopt;
    if (!known)
        throw nlohmann::json::type_error::create(302, "not a way a process ends", &j);
    how = *known;
}

} // namespace importscope

/// A report as the commands that read one see it (docs/report-format.md): `report`, `diff` and
/// `merge`, and the summary `run` and `scan` print. Each record declares its fields once
/// (json_fields.hpp); what a renderer reads is a typed member, and what no renderer reads of a
/// section whose schema is open is kept in its `rest`, so that merge writes it back.
namespace importscope::report {

using json_fields::from_json;
using json_fields::to_json;

/// The record of a merged report: it keeps the host it ran on.
template <typename T>
struct Hosted : T {
    std::optional<std::string> host;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        T::fields(f, e);
        f.optional("host", e.host);
    }
};

/// A report's "findings": analysis::Finding, with the host of a merged report's.
using ReportedFinding = Hosted<analysis::Finding>;

struct Tool {
    std::string name;
    std::string version;
    std::string python; ///< the minor of the worker that ran the target

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("version", e.version);
        f.field("python", e.python);
    }
};

/// run.target: what ran.
struct ReportedTarget {
    std::string kind; ///< "script", "module", "command", "stdin" or "program"
    std::string value;
    std::vector<std::string> args;
    std::vector<std::string> interpreter_options;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("kind", e.kind);
        f.field("value", e.value);
        f.field("args", e.args);
        f.field("interpreter_options", e.interpreter_options);
    }
};

/// run.python: the interpreter, and the libpython the target ran on; scan.python: the interpreter examined.
struct PythonInfo {
    std::string executable;
    std::string version;
    std::optional<std::string> libpython;
    std::optional<bool> static_build;
    std::optional<std::string> runtime_version;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("executable", e.executable);
        f.field("version", e.version);
        f.optional("libpython", e.libpython);
        f.optional("static_build", e.static_build);
        f.optional("runtime_version", e.runtime_version);
    }
};

/// processes[].exit: how a process ended, and the report's words for it; the run's facts
/// (timed_out, stopped_on_finding, forwarded_signal) are the main process's only.
struct ReportedExit {
    ProcessExit process;
    std::optional<std::string> signal_name; ///< signal_name(process.signal)
    bool timed_out = false;
    bool stopped_on_finding = false;
    std::optional<std::string> forwarded_signal; ///< signal_name(RunStop::forwarded_signal)
    std::string description;                     ///< describe_exit()

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.nullable("code", e.process.code);
        f.nullable("signal", e.process.signal);
        f.nullable("signal_name", e.signal_name);
        f.field("core_dumped", e.process.core_dumped);
        f.field("timed_out", e.timed_out);
        f.field("stopped_on_finding", e.stopped_on_finding);
        f.nullable("forwarded_signal", e.forwarded_signal);
        f.field("how", e.process.how);
        f.field("description", e.description);
    }
};

/// run.exit: how the main process ended, with the exception that reached sys.excepthook.
struct Exit : ReportedExit {
    std::optional<journal::ExceptionInfo> exception;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        ReportedExit::fields(f, e);
        f.nullable("exception", e.exception);
    }
};

/// run.merged_from: one of the runs a merged report holds.
struct MergedRun {
    std::string host;
    std::vector<std::string> argv;
    std::string started_at;
    Exit exit;
    std::optional<Outcome> outcome;
    std::optional<Job> job;               ///< its run.job, where its report had one
    std::optional<std::size_t> findings;  ///< how many findings its report held
    std::optional<std::string> source;    ///< the report file it was read from

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("host", e.host);
        f.field("argv", e.argv);
        f.field("started_at", e.started_at);
        f.field("exit", e.exit);
        f.nullable("outcome", e.outcome);
        f.optional("job", e.job);
        f.optional("findings", e.findings);
        f.optional("source", e.source);
    }
};

/// across_runs.findings: one finding as the merged runs share it (matched by finding_key).
struct SharedFinding {
    std::string key; ///< "kind | module names | relative file"
    std::string kind;
    analysis::Severity severity = analysis::Severity::warning;
    std::string message;             ///< the first run's
    std::size_t runs = 0;            ///< the runs that found it
    std::size_t processes = 0;       ///< the processes that found it, in all those runs
    std::optional<std::string> ranks; ///< "0-6,8-31": the ranks of those runs, where their reports say them
    std::vector<std::string> hosts;  ///< the hosts of those runs, each once, sorted

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("key", e.key);
        f.field("kind", e.kind);
        f.field("severity", e.severity);
        f.field("message", e.message);
        f.field("runs", e.runs);
        f.field("processes", e.processes);
        f.nullable("ranks", e.ranks);
        f.field("hosts", e.hosts);
    }
};

/// A merged report's "across_runs": the whole job at a glance, each finding once with the runs,
/// ranks and hosts that found it, and the runs that found nothing.
struct AcrossRuns {
    std::size_t runs = 0;
    std::size_t hosts = 0;
    std::optional<std::string> ranks; ///< every merged run's rank, as ranges
    std::vector<SharedFinding> findings;
    std::vector<std::size_t> clean; ///< the indexes into run.merged_from of the runs without a finding

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("runs", e.runs);
        f.field("hosts", e.hosts);
        f.nullable("ranks", e.ranks);
        f.field("findings", e.findings);
        f.field("clean", e.clean);
    }
};

/// The report's "run": importscope's command line, the target, the interpreter, how it ended.
struct Run {
    std::vector<std::string> argv;
    std::string cwd;
    std::string host;
    std::optional<Job> job; ///< absent from the reports of importscope before it
    ReportedTarget target;
    PythonInfo python;
    std::vector<std::string> match;
    std::optional<double> timeout_s;
    bool follow = false;
    std::string started_at;
    std::string ended_at;
    double duration_s = 0;
    Exit exit;
    std::optional<std::vector<MergedRun>> merged_from;
    std::optional<Outcome> outcome;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("argv", e.argv);
        f.field("cwd", e.cwd);
        f.field("host", e.host);
        f.optional("job", e.job);
        f.required("target", e.target);
        f.field("python", e.python);
        f.field("match", e.match);
        f.nullable("timeout_s", e.timeout_s);
        f.field("follow", e.follow);
        f.field("started_at", e.started_at);
        f.field("ended_at", e.ended_at);
        f.field("duration_s", e.duration_s);
        f.required("exit", e.exit);
        f.optional("merged_from", e.merged_from);
        f.optional("outcome", e.outcome);
    }
};

/// scan.sys_path[]: an entry of the examined interpreter's sys.path, where it came from, and the
/// .pth line that named it (origin ".pth").
struct ScannedPathEntry {
    std::string entry; ///< as sys.path has it
    std::string path;  ///< its real path
    std::string origin;
    std::optional<analysis::SourcePlace> pth;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("entry", e.entry);
        f.field("path", e.path);
        f.field("origin", e.origin);
        f.optional("pth", e.pth);
        f.rest(e.rest);
    }
};

/// A scan report's "scan", in the place of "run"; keys of another importscope's are kept in `rest`.
struct Scan {
    std::vector<std::string> argv;
    std::string cwd;
    std::string host;
    bool environment = false; ///< whether the interpreter's sys.path was scanned
    std::vector<std::string> paths; ///< what was scanned, as given
    std::vector<ScannedPathEntry> sys_path;
    std::vector<analysis::StartupCode> startup_code;
    analysis::ScanFileCounts files;
    PythonInfo python;
    std::string started_at;
    std::string ended_at;
    double duration_s = 0;
    std::vector<analysis::UnparsableFile> unparsable;
    std::optional<Outcome> outcome;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("argv", e.argv);
        f.field("cwd", e.cwd);
        f.field("host", e.host);
        f.field("environment", e.environment);
        f.field("paths", e.paths);
        f.field("sys_path", e.sys_path);
        f.field("startup_code", e.startup_code);
        f.required("files", e.files);
        f.required("python", e.python);
        f.field("started_at", e.started_at);
        f.field("ended_at", e.ended_at);
        f.field("duration_s", e.duration_s);
        f.field("unparsable", e.unparsable);
        f.optional("outcome", e.outcome);
        f.rest(e.rest);
    }
};

/// processes[].multiprocessing: what multiprocessing said of a process it started as a worker.
struct ReportedWorker {
    std::string name;
    std::string target; ///< "module.qualname" of Process._target; empty when it has none

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("target", e.target);
    }
};

/// processes[].programs: a program the process started (exec, subprocess, ...).
struct ReportedProgram {
    std::string via;        ///< the audit event: "os.exec", "subprocess.Popen", ...
    std::string executable; ///< may be empty (os.system)
    std::vector<std::string> argv;
    std::uint64_t order = 0; ///< its place in the process's events

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("via", e.via);
        f.field("executable", e.executable);
        f.field("argv", e.argv);
        f.field("order", e.order);
    }
};

/// processes[].environment_read: a variable the process read, and the lines that read it.
struct ReportedVariableRead {
    std::string name;
    bool set = false;
    std::optional<std::string> value; ///< null when it was not set
    std::vector<journal::Frame> read_at;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("set", e.set);
        f.nullable("value", e.value);
        f.field("read_at", e.read_at);
    }
};

/// processes[].environment_bulk_read: a line that copied the whole environment.
struct ReportedBulkRead {
    journal::Frame at;
    std::size_t variables = 0; ///< how many it read

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("at", e.at);
        f.field("variables", e.variables);
    }
};

/// A process image of the report's "processes" (one per journal: a process that exec'd Python
/// again has one per image), every key typed. Reports of importscope before roles lack role,
/// multiprocessing and the environment reads, and keep lacking them when merged.
struct ReportedProcess {
    int pid = 0;
    int ppid = 0;
    std::vector<std::string> argv;
    std::string executable;
    std::string python_version;
    std::string cwd;
    std::string start_method; ///< "main", "spawn", "fork", "forkserver", "exec", ...
    std::optional<std::string> role;
    std::optional<std::optional<ReportedWorker>> multiprocessing; ///< null for a process it did not start
    std::string journal;
    std::optional<std::string> host;
    std::vector<ReportedProgram> programs;
    std::optional<std::string> started_at;
    std::optional<std::string> ended_at; ///< when it recorded its end (the main process's: the run's end)
    std::optional<ReportedExit> exit;    ///< null when nobody saw it end
    std::optional<journal::ExceptionInfo> uncaught_exception;
    std::optional<std::vector<ReportedVariableRead>> environment_read;
    std::optional<std::vector<ReportedBulkRead>> environment_bulk_read;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("pid", e.pid);
        f.field("ppid", e.ppid);
        f.field("argv", e.argv);
        f.field("executable", e.executable);
        f.field("python_version", e.python_version);
        f.field("cwd", e.cwd);
        f.field("start_method", e.start_method);
        f.optional("role", e.role);
        f.optional_nullable("multiprocessing", e.multiprocessing);
        f.field("journal", e.journal);
        f.optional("host", e.host);
        f.field("programs", e.programs);
        f.nullable("started_at", e.started_at);
        f.nullable("ended_at", e.ended_at);
        f.nullable("exit", e.exit);
        f.nullable("uncaught_exception", e.uncaught_exception);
        f.optional("environment_read", e.environment_read);
        f.optional("environment_bulk_read", e.environment_bulk_read);
    }
};

/// A module record: the frames it names, by index into the report's "frames", typed (a merge moves
/// them along), and the rest as written.
struct ReportedModule {
    std::vector<std::uint64_t> stack;
    std::optional<std::uint64_t> call_site;
    std::optional<std::uint64_t> caught_at;
    bool initialized_extension = false;
    std::optional<std::string> host;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("stack", e.stack);
        f.nullable("call_site", e.call_site);
        f.optional("caught_at", e.caught_at);
        f.field("initialized_extension", e.initialized_extension);
        f.optional("host", e.host);
        f.rest(e.rest);
    }
};

/// A root cause of the report's "causes" (analysis::RootCause as the report writes it).
struct ReportedCause {
    std::string id;
    std::string kind;
    analysis::Severity severity = analysis::Severity::warning;
    std::vector<int> pids;
    std::string message;
    std::string advice;
    analysis::CauseEvidence evidence;
    std::size_t findings = 0; ///< how many findings it explains

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("id", e.id);
        f.field("kind", e.kind);
        f.field("severity", e.severity);
        f.field("pids", e.pids);
        f.field("message", e.message);
        f.field("advice", e.advice);
        f.field("evidence", e.evidence);
        f.field("findings", e.findings);
    }
};

/// A sys.modules alias of the report's "aliases".
struct Alias {
    int pid = 0;
    std::string key;
    std::string module;
    std::string file;
    std::uint64_t order = 0;
    std::vector<journal::Frame> first_seen_at;
    std::optional<std::vector<journal::Frame>> set_at;
    std::optional<std::vector<journal::Frame>> set_in_code; ///< CPython 3.10 and 3.11, without set_at

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("pid", e.pid);
        f.field("key", e.key);
        f.field("module", e.module);
        f.field("file", e.file);
        f.field("order", e.order);
        f.field("first_seen_at", e.first_seen_at);
        f.optional("set_at", e.set_at);
        f.optional("set_in_code", e.set_in_code);
    }
};

/// The report's "summary": what was recorded and found, counted (SummaryCount, summary_count.hpp).
struct Summary {
    std::size_t processes = 0;
    std::size_t processes_with_findings = 0;
    std::size_t python_processes = 0; ///< traced and untraced
    std::size_t untraced_processes = 0;
    std::size_t modules = 0;
    std::size_t extension_inits = 0;
    std::optional<std::uint64_t> journal_bytes;
    std::size_t findings = 0;
    std::size_t errors = 0;
    std::size_t warnings = 0;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("processes", e.processes);
        f.field("processes_with_findings", e.processes_with_findings);
        f.field("python_processes", e.python_processes);
        f.field("untraced_processes", e.untraced_processes);
        f.field("modules", e.modules);
        f.field("extension_inits", e.extension_inits);
        f.optional("journal_bytes", e.journal_bytes);
        f.field("findings", e.findings);
        f.field("errors", e.errors);
        f.field("warnings", e.warnings);
    }
};

/// A whole report: `run`'s, `scan`'s (`scan` in the place of `run`) or `merge`'s.
struct Document {
    std::string schema;
    Tool tool;
    std::optional<Run> run;
    std::optional<Scan> scan;
    std::vector<ReportedProcess> processes;
    std::vector<journal::Frame> frames; ///< the frames module records name by index
    std::vector<ReportedModule> modules;
    std::vector<ReportedFinding> findings;
    std::vector<ReportedCause> causes;
    std::vector<Alias> aliases;
    std::vector<std::string> problems;
    std::vector<Hosted<analysis::UntracedProcess>> untraced;
    nlohmann::json environment; ///< the environment fingerprint, or null
    Summary summary;
    std::optional<AcrossRuns> across_runs; ///< a merged report's

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("schema", e.schema);
        f.required("tool", e.tool);
        f.optional("run", e.run);
        f.optional("scan", e.scan);
        f.required("processes", e.processes);
        f.field("frames", e.frames);
        f.field("modules", e.modules);
        f.required("findings", e.findings);
        f.field("causes", e.causes);
        f.field("aliases", e.aliases);
        f.required("problems", e.problems);
        f.field("untraced", e.untraced);
        f.field("environment", e.environment);
        f.required("summary", e.summary);
        f.optional("across_runs", e.across_runs);
    }
};

} // namespace importscope::report
