#include "importscope/analysis/model.hpp"
#include "importscope/analysis/event_kinds.hpp"
#include "importscope/util/redact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <deque>
#include <map>
#include <variant>

namespace importscope::analysis {

std::string process_role(const ProcessRecord& process)
{
    if (process.start_method == "main")
        return "main";
    if (process.start_method == "spawn")
        return "spawn worker";
    if (process.start_method == "forkserver")
        return "forkserver worker";
    if (process.start_method == "fork")
        return "fork child";
    const auto runs = [&](std::string_view module) {
        return std::any_of(process.argv.begin(), process.argv.end(),
                           [&](const std::string& word) { return word.find(module) != std::string::npos; });
    };
    if (runs("from multiprocessing.forkserver import main"))
        return "forkserver";
    if (runs("from multiprocessing.resource_tracker import main") || runs("multiprocessing.semaphore_tracker"))
        return "resource tracker";
    return "subprocess";
}

std::vector<journal::Frame> ModuleRecord::stack_frames() const
{
    std::vector<journal::Frame> frames;
    frames.reserve(stack.size());
    for (const journal::SharedFrame& frame : stack)
        frames.push_back(*frame);
    return frames;
}

const char* to_string(ImportStatus status)
{
    switch (status) {
    case ImportStatus::ok:
        return "ok";
    case ImportStatus::error:
        return "error";
    case ImportStatus::incomplete:
        return "incomplete";
    case ImportStatus::unknown:
        return "unknown";
    }
    return "unknown";
}

namespace {

std::uint64_t sequence_of(const journal::Event& event)
{
    return std::visit(
        [](const auto& e) -> std::uint64_t {
            if constexpr (std::is_same_v<std::decay_t<decltype(e)>, journal::ProcessStart>)
                return 0;
            else
                return e.seq;
        },
        event);
}

int pid_of(const journal::Event& event)
{
    return std::visit([](const auto& e) { return e.pid; }, event);
}

/// A module record's stack: each numbered frame the journal's table holds, shared; one the event
/// gives whole and unnumbered (or read without a table), a frame of its own.
std::vector<journal::SharedFrame> shared_stack(std::vector<journal::Frame>& stack, const journal::FrameTable* frames)
{
    std::vector<journal::SharedFrame> shared;
    shared.reserve(stack.size());
    for (journal::Frame& frame : stack) {
        if (frames && frame.number != 0)
            shared.push_back(frames->shared(frame.number)); // the reader checked that the table holds it
        else
            shared.push_back(std::make_shared<const journal::Frame>(std::move(frame)));
    }
    return shared;
}

/// Walks an event's fields by its own declaration (`fields`) and makes every frame of its stacks
/// that names one by number whole, from the journal's table: no stack of any event is missed.
class KnownFrameCopier {
public:
    explicit KnownFrameCopier(const journal::FrameTable& frames) : m_frames(frames) {}

    template <typename T>
    void required(std::string_view, T& value)
    {
        copy_into(value);
    }
    template <typename T>
    void field(std::string_view, T& value)
    {
        copy_into(value);
    }
    template <typename T>
    void optional(std::string_view, std::optional<T>& value)
    {
        if (value)
            copy_into(*value);
    }
    template <typename T>
    void nullable(std::string_view, std::optional<T>& value)
    {
        if (value)
            copy_into(*value);
    }

private:
    void copy_into(std::vector<journal::Frame>& stack)
    {
        for (journal::Frame& frame : stack)
            if (frame.known)
                frame = m_frames.at(frame.number);
    }
    template <typename T>
    void copy_into(T&)
    {
    }

