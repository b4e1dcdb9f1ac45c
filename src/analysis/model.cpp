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
    ProcessFolder(RunModel& model, int pid) : m_model(model), m_pid(pid) {}

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

    void operator()(const journal::ImportBegin& e)
    {
        ModuleRecord r;
        r.pid = e.pid;
        r.order = e.seq;
        r.name = e.name;
        r.kind = e.kind;
        r.origin = e.origin;
        r.realpath = e.realpath;
        r.identity = e.identity;
        r.loader = e.loader;
        r.parent = e.parent;
        r.stack = e.stack;
        r.via_finder = true;
        r.status = ImportStatus::incomplete;
        m_open[e.id] = {m_model.modules.size(), e.mono_ns};
        m_model.modules.push_back(std::move(r));
    }

    void operator()(const journal::ImportEnd& e)
    {
        const auto it = m_open.find(e.id);
        if (it == m_open.end()) {
            m_model.problems.push_back(fmt::format("pid {}: end of import #{} without its beginning", m_pid, e.id));
            return;
        }
        ModuleRecord& r = m_model.modules[it->second.index];
        r.status = e.error ? ImportStatus::error : ImportStatus::ok;
        r.error = e.error;
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

private:
    struct Open {
        std::size_t index;
        std::int64_t begin_ns;
    };

    ProcessRecord& process()
    {
        for (auto& p : m_model.processes)
            if (p.pid == m_pid)
                return p;
        ProcessRecord p;
        p.pid = m_pid;
        m_model.processes.push_back(std::move(p));
        return m_model.processes.back();
    }

    RunModel& m_model;
    int m_pid;
    std::map<std::uint64_t, Open> m_open; // ordered by id, so rbegin() is the innermost
};

} // namespace

RunModel build_model(const journal::JournalContents& journal)
{
    RunModel model;
    model.problems = journal.problems;

    // Group by process, keeping each process's own event order.
    std::vector<const journal::Event*> events;
    events.reserve(journal.events.size());
    for (const auto& e : journal.events)
        events.push_back(&e);
    std::map<int, std::size_t> first_seen;
    for (std::size_t i = 0; i < events.size(); ++i)
        first_seen.emplace(pid_of(*events[i]), i);
    std::stable_sort(events.begin(), events.end(), [&](const journal::Event* a, const journal::Event* b) {
        const int pa = pid_of(*a), pb = pid_of(*b);
        if (pa != pb)
            return first_seen[pa] < first_seen[pb];
        return sequence_of(*a) < sequence_of(*b);
    });

    std::size_t i = 0;
    while (i < events.size()) {
        const int pid = pid_of(*events[i]);
        ProcessFolder folder(model, pid);
        for (; i < events.size() && pid_of(*events[i]) == pid; ++i)
            std::visit(folder, *events[i]);
    }
    return model;
}

} // namespace importscope::analysis
