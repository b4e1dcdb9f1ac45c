#pragma once

// Builds hand-made journals for the analysis tests, event by event, as the hooks would write them.

#include "importscope/journal/event.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/journal/record_format.hpp"

#include <optional>
#include <string>
#include <vector>

namespace importscope::testing {

class JournalBuilder {
public:
    explicit JournalBuilder(int pid = 100) : m_pid(pid) { process(pid); }

    JournalBuilder& process(int pid, int ppid = 1, const std::string& start_method = "main",
                            std::int64_t wall_ns = 1'700'000'000'000'000'000)
    {
        m_pid = pid;
        journal::ProcessStart e;
        e.pid = pid;
        e.ppid = ppid;
        e.argv = {"target.py"};
        e.executable = "/usr/bin/python3";
        e.python_version = "3.11.7";
        e.start_method = start_method;
        e.wall_ns = wall_ns;
        add(e);
        return *this;
    }

    /// The finder starts loading `name` from `origin`; returns the import id for end().
    std::uint64_t begin(const std::string& name, const std::string& kind, const std::string& origin,
                        std::optional<journal::FileIdentity> identity = std::nullopt, int line = 1)
    {
        return begin_with(name, kind, origin, identity, {{"/src/importer.py", line, "<module>", "importer"}});
    }

    /// The audit hook sees `name`'s PyInit run from `path`.
    JournalBuilder& extension(const std::string& name, const std::string& path,
                              std::optional<journal::FileIdentity> identity)
    {
        journal::ExtensionLoad e;
        stamp(e);
        e.name = name;
        e.path = path;
        e.realpath = path;
        e.identity = identity;
        add(e);
        return *this;
    }

    /// The import `id` ended; `existing_module`: its extension's init gave back that module.
    JournalBuilder& end(std::uint64_t id, std::optional<journal::ExceptionInfo> error = std::nullopt,
                        const std::string& existing_module = {})
    {
        journal::ImportEnd e;
        e.pid = m_pid;
        e.seq = ++m_seq;
        e.id = id;
        e.mono_ns = static_cast<std::int64_t>(m_seq) * 1000 + 500;
        e.error = std::move(error);
        e.existing_module = existing_module;
        add(e);
        return *this;
    }

    /// sys.path alone would import the top-level `name` from `origin` (empty: from nowhere), and
    /// later entries of sys.path hold `shadowed` too; `matched`: the name matches --match.
    JournalBuilder& installation(const std::string& name, const std::string& origin,
                                 std::vector<std::string> shadowed = {}, bool matched = true)
    {
        journal::Installation e;
        stamp(e);
        e.name = name;
        e.origin = origin;
        e.shadowed = std::move(shadowed);
        e.matched = matched;
        add(e);
        return *this;
    }

    /// A whole extension import through the finder: begin, PyInit, end.
    JournalBuilder& extension_import(const std::string& name, const std::string& path, journal::FileIdentity identity,
                                     std::optional<journal::ExceptionInfo> error = std::nullopt,
                                     const std::string& existing_module = {})
    {
        const auto id = begin(name, "extension", path, identity);
        extension(name, path, identity);
        return end(id, std::move(error), existing_module);
    }

    JournalBuilder& uncaught(const std::string& type, const std::string& message)
    {
        journal::UncaughtException e;
        e.pid = m_pid;
        e.seq = ++m_seq;
        e.exception = {type, message, "Traceback (most recent call last):\n"};
        add(e);
        return *this;
    }

    JournalBuilder& end_of_process(const std::string& how, int code)
    {
        journal::ProcessEnd e;
        e.pid = m_pid;
        e.seq = ++m_seq;
        e.how = how;
        e.code = code;
        e.wall_ns = 1'700'000'001'000'000'000;
        add(e);
        return *this;
    }

    JournalBuilder& program(const std::string& via, const std::string& executable)
    {
        journal::ProgramStart e;
        e.pid = m_pid;
        e.seq = ++m_seq;
        e.via = via;
        e.executable = executable;
        e.argv = {executable};
        add(e);
        return *this;
    }

