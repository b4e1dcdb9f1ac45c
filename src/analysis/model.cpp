#include "importscope/analysis/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <variant>

namespace importscope::analysis {

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

/// Per-process state while folding that process's events in sequence order.
class ProcessFolder {
public:
    ProcessFolder(RunModel& model, std::string journal, int pid)
        : m_model(model), m_journal(std::move(journal)), m_pid(pid)
    {
    }

    void operator()(const journal::ProcessStart& e)
    {
        ProcessRecord& p = process();
        p.ppid = e.ppid;
        p.argv = e.argv;
        p.executable = e.executable;
        p.python_version = e.python_version;
        p.cwd = e.cwd;
        p.start_method = e.start_method;
        p.start_wall_ns = e.wall_ns;
    }

    // The events are folded once and dropped: their strings move into the records.
    void operator()(journal::ImportBegin& e)
    {
        ModuleRecord r;
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
        r.stack = std::move(e.stack);
        r.via_finder = true;
        r.status = ImportStatus::incomplete;
        m_open[e.id] = {m_model.modules.size(), e.mono_ns};
        m_model.modules.push_back(std::move(r));
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
        r.duration_ms = static_cast<double>(e.mono_ns - it->second.begin_ns) / 1e6;
        m_open.erase(it);
    }

    void operator()(const journal::ExtensionLoad& e)
    {
        // The audit event fires inside create_module of the loader that is loading it, so the
        // record to attach to is the innermost open one with the same name.
        for (auto it = m_open.rbegin(); it != m_open.rend(); ++it) {
            ModuleRecord& r = m_model.modules[it->second.index];
            if (r.name == e.name) {
                r.initialized_extension = true;
                if (!r.identity)
                    r.identity = e.identity;
                if (r.realpath.empty())
                    r.realpath = e.realpath;
                return;
            }
        }
        ModuleRecord r;
        r.journal = m_journal;
        r.pid = e.pid;
        r.order = e.seq;
        r.name = e.name;
        r.kind = "extension";
        r.origin = e.path;
        r.realpath = e.realpath;
        r.identity = e.identity;
        r.stack = e.stack;
        r.initialized_extension = true;
        m_model.modules.push_back(std::move(r));
    }

    void operator()(const journal::UncaughtException& e) { process().uncaught = e.exception; }

    void operator()(const journal::ProcessEnd& e)
    {
        ProcessEndRecord end;
        end.how = e.how;
        if (e.how == "signal")
            end.signal = e.code;
        else
            end.code = e.code;
        end.wall_ns = e.wall_ns;
        process().end = end;
    }

    void operator()(const journal::ProgramStart& e) { process().programs.push_back(e); }
    void operator()(const journal::Note& e) { m_model.problems.push_back(fmt::format("pid {}: {}", m_pid, e.text)); }
    void operator()(const journal::AliasSeen& e) { m_model.aliases.push_back({m_journal, m_pid, e}); }
    void operator()(const journal::TypeOwners& e) { m_model.type_owners.push_back({m_journal, m_pid, e}); }
    void operator()(const journal::Installation& e) { m_model.installations.push_back({m_journal, m_pid, e}); }

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
    std::map<std::uint64_t, Open> m_open; // ordered by id, so rbegin() is the innermost
};

void fold_journal(RunModel& model, journal::JournalContents& journal)
{
    model.problems.insert(model.problems.end(), journal.problems.begin(), journal.problems.end());

    // Group by process, keeping each process's own event order.
    std::vector<journal::Event*> events;
    events.reserve(journal.events.size());
    for (auto& e : journal.events)
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

    std::size_t i = 0;
    while (i < events.size()) {
        const int pid = pid_of(*events[i]);
        ProcessFolder folder(model, journal.source, pid);
        for (; i < events.size() && pid_of(*events[i]) == pid; ++i)
            std::visit(folder, *events[i]);
    }
    journal.events = {};
}

} // namespace

RunModel build_model(std::vector<journal::JournalContents>&& journals)
{
    RunModel model;
    for (auto& journal : journals) {
        model.journal_bytes += journal.bytes;
        fold_journal(model, journal);
    }

    // Processes in the order they started; modules by process, then load order.
    std::stable_sort(model.processes.begin(), model.processes.end(),
                     [](const ProcessRecord& a, const ProcessRecord& b) { return a.start_wall_ns < b.start_wall_ns; });
    std::map<std::pair<std::string, int>, std::size_t> rank;
    for (std::size_t i = 0; i < model.processes.size(); ++i)
        rank[{model.processes[i].journal, model.processes[i].pid}] = i;

    // Folding leaves each process image's modules together and in load order, so only those runs
    // need ordering, not every record.
    struct Run {
        std::size_t rank, begin, end;
    };
    std::vector<Run> runs;
    for (std::size_t i = 0; i < model.modules.size(); ++i) {
        const ModuleRecord& m = model.modules[i];
        if (runs.empty() || model.modules[runs.back().begin].pid != m.pid ||
            model.modules[runs.back().begin].journal != m.journal)
            runs.push_back({rank[{m.journal, m.pid}], i, i + 1});
        else
            runs.back().end = i + 1;
    }
    std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.rank < b.rank; });
    std::vector<ModuleRecord> ordered;
    ordered.reserve(model.modules.size());
    for (const Run& run : runs)
        for (std::size_t i = run.begin; i < run.end; ++i)
            ordered.push_back(std::move(model.modules[i]));
    model.modules = std::move(ordered);
    return model;
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