    const journal::FrameTable& m_frames;
};

/// The events the model keeps as they are (an alias, a missing build, sys.path's entries, ...)
/// with every frame whole; a module record's stack (ImportBegin's, ExtensionLoad's) shares the
/// table's frames instead (shared_stack).
void copy_known_frames(journal::Event& event, const journal::FrameTable* frames)
{
    if (!frames)
        return;
    std::visit(
        [&](auto& e) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (!std::is_same_v<E, journal::ImportBegin> && !std::is_same_v<E, journal::ExtensionLoad>) {
                KnownFrameCopier copier(*frames);
                E::fields(copier, e);
            }
        },
        event);
}

/// Per-process state while folding that process's events in sequence order, into the records of
/// its journal's part of the model.
class ProcessFolder {
public:
    ProcessFolder(RunModel& part, std::string journal, int pid)
        : m_model(part), m_journal(std::move(journal)), m_pid(pid)
    {
    }

    /// The table of the frames that the next events' stacks name by number, or null.
    void use_frames(const journal::FrameTable* frames) { m_frames = frames; }

    void operator()(journal::ProcessStart& e)
    {
        ProcessRecord& p = process();
        p.ppid = e.ppid;
        p.argv = std::move(e.argv);
        p.executable = std::move(e.executable);
        p.python_version = std::move(e.python_version);
        p.cwd = std::move(e.cwd);
        p.start_method = std::move(e.start_method);
        p.start_wall_ns = e.wall_ns;
    }

    // The events are folded once and dropped: their strings move into the records.
    void operator()(journal::ImportBegin& e)
    {
        m_open[e.id] = {m_model.modules.size(), e.mono_ns};
        ModuleRecord& r = m_model.modules.emplace_back(); // made in place: a record is some 500 bytes
        r.journal = m_journal;
        r.pid = e.pid;
        r.order = e.seq;
        r.name = std::move(e.name);
        r.kind = std::move(e.kind);
        r.origin = std::move(e.origin);
        r.realpath = std::move(e.realpath);
        r.identity = e.identity;
        r.loader = std::move(e.loader);
        r.parent = std::move(e.parent);
        r.stack = shared_stack(e.stack, m_frames);
        r.stdlib = e.stdlib;
        r.late = e.late;
        r.via_finder = !e.by_path;
        r.by_path = e.by_path;
        r.status = ImportStatus::incomplete;
    }

    void operator()(journal::ImportEnd& e)
    {
        const auto it = m_open.find(e.id);
        if (it == m_open.end()) {
            m_model.problems.push_back(fmt::format("pid {}: end of import #{} without its beginning", m_pid, e.id));
            return;
        }
        ModuleRecord& r = m_model.modules[it->second.index];
        r.status = e.error ? ImportStatus::error : ImportStatus::ok;
        r.error = std::move(e.error);
        for (auto& warning : e.warnings)
            r.warnings.push_back(redact_text(warning));
        r.existing_module = std::move(e.existing_module);
        if (r.error) { // an error's text may quote a URL with its password, or a token
            r.error->message = redact_text(r.error->message);
            r.error->traceback = redact_text(r.error->traceback);
        }
        if (!r.late)
            r.duration_ms = (static_cast<double>(e.mono_ns) - static_cast<double>(it->second.begin_ns)) /
                            1e6; // in doubles: a damaged journal's times may be any two integers
        if (r.error)
            m_failed[e.id] = it->second.index;
        m_open.erase(it);
    }

    void operator()(journal::ExtensionLoad& e)
    {
        // The audit event fires inside create_module of the loader that is loading it, so the
        // record to attach to is the innermost open one with the same name.
        for (auto it = m_open.rbegin(); it != m_open.rend(); ++it) {
            ModuleRecord& r = m_model.modules[it->second.index];
            if (r.name == e.name) {
                r.initialized_extension = !e.no_init;
                if (!r.identity)
                    r.identity = e.identity;
                if (r.realpath.empty())
                    r.realpath = std::move(e.realpath);
                return;
            }
        }
        ModuleRecord r;
        r.journal = m_journal;
        r.pid = e.pid;
        r.order = e.seq;
        r.name = std::move(e.name);
        r.kind = "extension";
        r.origin = std::move(e.path);
        r.realpath = std::move(e.realpath);
        r.identity = e.identity;
        r.stack = shared_stack(e.stack, m_frames);
        r.initialized_extension = !e.no_init;
        m_model.modules.push_back(std::move(r));
    }

