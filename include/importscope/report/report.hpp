#pragma once

// The report `run` writes (docs/report-format.md): what the supervisor knows of the run (RunInfo), the
// document built from it, the model and the findings (report_json.cpp), and the writer that streams
// the file with the module records (report_writer.cpp).

#include "importscope/analysis/conclusions.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/analysis/untraced.hpp"
#include "importscope/report/document.hpp"
#include "importscope/report/job.hpp"

#include "importscope/util/atomic_file.hpp"
#include "importscope/util/process_facts.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace importscope::report {

/// The schema a report is written in: report/2, whose module records name their frames by index
/// in the report's "frames".
inline constexpr const char* k_schema = "importscope.report/2";
/// The schema before it, whose module records hold their frames whole: still read.
inline constexpr const char* k_schema_1 = "importscope.report/1";

/// What the supervisor knows about the run, beside the journal.
struct RunInfo {
    std::vector<std::string> argv; ///< importscope's own command line
    std::string cwd;
    std::string host;
    Job job;
    std::string target_kind; ///< "script", "module", "command", "stdin" or "program"
    std::string target;      ///< the script path, module name or code
    std::vector<std::string> target_args;
    std::vector<std::string> interpreter_options; ///< python's own options before the target
    std::string python_executable;
    std::string python_version;
    std::string worker_minor;      ///< the worker that ran the target ("3.11"; "" for a program)
    std::string python_libpython;  ///< the libpython the target ran on
    /// The interpreter has no shared libpython: the target ran on that of the interpreter
    /// importscope's worker was built with (its version is then python_runtime_version).
    bool python_static_build = false;
    std::string python_runtime_version;
    std::vector<std::string> match;
    std::optional<double> timeout_s;
    std::int64_t started_ns = 0; ///< wall clock
    std::int64_t ended_ns = 0;
    int main_pid = 0;
    ProcessExit exit; ///< the main process's end, known by `waited`
    RunStop stop;     ///< what importscope did that ended it
    bool follow = true;
    /// Ends of other processes that importscope saw itself: orphans it reaped, stragglers it killed.
    std::map<int, ProcessExit> seen_ends;
    /// The environment fingerprint (supervisor::collect_environment), or null.
    nlohmann::json environment;
    /// Python processes that traced processes started and that were not traced (analysis::find_untraced).
    std::vector<analysis::UntracedProcess> untraced;
};

/// "SIGABRT" for 6; "signal 77" for a number without a name.
std::string signal_name(int signal);

/// One phrase for how a process ended: "exited with status 3", "killed by SIGABRT (core dumped)";
/// `stop` says what importscope did to end it (the main process's alone).
std::string describe_exit(const ProcessExit& exit, const RunStop& stop = {});

/// The report (docs/report-format.md) but its module records and their frames, which ReportWriter
/// writes from the model: arrays in a defined order, the summary counted (SummaryCount). What the
/// analysis concluded is held as it is.
Document build_report(const RunInfo& run, const analysis::RunModel& model, const analysis::Conclusions& conclusions);

class PathRedaction;

/// The report file's text as `run` writes it (merge and scan lay theirs out the same way, through
/// pretty_text()), in two steps: first its "schema", then the frames and module records, then the
/// rest of the report. The records are final before the rest is known (once the target's
/// interpreter is finalizing), so they can be written while the exit status is still to come.
/// Each string of the records passes through `redaction` if given; the text goes to `sink` a
/// megabyte or so at a time. Indented by two; the keys after the records sorted; invalid UTF-8
/// replaced.
class ReportWriter {
public:
    ReportWriter(TextSink sink, const PathRedaction* redaction);
    ~ReportWriter();
    ReportWriter(const ReportWriter&) = delete;
    ReportWriter& operator=(const ReportWriter&) = delete;

    /// Writes the schema, `records` (in their order) into "modules" and the frames they name into
    /// "frames", and hands all of it to the sink. Once.
    void write_records(std::span<const analysis::ModuleRecord* const> records);

    /// Writes the other keys of `report` (build_report's, redacted already), ends the object and
    /// the line; after write_records. Throws std::logic_error for a document that holds records or
    /// another schema.
    void write_rest(const Document& report);

private:
    struct Stream;
    std::unique_ptr<Stream> m_stream;
    bool m_records_written = false;
};

/// The records of `model`, in its order, as ReportWriter takes them.
std::vector<const analysis::ModuleRecord*> records_of(const analysis::RunModel& model);

/// The whole report file at once: `report` with the module records of `model` and their frames
/// (ReportWriter).
void write_report(const Document& report, const analysis::RunModel& model, const PathRedaction* redaction,
                  const TextSink& sink);

/// The same text, whole.
std::string report_text(const Document& report, const analysis::RunModel& model,
                        const PathRedaction* redaction = nullptr);

/// Any JSON tree as write_report lays a report out (`importscope merge`'s report), newline ended.
std::string pretty_text(const nlohmann::json& value);

/// "2026-11-30T12:34:56.789Z" for nanoseconds since the epoch.
std::string iso_time(std::int64_t wall_ns);

} // namespace importscope::report
