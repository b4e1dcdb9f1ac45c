#include "importscope/analysis/finding.hpp"
#include "importscope/journal/pybind11_message.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

namespace importscope::analysis {

namespace {

const ProcessRecord* process_of(const RunModel& model, const std::string& journal, int pid)
{
    for (const auto& p : model.processes)
        if (p.journal == journal && p.pid == pid)
            return &p;
    return nullptr;
}

/// Whether the process ended with an uncaught exception that says `text` (itself, or one raised
/// from it): then the failure was not survived, and the crash tells of it.
bool ended_by(const ProcessRecord* process, std::string_view text)
{
    if (!process || !process->uncaught || text.empty())
        return false;
    return process->uncaught->message.find(text) != std::string::npos ||
           process->uncaught->traceback.find(text) != std::string::npos;
}

/// Why the dynamic loader or CPython refused the file, from the error's text.
std::string reason_of(std::string_view message)
{
    if (message.find("cannot open shared object file") != std::string_view::npos)
        return "missing-library";
    if (message.find("undefined symbol") != std::string_view::npos)
        return "undefined-symbol";
    if (message.find("does not define module export function") != std::string_view::npos)
        return "no-init-function";
    return "load-error";
}

std::string advice_for(const std::string& reason, const ModuleRecord& r)
{
    if (reason == "missing-library")
        return fmt::format("Install the shared library the error names, or put its directory on the loader's path "
                           "(LD_LIBRARY_PATH); `ldd {}` lists every library the file needs and which are missing.",
                           r.file());
    if (reason == "undefined-symbol")
        return "The extension was built against other versions of the libraries it links (or of the package it "
               "extends): install the build that matches them, or rebuild it against the ones installed.";
    if (reason == "no-init-function")
        return fmt::format("The file is not the module {} (its PyInit has another name): the import reached a "
                           "file that was renamed or put under another package.",
                           r.name);
    return "Fix the load error above, or make the program fail loudly when the extension is missing.";
}

/// The ABI tag of an extension's file name: "cpython-312-x86_64-linux-gnu" in
/// "_C.cpython-312-x86_64-linux-gnu.so", "abi3" in "_C.abi3.so".
std::string abi_tag(std::string_view path, std::string_view stem)
{
    std::string_view file = path.substr(path.rfind('/') + 1);
    if (!file.starts_with(stem) || !file.ends_with(".so") || file.size() < stem.size() + 4)
        return {};
    file = file.substr(stem.size() + 1, file.size() - stem.size() - 4);
    return std::string(file);
}

/// "CPython 3.12 (cpython-312-x86_64-linux-gnu)" for a CPython tag; any other tag as it is.
std::string interpreter_of(const std::string& tag)
{
    constexpr std::string_view head = "cpython-3";
    const std::size_t dash = tag.find('-', head.size());
    if (!tag.starts_with(head) || dash == std::string::npos || dash == head.size())
        return tag;
    const std::string minor = tag.substr(head.size(), dash - head.size());
    if (!std::all_of(minor.begin(), minor.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return tag; // "312d", a debug build's: as it is
    return fmt::format("CPython 3.{} ({})", minor, tag);
}

Finding failed_load(const ModuleRecord& r)
{
    const std::string reason = reason_of(r.error->message);
    Finding f;
    f.kind = "extension-load-failed";
    f.severity = Severity::warning;
    f.pid = r.pid;
    f.module_names = {r.name};
    f.file = r.file();
    const std::string caught =
        r.caught_at ? fmt::format(" ({} caught it at {}:{})", r.caught_at->function, r.caught_at->file, r.caught_at->line)
                    : std::string();
    f.message = fmt::format("{} failed to load ({}: {}), and the program went on without it{}", r.name,
                            r.error->type, r.error->message, caught);
    f.explanation = "An extension that cannot be loaded, when the program catches the ImportError, leaves its "
                    "package on a fallback path or with a feature off, and nothing fails: vLLM's DeepGEMM kernels, "
                    "for one, only log that the backend is not available. Loads fail when the file needs a shared "
                    "library that is not on the loader's path, refers to a symbol the loaded libraries do not "
                    "define, or was built for another interpreter.";
    f.advice = advice_for(reason, r);
    LoadFailedEvidence evidence;
    evidence.reason = reason;
    evidence.module = r.name;
    evidence.error = ErrorText{r.error->type, r.error->message, {}};
    if (const journal::Frame* site = r.call_site())
        evidence.import_site = *site;
    if (r.caught_at)
        evidence.caught_at = *r.caught_at;
    f.evidence = std::move(evidence);
    return f;
}

Finding missing_build(const InProcess<journal::NoBuild>& missing)
{
    const journal::NoBuild& e = missing.event;
    const std::string stem = e.name.substr(e.name.rfind('.') + 1);
    std::set<std::string> builds;
    for (const auto& file : e.files)
        builds.insert(interpreter_of(abi_tag(file, stem)));
    const std::string site =
        e.stack.empty() ? std::string() : fmt::format(" (imported at {}:{})", e.stack.back().file, e.stack.back().line);
    Finding f;
    f.kind = "extension-load-failed";
    f.severity = Severity::warning;
    f.pid = missing.pid;
    f.module_names = {e.name};
    f.file = e.files.front();
    f.message = fmt::format("{} was not found: its package has it built for {} only, which this interpreter does "
                            "not load (it loads {}), and the program went on without it{}",
                            e.name, fmt::join(builds, ", "), fmt::join(e.suffixes, " "), site);
    f.explanation = "A package that ships its extension built per interpreter has no build for this one, so the "
                    "import finds no module; a program that catches the ImportError carries on on a fallback path "
                    "or with a feature off, and nothing fails.";
    f.advice = fmt::format("Install the build of {} made for this interpreter (the file would end in {}), or run "
                           "the interpreter it was built for.",
                           e.name.substr(0, e.name.find('.')), e.suffixes.empty() ? ".so" : e.suffixes.front());
    LoadFailedEvidence evidence;
    evidence.reason = "no-build-for-this-interpreter";
    evidence.module = e.name;
    evidence.files = e.files;
    evidence.suffixes = e.suffixes;
    if (!e.stack.empty())
        evidence.import_site = e.stack.back();
    f.evidence = std::move(evidence);
    return f;
}

} // namespace

std::vector<Finding> find_failed_extension_loads(const RunModel& model, const std::vector<Finding>& duplicates)
{
    std::set<std::tuple<int, std::string>> explained; // loads that another finding explains
    for (const auto& d : duplicates)
        for (const auto& name : d.module_names)
            explained.emplace(d.pid, name);
    std::vector<Finding> findings;
    for (const auto& r : model.modules) {
        if (r.kind != "extension" || r.status != ImportStatus::error || !r.error ||
            journal::rebound_type(r.error->message) || explained.count({r.pid, r.name}) ||
            ended_by(process_of(model, r.journal, r.pid), r.error->message))
            continue;
        findings.push_back(failed_load(r));
    }
    for (const auto& missing : model.missing_builds) {
        const std::string& name = missing.event.name;
        const bool loaded_after_all = std::any_of(model.modules.begin(), model.modules.end(), [&](const ModuleRecord& r) {
            return r.journal == missing.journal && r.pid == missing.pid && r.name == name && r.status == ImportStatus::ok;
        });
        if (missing.event.files.empty() || loaded_after_all ||
            ended_by(process_of(model, missing.journal, missing.pid), fmt::format("No module named '{}'", name)))
            continue;
        findings.push_back(missing_build(missing));
    }
    return findings;
}

} // namespace importscope::analysis
