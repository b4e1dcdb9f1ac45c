#pragma once

// `importscope run` in stages, each a unit of its own: request (run_request.cpp), launch
// (run_launch.cpp), collect (collect::Collector, and run_collect.cpp for what the supervisor saw),
// analyze (run_analyze.cpp), report (run_report.cpp). run_command.cpp calls them in turn.

#include "importscope/app/install_layout.hpp"
#include "importscope/app/live_view.hpp"
#include "importscope/app/run.hpp"
#include "importscope/app/target_resolution.hpp"
#include "importscope/analysis/conclusions.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/known_issues.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/analysis/task_launchers.hpp"
#include "importscope/collect/collector.hpp"
#include "importscope/embed/worker.hpp"
#include "importscope/journal/problem_channel.hpp"
#include "importscope/journal/shared_journal.hpp"
#include "importscope/report/gate.hpp"
#include "importscope/report/outcome.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/render.hpp"
#include "importscope/report/report.hpp"
#include "importscope/supervisor/python_locator.hpp"
#include "importscope/supervisor/python_runtime.hpp"
#include "importscope/supervisor/run_dir.hpp"
#include "importscope/supervisor/supervisor.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace importscope::app {

// ---- request ----

/// The request, validated once before anything runs: the one source of what the worker (its
/// plan) and the report (its RunInfo) are told.
struct RunRequest {
    RunOptions options;
    ResolvedTarget resolved;
    supervisor::PythonInstallation python;
    supervisor::PythonRuntime runtime; ///< for a Python target: the worker and libpython it runs on
    InstallLayout layout;
    report::FailOn gate;
    report::Format summary_format = report::Format::text;
    std::string bootstrap_dir;
    std::optional<report::PathRedaction> redaction;
    report::Job job; ///< where in a distributed job the run is (job_place.hpp)
    /// What was at the report's path when the run began: one written there since came from
    /// another run given the same -o, and is not replaced.
    std::optional<FileSnapshot> output_before;

    const report::PathRedaction* redact() const { return redaction ? &*redaction : nullptr; }
    bool is_program() const { return resolved.target.kind == embed::TargetKind::program; }
};

/// Checks everything about `options` that can be checked before running (the target, --timeout,
/// --match, the report's destination, --fail-on, --format, the interpreter and its worker).
/// Throws Error with what is wrong.
RunRequest make_request(const RunOptions& options);

/// What the report says of the request (the run's end is filled in by the collect stage).
report::RunInfo make_run_info(const RunRequest& request);

/// What the worker is told: the target, the patterns, where to journal and report problems.
embed::WorkerPlan make_worker_plan(const RunRequest& request, const supervisor::RunDir& run_dir,
                                   const journal::ProblemInbox& inbox, const journal::SharedJournal* shared);

// ---- launch ----

/// What the launch stage gives the collect stage.
struct Launched {
    supervisor::SupervisedRun end;
    std::int64_t started_ns = 0;
    std::int64_t ended_ns = 0;
    std::vector<std::string> inbox; ///< problems the traced processes sent
    std::string inbox_refused;      ///< datagrams from other users, refused (a note, no failure), or ""
};

/// The worker's own journal in memory shared with it, or null where that cannot be had or where
/// the target's address space is limited: then a file.
std::unique_ptr<journal::SharedJournal> make_shared_journal();

/// Whether a tick of the launch stage found the run busy: the journals gave bytes, or the problem
/// inbox datagrams (also those past the messages it keeps: a flood is drained at the short
/// interval, its senders blocked on the socket's full queue), since the tick before.
class RunActivity {
public:
    /// `journal_bytes` and `datagrams`: the totals so far (JournalTail, ProblemInbox::received).
    bool busy(std::uint64_t journal_bytes, std::size_t datagrams);

private:
    std::uint64_t m_journal_bytes = 0;
    std::size_t m_datagrams = 0;
};

/// The worker under the supervisor, `live` polled every 20 ms meanwhile (every 100 ms while the
/// run is not busy: RunActivity), and the run ended at its first error finding with
/// --stop-on-finding; `polled` called after each poll. `after_start` runs once the worker is
/// started, so as not to delay it (SuperviseOptions::after_start).
Launched launch(const RunRequest& request, const embed::WorkerPlan& plan, journal::ProblemInbox& inbox,
                LiveView& live, const std::function<std::set<int>()>& after_start,
                const std::function<void()>& polled = {});

/// The handshake: why importscope did not get the target started, or empty when it did (or when
/// importscope or its user ended the run first).
std::string start_failure(const std::string& start_words, const ProcessExit& exit, const RunStop& stop, bool program);

/// A start-up that failed after importscope or its user ended the run (a Ctrl-C while site runs):
/// a note for the report, since python itself fails the same way; empty otherwise.
std::string interrupted_start(const std::string& start_words, const RunStop& stop);

/// The program's exec failed (the worker said `exec`, then `failed`): its 126 or 127 is importscope's.
bool program_not_executed(const std::string& start_words);

// ---- collect ----

/// How each process ended, as the supervisor saw it, and what outlived the run and was ended.
void record_ends(report::RunInfo& info, const Launched& launched, const analysis::RunModel& model);

/// What kept importscope from seeing everything: the handshake, the problems the traced processes
/// sent, a journal that filled up, a run directory the target took away.
std::vector<std::string> tool_failures(const Launched& launched, const report::RunInfo& info, bool program,
                                       const supervisor::RunDir& run_dir, const journal::SharedJournal* shared);