    /// An import went through `key`, a sys.modules alias of `original`, as a parent package; that
    /// import's stack, and the one that stored the alias.
    JournalBuilder& alias(const std::string& key, const std::string& original, std::vector<journal::Frame> stack = {},
                          std::vector<journal::Frame> set_by = {})
    {
        journal::AliasSeen e;
        stamp(e);
        e.key = key;
        e.module_name = original;
        e.file = "/s/" + original + "/__init__.py";
        e.stack = std::move(stack);
        e.set_by = std::move(set_by);
        add(e);
        return *this;
    }

    /// No finder found the submodule `name`, whose package's directory has `files`, built for
    /// other interpreters.
    JournalBuilder& no_build(const std::string& name, std::vector<std::string> files)
    {
        journal::NoBuild e;
        stamp(e);
        e.name = name;
        e.files = std::move(files);
        e.suffixes = {".cpython-311-x86_64-linux-gnu.so", ".abi3.so", ".so"};
        e.stack = {{"/src/importer.py", 3, "<module>", "importer"}};
        add(e);
        return *this;
    }

    /// The exception of the failed import `id` was seen to have reached `frame`.
    JournalBuilder& caught(std::uint64_t id, journal::Frame frame)
    {
        journal::Caught e;
        stamp(e);
        e.id = id;
        e.frame = std::move(frame);
        add(e);
        return *this;
    }

    /// The process's atexit handlers have run: its interpreter is finalizing.
    JournalBuilder& finalizing()
    {
        journal::Finalizing e;
        stamp(e);
        add(e);
        return *this;
    }

    /// The finder starts loading `name` below `stack`, whose frames may be numbered or given by
    /// number alone, as the hooks write them; returns the import id for end().
    std::uint64_t begin_below(const std::string& name, const std::string& origin, std::vector<journal::Frame> stack)
    {
        return begin_with(name, "source", origin, std::nullopt, std::move(stack));
    }

    /// A record that is no event (its type byte names none), as a damaged journal holds one.
    JournalBuilder& damaged()
    {
        m_records.push_back(journal::framed_record("\x7fnot an event"));
        return *this;
    }

    /// The journal file's bytes, as the supervisor would read them: its header, then the records.
    std::string bytes() const
    {
        std::string records;
        for (const std::string& record : m_records)
            records += record;
        return journal::journal_file_of(records);
    }

    /// Each event's whole record, in the order added (to write them out of order, say).
    const std::vector<std::string>& records() const { return m_records; }

    journal::JournalContents contents(const std::string& source = "journal-100-0.isj") const
    {
        journal::JournalContents contents;
        contents.source = source;
        journal::parse_journal(bytes(), "test journal", contents);
        return contents;
    }

private:
    void add(const journal::Event& event)
    {
        std::string payload;
        journal::encode_record_to(payload, event);
        m_records.push_back(journal::framed_record(payload));
    }

    /// The fields every event but the process start has: this process, the next sequence number, a time.
    template <typename Event>
    void stamp(Event& e)
    {
        e.pid = m_pid;
        e.seq = ++m_seq;
        e.mono_ns = static_cast<std::int64_t>(m_seq) * 1000;
    }

    std::uint64_t begin_with(const std::string& name, const std::string& kind, const std::string& origin,
                             std::optional<journal::FileIdentity> identity, std::vector<journal::Frame> stack)
    {
        journal::ImportBegin e;
        stamp(e);
        e.id = ++m_id;
        e.name = name;
        e.kind = kind;
        e.origin = origin;
        e.realpath = origin;
        e.identity = identity;
        e.stack = std::move(stack);
        add(e);
        return e.id;
    }

    int m_pid;
    std::uint64_t m_seq = 0;
    std::uint64_t m_id = 0;
    std::vector<std::string> m_records;
};

/// The vLLM case: the package aliased at the top only, a submodule run again under the alias,
/// and the extension it imports initialized a second time.
inline JournalBuilder partial_alias_journal()
{
    JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/s/v/deep_gemm/_C.so", {1, 1});
    b.end(b.begin("v.deep_gemm.utils", "source", "/s/v/deep_gemm/utils/__init__.py", journal::FileIdentity{1, 2}));
    b.alias("deep_gemm", "v.deep_gemm");
    const auto again = b.begin("deep_gemm.utils", "source", "/s/v/deep_gemm/utils/__init__.py", journal::FileIdentity{1, 2});
    b.extension_import("deep_gemm._C", "/s/v/deep_gemm/_C.so", {1, 1});
    b.end(again);
    return b;
}

} // namespace importscope::testing
