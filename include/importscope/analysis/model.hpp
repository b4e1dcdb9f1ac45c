#pragma once

#include "importscope/journal/event.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/util/process_facts.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

/// The run as the analysis sees it: journal events folded into one record per process and one per
/// module load. Pure C++: no Python, so it is unit-tested on hand-made journals.
namespace importscope::analysis {

/// How a recorded import ended.
enum class ImportStatus {
    ok,         ///< the loader returned normally
    error,      ///< create_module or exec_module raised; `error` says what
    incomplete, ///< begun but never finished: the process ended inside this import
    unknown,    ///< seen only by the audit hook (a load that bypassed sys.meta_path)
};

const char* to_string(ImportStatus status);

struct ModuleRecord {
    std::string journal; ///< the process image's journal (a pid can exec Python twice)
    int pid = 0;
    std::uint64_t order = 0; ///< position in its process's event sequence
    std::string name;
    std::string kind;
    std::string origin;
    std::string realpath;
    std::optional<journal::FileIdentity> identity;
    std::string loader;
    std::string parent;
    ImportStatus status = ImportStatus::unknown;
    std::optional<journal::ExceptionInfo> error;
    std::vector<std::string> warnings; ///< what an extension's init warned ("RuntimeWarning: ...")
    /// The module an extension's init gave back instead of making one (Cython's guard), by name.
    std::string existing_module;
    std::optional<double> duration_ms;
    /// For a load that raised: the outermost frame its exception reached (journal::Caught); null
    /// for most records, which take a pointer's room for it.
    journal::SharedFrame caught_at;
    /// Innermost last; back() is the call site. A journal's numbered frame is one object that
    /// all the stacks holding it share (journal::FrameTable::shared).
    std::vector<journal::SharedFrame> stack;
    bool via_finder = false;            ///< the meta-path finder saw it
    bool by_path = false;               ///< an extension loaded by path, outside sys.meta_path
    bool initialized_extension = false; ///< the audit hook saw CPython run its PyInit
    bool stdlib = false;                ///< its top-level package is the standard library's
    bool late = false; ///< recorded when a second name found its file: no stack and no duration

    const journal::Frame* call_site() const { return stack.empty() ? nullptr : stack.back().get(); }
    /// The stack, each frame copied: for evidence.
    std::vector<journal::Frame> stack_frames() const;
    /// The file that was loaded: its real path when known, else the path it was found at.
    const std::string& file() const { return realpath.empty() ? origin : realpath; }
};

struct ProcessRecord {
    std::string journal; ///< the journal it wrote: one per process image
    int pid = 0;
    int ppid = 0;
    std::vector<std::string> argv;
    std::string executable;
    std::string python_version;
    std::string cwd;
    std::string start_method;
    std::int64_t start_wall_ns = 0;
    std::optional<journal::ExceptionInfo> uncaught; ///< the exception that reached sys.excepthook
    std::optional<ProcessExit> end;                 ///< as it recorded it; none when killed without a word (SIGKILL)
    std::int64_t end_wall_ns = 0;                   ///< when it recorded its end
    std::vector<journal::ProgramStart> programs;    ///< programs it started (exec, subprocess, ...)
    std::optional<journal::WorkerProcess> worker;   ///< what multiprocessing said of it, for one of its workers
    /// The environment variables it read, each first read from each line that read it, in order.
    std::vector<journal::EnvironmentRead> environment_reads;
    bool finalizing = false; ///< its atexit handlers had run: its interpreter was finalizing
};

/// What the process was to the run: "main", "spawn worker", "forkserver worker", "fork child",
/// "forkserver" (multiprocessing's server), "resource tracker", or "subprocess" (any other program
/// that a traced process started).
std::string process_role(const ProcessRecord& process);

/// A diagnostic event with the process image it came from.
template <typename Event>
struct InProcess {
    std::string journal;
    int pid = 0;
    Event event;
};

struct RunModel {
    std::vector<ProcessRecord> processes; ///< in order of first appearance
    /// By pid, then order. A deque: a record stays where it was made while more come, where a
    /// vector would move every record each time it grew (thousands in a run under --match '*').
    std::deque<ModuleRecord> modules;
    std::vector<std::string> problems;    ///< damaged journal lines and other gaps in the record
    std::vector<InProcess<journal::AliasSeen>> aliases;
    std::vector<InProcess<journal::TypeOwners>> type_owners;
    std::vector<InProcess<journal::Installation>> installations;
    std::vector<InProcess<journal::NoBuild>> missing_builds;
    std::vector<InProcess<journal::SysPathEntries>> sys_path; ///< sys.path at each start, and what was added
    std::uint64_t journal_bytes = 0; ///< the journals' size, all processes together
};

/// Folds journal events into records as they come: pairs begin/end by id, attaches each
/// extension-load audit event to the finder record that was loading it, and keeps loads the finder
/// never saw. The supervisor feeds it each event as the journal tail reads it during the run, so
/// that little is left to fold when the target ends.
class ModelBuilder {
public:
    ModelBuilder();
    ~ModelBuilder();
    ModelBuilder(const ModelBuilder&) = delete;
    ModelBuilder& operator=(const ModelBuilder&) = delete;

    /// Folds the next event of the journal named `journal`, taking its strings. A journal's events
    /// come in the order it holds them. `frames`, the journal's frame table when the event was read
    /// with journal::KnownFrames::by_number, gives the frames its stacks name by number.
    void add(const std::string& journal, journal::Event&& event, const journal::FrameTable* frames = nullptr);

    /// The model, from what add() folded and from `journals` (one per journal, in the order the
    /// report lists them): their problems and sizes, and the events they still hold, folded in
    /// each process's sequence order. A journal add() saw and `journals` does not name comes last.
    /// Processes come out in order of their start, modules by process, then in load order.
    RunModel finish(std::vector<journal::JournalContents>&& journals);

    /// What add() has folded so far of the journal named `journal` (its records in the order
    /// they began, the open ones with status unknown), or null for a journal it has not seen.
    const RunModel* part_model(const std::string& journal) const;

    /// The module records folded so far, in the order finish() would give them if nothing more
    /// came; valid until the next add().
    std::vector<const ModuleRecord*> modules_in_order() const;

    /// How many of the events folded so far made or changed a module record: while it stays the
    /// same, so do the records, whatever else comes.
    std::uint64_t record_changes() const { return m_record_changes; }

    /// Whether the main process (start method "main") is finalizing: its atexit handlers have run.
    bool main_finalizing() const;

private:
    struct Part;
    Part& part(const std::string& journal);
    void fold(Part& p, journal::Event& event, const journal::FrameTable* frames);

    std::uint64_t m_record_changes = 0;
    std::vector<std::unique_ptr<Part>> m_parts; ///< in order of first appearance
};

/// The batch form of ModelBuilder: every journal's events, folded at once. Each journal is one
/// process image.
RunModel build_model(const std::vector<journal::JournalContents>& journals);
/// The same, taking the events' strings instead of copying them, and dropping each journal's events
/// once folded: what the supervisor does with a run's journals.
RunModel build_model(std::vector<journal::JournalContents>&& journals);
RunModel build_model(const journal::JournalContents& journal);

} // namespace importscope::analysis