    void operator()(journal::UncaughtException& e) { process().uncaught = std::move(e.exception); }

    void operator()(const journal::ProcessEnd& e)
    {
        const std::optional<ExitKnownBy> how = exit_known_by(e.how);
        if (!how || *how == ExitKnownBy::waited || *how == ExitKnownBy::reaped || *how == ExitKnownBy::killed) {
            m_model.problems.push_back(fmt::format(
                "pid {}: its end is recorded as \"{}\", which is none of exit, os._exit and signal: left out", m_pid,
                e.how));
            return;
        }
        ProcessExit end;
        end.how = *how;
        if (*how == ExitKnownBy::signal)
            end.signal = e.code;
        else
            end.code = e.code;
        process().end = end;
        process().end_wall_ns = e.wall_ns;
    }

    void operator()(journal::ProgramStart& e)
    {
        auto& programs = process().programs;
        // subprocess.Popen on CPython 3.13 starts many children through os.posix_spawn, whose
        // audit event comes right after Popen's (the next event of the process) for the same
        // program: one start, not two.
        if (e.via == "os.posix_spawn" && !programs.empty() && programs.back().via == "subprocess.Popen" &&
            programs.back().seq + 1 == e.seq && programs.back().argv == e.argv)
            return;
        programs.push_back(std::move(e));
    }
    void operator()(journal::WorkerProcess& e) { process().worker = std::move(e); }
    void operator()(journal::EnvironmentRead& e) { process().environment_reads.push_back(std::move(e)); }
    void operator()(const journal::Note& e) { m_model.problems.push_back(fmt::format("pid {}: {}", m_pid, e.text)); }
    void operator()(const journal::Finalizing&) { process().finalizing = true; }
    void operator()(journal::AliasSeen& e) { m_model.aliases.push_back({m_journal, m_pid, std::move(e)}); }
    void operator()(journal::TypeOwners& e) { m_model.type_owners.push_back({m_journal, m_pid, std::move(e)}); }
    void operator()(journal::Installation& e) { m_model.installations.push_back({m_journal, m_pid, std::move(e)}); }
    void operator()(journal::NoBuild& e) { m_model.missing_builds.push_back({m_journal, m_pid, std::move(e)}); }
    void operator()(journal::SysPathEntries& e) { m_model.sys_path.push_back({m_journal, m_pid, std::move(e)}); }
    void operator()(journal::Caught& e)
    {
        if (const auto it = m_failed.find(e.id); it != m_failed.end())
            m_model.modules[it->second].caught_at = std::make_shared<const journal::Frame>(std::move(e.frame));
    }

private:
    struct Open {
        std::size_t index;
        std::int64_t begin_ns;
    };

    ProcessRecord& process()
    {
        for (auto& p : m_model.processes)
            if (p.pid == m_pid && p.journal == m_journal)
                return p;
        ProcessRecord p;
        p.journal = m_journal;
        p.pid = m_pid;
        m_model.processes.push_back(std::move(p));
        return m_model.processes.back();
    }

