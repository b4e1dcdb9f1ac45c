#pragma once

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/analysis/untraced.hpp"

#include "importscope/util/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace importscope::report {

inline constexpr const char* k_schema = "importscope.report/1";

/// How the target process ended, as its supervisor saw it.
struct ExitInfo {
    std::optional<int> code;   ///< exit status when it exited
    std::optional<int> signal; ///< signal number when a signal ended it
    bool core_dumped = false;
    bool timed_out = false;              ///< importscope ended it because --timeout passed
    bool stopped_on_finding = false;     ///< importscope ended it at the first error finding
    std::optional<int> forwarded_signal; ///< SIGINT/SIGTERM that importscope received and passed on
    /// How the end became known: "" for the main process (waited for), "exit", "os._exit" or
    /// "signal" (recorded by the process itself), "reaped" (an orphan importscope waited for),
    /// "killed" (a straggler importscope ended).
    std::string how;
};

/// What the supervisor knows about the run, beside the journal.
struct RunInfo {
    std::vector<std::string> argv; ///< importscope's own command line
    std::string cwd;
    std::string host;
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
    ExitInfo exit;
    bool follow = true;
    /// Ends of other processes that importscope saw itself: orphans it reaped, stragglers it killed.
    std::map<int, ExitInfo> seen_ends;
    /// The environment fingerprint (supervisor::collect_environment), or null.
    nlohmann::json environment;
    /// Python processes that traced processes started and that were not traced (analysis::find_untraced).
    std::vector<analysis::UntracedProcess> untraced;
};

/// "SIGABRT" for 6; "signal 77" for a number without a name.
std::string signal_name(int signal);

/// One phrase for how the target ended: "exited with status 3", "killed by SIGABRT (core dumped)".
std::string describe_exit(const ExitInfo& exit);

/// Whether build_report puts the module records into the tree.
enum class ModuleRecords {
    included, ///< the whole report as one JSON tree
    deferred, ///< "modules" is left empty, for dump_report to write straight from the model
};

/// The JSON report (docs/report-format.md); keys sorted, arrays in a defined order.
nlohmann::json build_report(const RunInfo& run, const analysis::RunModel& model,
                            const std::vector<analysis::Finding>& findings,
                            ModuleRecords modules = ModuleRecords::included);

class PathRedaction;

/// The text of module records made ahead, while the run goes on: the supervisor hands each record
/// here as it becomes final (analysis::ModelBuilder::OnFinal), on its own core, and write_report()
/// copies the texts instead of writing the records after the target ended.
class RecordTexts {
public:
    /// Each string passes through `redaction`, if given, which must outlive this.
    explicit RecordTexts(const PathRedaction* redaction = nullptr);
    ~RecordTexts();
    RecordTexts(const RecordTexts&) = delete;
    RecordTexts& operator=(const RecordTexts&) = delete;

    /// Makes the text of a final record.
    void add(const analysis::ModuleRecord& record);

    /// How many records have a text.
    std::size_t size() const;

    struct State;

private:
    friend void write_report(const nlohmann::json&, const analysis::RunModel&, const PathRedaction*, const TextSink&,
                             const RecordTexts*);
    const PathRedaction* m_redaction;
    std::unique_ptr<State> m_state;
};

/// The report file's text: `report` (built with ModuleRecords::deferred) as dump(2) writes it, with
/// the modules of `model` written into its "modules" array straight from the records, each string
/// passed through `redaction` if given. The text is the one build_report(..., included).dump(2)
/// gives, without a JSON tree of every record: a run of 100,000 imports would need gigabytes.
std::string dump_report(const nlohmann::json& report, const analysis::RunModel& model,
                        const PathRedaction* redaction = nullptr);

/// The same text, handed to `sink` a megabyte or so at a time, for write_file_atomically. With
/// `made`, filled from the records of this same model with this same redaction, a record whose text
/// it holds is copied from there.
void write_report(const nlohmann::json& report, const analysis::RunModel& model, const PathRedaction* redaction,
                  const TextSink& sink, const RecordTexts* made = nullptr);

/// "2026-11-30T12:34:56.789Z" for nanoseconds since the epoch.
std::string iso_time(std::int64_t wall_ns);

} // namespace importscope::report