/// What the report says of the supervision that is no failure: datagrams from other users refused,
/// a start-up cut short by the user's signal, a guardian the target killed and its replacement.
std::vector<std::string> supervision_notes(const Launched& launched, const report::RunInfo& info);

// ---- analyze ----

/// Content hashes of loaded extensions, each file hashed once for the live and the final analysis.
analysis::FileHasher cached_hasher();

/// The distributions that provide an importable location (collect::DistributionIndex), each
/// directory's metadata read once for the collect stage, which reads it while the target runs, and
/// the final analysis.
analysis::DistributionLookup cached_distributions();

/// The known-issue catalogue of `data_dir`, or nullopt with `problem` saying why not.
std::optional<analysis::KnownIssueCatalogue> read_known_issues(const std::string& data_dir, std::string& problem);

/// The findings, with the known-issue catalogue of `data_dir` (read only when there are findings;
/// a catalogue that cannot be read is a problem of the model), and what they let the analysis
/// conclude (their root causes, the environment reads).
analysis::Conclusions find_hazards(analysis::RunModel& model, const std::string& data_dir,
                                   const analysis::FileHasher& hash_file,
                                   const analysis::DistributionLookup& distribution_of);

/// The Python 3 minors whose children importscope traces: those it has hooks for.
std::vector<int> traced_minors(const InstallLayout& layout);

/// What the supervisor saw of Python programs started, for analysis::find_untraced.
std::vector<ObservedPython> observed_pythons(const supervisor::SupervisedRun& end,
                                             const std::filesystem::path& run_dir);

/// The task launchers (srun, mpirun) of the run outside the journals, for
/// analysis::untraced_launchers: the run's own command when it is one and was executed, and those
/// the supervisor saw running.
std::vector<ObservedLauncher> observed_launchers(const RunRequest& request, const supervisor::SupervisedRun& end);

/// The environment fingerprint, with the versions of the packages that matter for the
/// double-initialization family on the path the fingerprint read, and the distributions of the
/// top-level names the run imported, both read from the metadata by `distribution_of`'s reader.
nlohmann::json describe_environment(nlohmann::json fingerprint_facts, const analysis::RunModel& model,
                                    const analysis::DistributionLookup& distribution_of,
                                    const std::vector<std::string>& env_prefixes);

// ---- report ----

/// The report (but its module records), with the outcome, its secrets and --redact-paths redacted.
/// `not_executed`: the program could not be executed (program_not_executed).
report::Document make_report(const RunRequest& request, const report::RunInfo& info, const analysis::RunModel& model,
                             const analysis::Conclusions& conclusions, const std::vector<std::string>& failures,
                             bool not_executed, report::Outcome& outcome);

/// The report file begun before the target has ended. Once the main process is finalizing (its
/// atexit handlers have run), its module records are final but for the rare import that comes
/// later: they and their frames are written into the file's temporary while the interpreter
/// finalizes, rather than after the exit. Kept if, after the exit, no event has made or changed a
/// record since and the records are in the same order; otherwise dropped, and the report written
/// whole. Only for a file that is replaced (not a device, FIFO or descriptor).
class EarlyReport {
public:
    /// For the run that `collector` follows (it must outlive this).
    /// `before`: what was at the report's path when the run began (RunRequest::output_before).
    EarlyReport(const std::string& output, const report::PathRedaction* redact, const collect::Collector& collector,
                std::optional<FileSnapshot> before = std::nullopt);

    /// Begins the file, once, when the collector's main process is finalizing. A failure only
    /// means the report is written whole later, where the failure is told.
    void offer() noexcept;

    /// Whether the records written are `model`'s, all of them and in its order (the collector has
    /// finished and given the model).
    bool holds(const analysis::RunModel& model) const;

    /// Writes the rest of the report and puts the file in place, or beside a report another run
    /// put there since (write_file_beside_others); after holds(). Returns the path written.
    /// Throws Error.
    std::filesystem::path finish(const report::Document& report);

    /// Removes what was begun (the records did not hold).
    void drop();

private:
    /// Where a record is in the model: its journal (an index into m_journals), pid and order.
    struct Place {
        std::size_t journal;
        int pid;
        std::uint64_t order;
    };
    std::vector<Place> places_of(const std::vector<const analysis::ModuleRecord*>& records);

    std::string m_output;
    const report::PathRedaction* m_redact;
    std::optional<FileSnapshot> m_before;
    const collect::Collector& m_collector;
    bool m_tried = false;
    std::unique_ptr<ReplacingFile> m_file;
    std::unique_ptr<report::ReportWriter> m_writer;
    std::uint64_t m_record_changes = 0; ///< the collector's count when the records were written
    std::vector<std::string> m_journals;
    std::vector<Place> m_places;
};

/// The report file, written atomically (or finished, if `early` holds the model's records), beside
/// a report that another run put at the path since `before` (two ranks given one -o); returns the
/// path written. If it cannot be written, the journals are kept for a later look, with the report
/// as report.json beside them, and the Error says where. A FIFO is waited for to have a reader at
/// most `reader_wait_s`.
std::filesystem::path write_report_file(const std::string& output, const report::Document& report,
                                        const analysis::RunModel& model, const report::PathRedaction* redact,
                                        supervisor::RunDir& run_dir, const journal::SharedJournal* shared,
                                        EarlyReport* early = nullptr, double reader_wait_s = k_reader_wait_s,
                                        const std::optional<FileSnapshot>& before = std::nullopt);

/// The summary on stderr and the last line that says why the exit status is what it is.
void print_outcome(const RunRequest& request, const report::Document& report, const report::Outcome& outcome,
                   const std::filesystem::path& written);

} // namespace importscope::app