    RunModel& m_model;
    std::string m_journal;
    int m_pid;
    const journal::FrameTable* m_frames = nullptr;
    std::map<std::uint64_t, Open> m_open; // ordered by id, so rbegin() is the innermost
    std::map<std::uint64_t, std::size_t> m_failed; ///< the records of the imports that raised, by id
};

/// A journal's events in the order folding wants them: by process (in order of first
/// appearance), then by sequence number. A process writes its lines in sequence order but for the
/// odd event that gets its number before Python code runs and its line after.
std::vector<journal::Event*> in_sequence(std::vector<journal::Event>& journal_events)
{
    std::vector<journal::Event*> events;
    events.reserve(journal_events.size());
    for (auto& e : journal_events)
        events.push_back(&e);
    std::map<int, std::size_t> first_seen;
    for (std::size_t i = 0; i < events.size(); ++i)
        first_seen.emplace(pid_of(*events[i]), i);
    std::stable_sort(events.begin(), events.end(), [&](journal::Event* a, journal::Event* b) {
        const int pa = pid_of(*a), pb = pid_of(*b);
        if (pa != pb)
            return first_seen[pa] < first_seen[pb];
        return sequence_of(*a) < sequence_of(*b);
    });
    return events;
}

template <typename Records>
void append(Records& to, Records& from)
{
    if (to.empty()) // the usual case, one journal: no record moves
        to = std::move(from);
    else
        to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

template <typename Records>
auto pointers_to(const Records& records)
{
    std::vector<const typename Records::value_type*> pointers;
    pointers.reserve(records.size());
    for (const auto& r : records)
        pointers.push_back(&r);
    return pointers;
}

bool started_before(const ProcessRecord& a, const ProcessRecord& b)
{
    return a.start_wall_ns < b.start_wall_ns;
}

/// The order of `modules` in a model: by the place of their process among `processes` (in the
/// order they started), then in load order; empty when they are in that order already. Each
/// journal's records are in its order unless a line was written out of its sequence.
std::vector<std::size_t> load_order(const std::vector<const ProcessRecord*>& processes,
                                    const std::vector<const ModuleRecord*>& modules)
{
    std::map<std::pair<std::string_view, int>, std::size_t> rank;
    for (std::size_t i = 0; i < processes.size(); ++i)
        rank[{processes[i]->journal, processes[i]->pid}] = i;
    struct Place {
        std::size_t rank;
        std::uint64_t order;
        std::size_t index;
    };
    std::vector<Place> places;
    places.reserve(modules.size());
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const ModuleRecord& m = *modules[i];
        if (i > 0 && m.pid == modules[i - 1]->pid && m.journal == modules[i - 1]->journal)
            places.push_back({places.back().rank, m.order, i});
        else
            places.push_back({rank[{m.journal, m.pid}], m.order, i});
    }
    const auto before = [](const Place& a, const Place& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.order < b.order;
    };
    if (std::is_sorted(places.begin(), places.end(), before))
        return {};
    std::stable_sort(places.begin(), places.end(), before);
    std::vector<std::size_t> order;
    order.reserve(places.size());
    for (const Place& place : places)
        order.push_back(place.index);
    return order;
}

} // namespace

/// One journal's part of the model: its records, folded by one ProcessFolder per pid.
struct ModelBuilder::Part {
    std::string journal;
    RunModel model;
    std::map<int, ProcessFolder> folders;
    bool taken = false; ///< finish() has given it to the model

    void add(journal::Event& event, const journal::FrameTable* frames)
    {
        const int pid = pid_of(event);
        auto it = folders.find(pid);
        if (it == folders.end())
            it = folders.try_emplace(pid, model, journal, pid).first;
        copy_known_frames(event, frames);
        it->second.use_frames(frames);
        std::visit(it->second, event);
    }
};

ModelBuilder::ModelBuilder() = default;

ModelBuilder::~ModelBuilder() = default;

ModelBuilder::Part& ModelBuilder::part(const std::string& journal)
{
    // Most events are of the journal before: look there first.
    if (!m_parts.empty() && m_parts.back()->journal == journal && !m_parts.back()->taken)
        return *m_parts.back();
    for (auto& p : m_parts)
        if (p->journal == journal && !p->taken)
            return *p;
    m_parts.push_back(std::make_unique<Part>());
    m_parts.back()->journal = journal;
    return *m_parts.back();
}

