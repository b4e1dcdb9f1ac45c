#include "importscope/analysis/finding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>
#include <set>
#include <string_view>
#include <tuple>

namespace importscope::analysis {

namespace {

/// Extension loads are the same file when they share (dev, ino); a load whose file could not be
/// stat'ed falls back to its real path.
using FileKey = std::tuple<std::string, int, std::uint64_t, std::uint64_t, std::string>;

FileKey file_key(const ModuleRecord& r)
{
    if (r.identity)
        return {r.journal, r.pid, r.identity->dev, r.identity->ino, std::string{}};
    return {r.journal, r.pid, 0, 0, r.file()};
}

ExtensionInit describe_load(const ModuleRecord& r)
{
    ExtensionInit load;
    load.module = r.name;
    load.order = r.order;
    load.status = to_string(r.status);
    load.origin = r.origin;
    load.stack = r.stack_frames();
    if (const auto* site = r.call_site())
        load.call_site = *site;
    load.error = r.error;
    if (!r.existing_module.empty())
        load.existing_module = r.existing_module;
    return load;
}

/// The package names under which two loads differ: for "a.b.deep_gemm._C" and "deep_gemm._C" that is
/// ("a.b.deep_gemm", "deep_gemm"), the original and its alias.
std::pair<std::string, std::string> differing_packages(const std::string& first, const std::string& second)
{
    std::string a = first, b = second;
    while (true) {
        const auto da = a.rfind('.'), db = b.rfind('.');
        if (da == std::string::npos || db == std::string::npos || a.substr(da) != b.substr(db))
            return {a, b};
        a.resize(da);
        b.resize(db);
    }
}

std::string describe_names(const std::vector<const ModuleRecord*>& loads)
{
    std::string text;
    for (std::size_t i = 0; i < loads.size(); ++i) {
        if (i > 0)
            text += i + 1 == loads.size() ? " and " : ", ";
        text += loads[i]->name;
    }
    return text;
}

/// Whether CPython ran the extension's PyInit for this load: a file loaded under a name whose
/// PyInit_<name> it does not export fails before any init ("dynamic module does not define module
/// export function").
bool reached_init(const ModuleRecord& r)
{
    return r.initialized_extension &&
           !(r.error && r.error->message.find("does not define module export function") != std::string::npos);
}

/// Whether every init after the first gave back a module an earlier one made (Cython's guard):
/// then nothing was initialized twice.
bool later_inits_gave_back_the_first(const std::vector<const ModuleRecord*>& loads)
{
    std::set<std::string> made{loads.front()->name};
    for (std::size_t i = 1; i < loads.size(); ++i) {
        if (loads[i]->existing_module.empty() || made.count(loads[i]->existing_module) == 0)
            return false;
        made.insert(loads[i]->name);
    }
    return true;
}

/// How many trailing dotted components `name` has.
std::size_t components(const std::string& name)
{
    return static_cast<std::size_t>(std::count(name.begin(), name.end(), '.')) + 1;
}

/// Why the file was loaded under a second name, as the evidence tells it: an alias in sys.modules
/// that an import went through; or, when the second name is the first one's tail and sys.path
/// alone imports its top-level name from the first one's package directory, that directory
/// standing on sys.path (the entry is the second name's file's directory, as many levels up as the
/// name has components).
struct SecondNameReason {
    CauseEvidence evidence;
    std::string advice;
};

/// How `entry` came onto sys.path in `r`'s process, as the hooks recorded it: {`path` (as sys.path
/// holds it), `origin`, `pth_file`, `before_import_at` (for an entry the program added: the stack
/// of the import that first followed it)}; none when no record names it.
std::optional<SysPathOrigin> entry_origin(const RunModel& model, const ModuleRecord& r, const std::string& entry)
{
    for (const auto& seen : model.sys_path) {
        if (seen.journal != r.journal || seen.pid != r.pid)
            continue;
        for (const auto& e : seen.event.entries) {
            if ((e.realpath.empty() ? e.path : e.realpath) != entry)
                continue;
            SysPathOrigin origin;
            origin.path = e.path;
            origin.origin = e.origin;
            if (!e.pth_file.empty())
                origin.pth_file = e.pth_file;
            if (e.origin == "program" && !seen.event.stack.empty())
                origin.before_import_at = seen.event.stack;
            return origin;
        }
    }
    return std::nullopt;
}

/// What takes `entry` off sys.path, by who put it there.
std::string off_sys_path(const std::string& entry, const std::optional<SysPathOrigin>& origin)
{
    const std::string how = origin ? origin->origin : "";
    if (how == "PYTHONPATH")
        return fmt::format("take {} out of PYTHONPATH", entry);
    if (how == "script directory")
        return fmt::format("the script runs from inside the package, and sys.path[0] is its directory {}: move "
                           "the script out of the package, or run it with python -m",
                           entry);
    if (how == "working directory")
        return fmt::format("the working directory {} is on sys.path (python -c, -m or an interactive "
                           "session): run from another directory",
                           entry);
    if (how == ".pth file")
        return fmt::format("delete the line of {} that adds {}", origin->pth_file.value_or(""), entry);
    if (how == "program") {
        if (origin->before_import_at && !origin->before_import_at->empty())
            return fmt::format("remove the sys.path change that adds {} (the program made it before the import at "
                               "{}:{})",
                               entry, origin->before_import_at->back().file, origin->before_import_at->back().line);
        return fmt::format("remove the sys.path change that adds {}", entry);
    }
    if (how == "start-up")
        return fmt::format("{} was added while site ran, by code in a .pth file or in sitecustomize: remove it there",
                           entry);
    return fmt::format("take {} off sys.path (look at PYTHONPATH, the script's own directory, .pth files and "
                       "sys.path.insert calls)",
                       entry);
}

/// A second name given by a load by path: the program loaded the extension's file itself, under a
/// name of its choosing, after the import system had loaded it as `first`.
SecondNameReason load_by_path_cause(const ModuleRecord& first, const ModuleRecord& by_path)
{
    LoadByPathCause evidence;
    evidence.module = by_path.name;
    evidence.loaded_first_as = first.name;
    std::string where;
    if (const journal::Frame* site = by_path.call_site()) {
        evidence.at = SourcePlace{site->file, site->line, {}};
        where = fmt::format(" at {}:{}", site->file, site->line);
    }
    return {std::move(evidence),
            fmt::format("Load this extension under one name only. {} was loaded from the file of {} by its path{}, "
                        "outside the import system (importlib.util.spec_from_file_location and module_from_spec, or "
                        "_imp.create_dynamic), which gives each new name a new init: import {} (or take "
                        "sys.modules[\"{}\"]) instead of loading its file again.",
                        by_path.name, first.name, where, first.name, first.name)};
}

SecondNameReason find_cause(const RunModel& model, const ModuleRecord& first, const ModuleRecord& other)
{
    if (other.by_path && !first.by_path)
        return load_by_path_cause(first, other);
    const auto [original, alias] = differing_packages(first.name, other.name);
    for (const auto& seen : model.aliases)
        if (seen.journal == first.journal && seen.pid == first.pid && seen.event.key == alias) {
            AliasCause evidence;
            evidence.key = seen.event.key;
            evidence.module = seen.event.module_name;
            evidence.first_seen_at = seen.event.stack;
            if (!seen.event.set_by.empty())
                evidence.set_at = seen.event.set_by;
            else if (!seen.event.set_in_code.empty())
                evidence.set_in_code = seen.event.set_in_code;
            return {std::move(evidence),
                    fmt::format("Load this extension under one name only. {} is an alias of {} in sys.modules: alias "
                                "every loaded submodule of {} as well (sys.modules[\"{}.X\"] = {}.X), or import "
                                "through {}.",
                                alias, seen.event.module_name, seen.event.module_name, alias, seen.event.module_name,
                                seen.event.module_name)};
        }
    const ModuleRecord& longer = components(first.name) >= components(other.name) ? first : other;
    const ModuleRecord& shorter = &longer == &first ? other : first;
    const std::string tail = "." + shorter.name;
    std::filesystem::path entry = std::filesystem::path(shorter.file()).parent_path();
    for (std::size_t up = 1; up < components(shorter.name); ++up)
        entry = entry.parent_path();
    const std::string top_level = shorter.name.substr(0, shorter.name.find('.'));
    // The evidence that the entry is on sys.path: sys.path alone imports the shorter name's
    // top-level module from inside it.
    const bool importable_from_entry =
        std::any_of(model.installations.begin(), model.installations.end(), [&](const auto& seen) {
            return seen.journal == shorter.journal && seen.pid == shorter.pid && seen.event.name == top_level &&
                   seen.event.origin.starts_with(entry.string() + "/");
        });
    if (longer.name.size() > tail.size() && longer.name.ends_with(tail) && importable_from_entry) {
        const std::string package = longer.name.substr(0, longer.name.size() - tail.size());
        PackageDirectoryCause evidence;
        evidence.entry = entry.string();
        evidence.package = package;
        evidence.added_by = entry_origin(model, shorter, entry.string());
        const std::string off = off_sys_path(entry.string(), evidence.added_by);
        return {std::move(evidence),
                fmt::format("Load this extension under one name only. {} is the directory of the package {}, and "
                            "it stands on sys.path, so its modules import a second time under top-level names ({} "
                            "as {}): {}; and import {}.",
                            entry.string(), package, longer.name, shorter.name, off, longer.name)};
    }
    return {OtherCause{{{"kind", "unknown"}}},
            fmt::format("Load this extension under one name only. If {} is an alias of {} in sys.modules (for example "
                        "sys.modules.setdefault(\"{}\", {})), alias every loaded submodule of {} as well, or import "
                        "through {}.",
                        alias, original, alias, original, original, original)};
}

/// Why a second init that made a module of its own is harmful, in the words of the extension's
/// binding library (binding_library_of), or in general ones when it is unknown ("").
std::string reinit_explanation(std::string_view library)
{
    const std::string head = "CPython runs an extension's PyInit again for every new module name, but the dynamic "
                             "loader returns the library it already loaded, so the second init ";
    if (library.empty())
        return head + "shares the first one's C++ state: pybind11 refuses to register its types twice "
                      "(\"generic_type: type ... is already registered!\"), and libraries without that check "
                      "register operators or globals twice and may crash at exit.";
    const std::string shared = head + "runs over the first one's static state: ";
    if (library == "pybind11")
        return shared + "pybind11 refuses to register its C++ types twice (\"generic_type: type ... is already "
                        "registered!\"), and the module it made half-way may crash at exit.";
    if (library == "nanobind")
        return shared + "nanobind finds its types registered already and warns, and objects of the second "
                        "module's types are not accepted where the first one's are expected.";
    if (library == "PyO3")
        return shared + "PyO3 keeps one module per process and refuses a second init (\"PyO3 modules ... may only "
                        "be initialized once per interpreter process\"), or gives the second name a module that "
                        "shares the first one's Rust state.";
    if (library == "Cython")
        return shared + "this Cython module has no guard against a second init (Cython 3's gives its module back), "
                        "so its module-level globals and types are set up again.";
    return shared + "a C extension's init meets its static types and globals set up already; some refuse (numpy: "
                    "\"cannot load module more than once per process\"), others set them up again under the first "
                    "module's feet, which may crash at exit.";
}

/// The finding for loads of one file under two or more names.
Finding duplicate_init(const RunModel& model, const std::vector<const ModuleRecord*>& loads)
{
    const ModuleRecord& first = *loads.front();
    Finding f;
    f.kind = "duplicate-extension-init";
    f.pid = first.pid;
    f.file = first.file();
    for (const auto* r : loads)
        f.module_names.push_back(r->name);
    f.message = fmt::format("{} was initialized {} times in process {}, as {}", f.file, loads.size(), f.pid,
                            describe_names(loads));
    if (later_inits_gave_back_the_first(loads)) {
        f.severity = Severity::warning;
        f.message += fmt::format("; each init after the first gave back the module it made ({} is {})",
                                 loads.back()->name, loads.back()->existing_module);
        f.explanation =
            "CPython ran the extension's PyInit again for the new name, and the init found its module made already "
            "and gave it back (Cython's guard against a second init): nothing was initialized twice, but one module "
            "object now stands under two names, and code that tells modules apart by name (pickle, the second "
            "name's submodules) sees two.";
    } else {
        f.severity = Severity::error;
        for (const auto* r : loads)
            if (r->error) {
                f.message +=
                    fmt::format("; importing {} failed with {}: {}", r->name, r->error->type, r->error->message);
                break;
            }
        f.explanation = reinit_explanation("");
    }
    const ModuleRecord& other =
        **std::find_if(loads.begin(), loads.end(), [&](const ModuleRecord* r) { return r->name != first.name; });
    SecondNameReason cause = find_cause(model, first, other);
    f.advice = std::move(cause.advice);
    DuplicateInitEvidence evidence;
    evidence.initializations.reserve(loads.size());
    for (const auto* r : loads)
        evidence.initializations.push_back(describe_load(*r));
    evidence.cause = std::move(cause.evidence);
    if (first.identity)
        evidence.file_identity = FileIdentityEvidence{first.identity->dev, first.identity->ino};
    f.evidence = std::move(evidence);
    return f;
}

} // namespace

void explain_by_binding(std::vector<Finding>& findings, const BindingLookup& binding_of)
{
    if (!binding_of)
        return;
    for (Finding& f : findings) {
        auto* evidence = std::get_if<DuplicateInitEvidence>(&f.evidence);
        if (!evidence || f.severity != Severity::error)
            continue;
        const std::string library = binding_of(f.file);
        if (library.empty())
            continue;
        evidence->binding = library;
        f.explanation = reinit_explanation(library);
    }
}

std::vector<Finding> find_duplicate_extension_inits(const RunModel& model)
{
    std::map<FileKey, std::vector<const ModuleRecord*>> by_file;
    for (const auto& r : model.modules)
        if (reached_init(r))
            by_file[file_key(r)].push_back(&r);

    std::vector<Finding> findings;
    for (const auto& [key, loads] : by_file) {
        std::set<std::string> names;
        for (const auto* r : loads)
            names.insert(r->name);
        if (names.size() >= 2)
            findings.push_back(duplicate_init(model, loads));
    }
    return findings;
}

} // namespace importscope::analysis