void ModelBuilder::add(const std::string& journal, journal::Event&& event, const journal::FrameTable* frames)
{
    fold(part(journal), event, frames);
}

void ModelBuilder::fold(Part& p, journal::Event& event, const journal::FrameTable* frames)
{
    // The events that make or change a module record (what the report writes early), which is not
    // what makes a finding (finders.hpp): an alias or an installation changes none.
    static constexpr EventKinds k_module_record_events =
        EventKinds::of<journal::ImportBegin, journal::ImportEnd, journal::ExtensionLoad, journal::Caught>();
    if (k_module_record_events.contains(event))
        ++m_record_changes;
    p.add(event, frames);
}

const RunModel* ModelBuilder::part_model(const std::string& journal) const
{
    for (const auto& p : m_parts)
        if (p->journal == journal && !p->taken)
            return &p->model;
    return nullptr;
}

RunModel ModelBuilder::finish(std::vector<journal::JournalContents>&& journals)
{
    RunModel model;
    auto take = [&](Part& p, std::vector<std::string>&& read_problems) {
        p.taken = true;
        append(model.problems, read_problems); // the journal's damaged lines, then what folding found
        append(model.problems, p.model.problems);
        append(model.processes, p.model.processes);
        append(model.modules, p.model.modules);
        append(model.aliases, p.model.aliases);
        append(model.type_owners, p.model.type_owners);
        append(model.installations, p.model.installations);
        append(model.missing_builds, p.model.missing_builds);
        append(model.sys_path, p.model.sys_path);
    };
    for (auto& journal : journals) {
        Part& p = part(journal.source);
        for (journal::Event* e : in_sequence(journal.events))
            fold(p, *e, nullptr);
        journal.events = {};
        model.journal_bytes += journal.bytes;
        take(p, std::move(journal.problems));
    }
    for (auto& p : m_parts)
        if (!p->taken)
            take(*p, {});
    m_parts.clear();

    // Processes in the order they started; modules by process, then load order.
    std::stable_sort(model.processes.begin(), model.processes.end(), started_before);
    const std::vector<std::size_t> order = load_order(pointers_to(model.processes), pointers_to(model.modules));
    if (!order.empty()) {
        std::deque<ModuleRecord> ordered;
        for (const std::size_t index : order)
            ordered.push_back(std::move(model.modules[index]));
        model.modules = std::move(ordered);
    }
    return model;
}

std::vector<const ModuleRecord*> ModelBuilder::modules_in_order() const
{
    std::vector<const ProcessRecord*> processes;
    std::vector<const ModuleRecord*> modules;
    for (const auto& p : m_parts) {
        for (const ProcessRecord& process : p->model.processes)
            processes.push_back(&process);
        for (const ModuleRecord& module : p->model.modules)
            modules.push_back(&module);
    }
    std::stable_sort(processes.begin(), processes.end(),
                     [](const ProcessRecord* a, const ProcessRecord* b) { return started_before(*a, *b); });
    const std::vector<std::size_t> order = load_order(processes, modules);
    if (order.empty())
        return modules;
    std::vector<const ModuleRecord*> ordered;
    ordered.reserve(modules.size());
    for (const std::size_t index : order)
        ordered.push_back(modules[index]);
    return ordered;
}

bool ModelBuilder::main_finalizing() const
{
    for (const auto& p : m_parts)
        for (const ProcessRecord& process : p->model.processes)
            if (process.start_method == "main" && process.finalizing)
                return true;
    return false;
}

RunModel build_model(std::vector<journal::JournalContents>&& journals)
{
    return ModelBuilder().finish(std::move(journals));
}

RunModel build_model(const std::vector<journal::JournalContents>& journals)
{
    return build_model(std::vector<journal::JournalContents>(journals));
}

RunModel build_model(const journal::JournalContents& journal)
{
    return build_model(std::vector<journal::JournalContents>{journal});
}

} // namespace importscope::analysis
