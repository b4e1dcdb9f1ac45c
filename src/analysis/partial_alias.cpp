#include "importscope/analysis/finding.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace importscope::analysis {

namespace {

bool same_file(const ModuleRecord& a, const ModuleRecord& b)
{
    if (a.identity && b.identity)
        return *a.identity == *b.identity;
    const std::string& pa = a.file();
    const std::string& pb = b.file();
    return !pa.empty() && pa == pb;
}

/// What importing through the alias did: executed modules again, and ran extensions' inits that
/// gave back the module they had made (which executes nothing).
std::string what_the_alias_did(const std::string& key, const std::string& original,
                               const std::vector<ExecutedTwice>& twice)
{
    std::vector<std::string> executed, given_back, returned;
    for (const ExecutedTwice& entry : twice) {
        if (entry.gave_back) {
            given_back.push_back(entry.alias_name);
            returned.push_back(fmt::format("{} is {}", entry.alias_name, *entry.gave_back));
        } else {
            executed.push_back(entry.alias_name);
        }
    }
    std::string text =
        fmt::format("{} is an alias of {} in sys.modules, but its submodules are not: importing through the alias ",
                    key, original);
    if (!executed.empty())
        text += fmt::format("executed {} again as {}",
                            executed.size() == 1 ? "a module" : fmt::format("{} modules", executed.size()),
                            fmt::join(executed, ", "));
    if (!given_back.empty())
        text += fmt::format("{}ran the init of {} again, which gave back the module it had made ({}){}",
                            executed.empty() ? "" : ", and ", fmt::join(given_back, ", "), fmt::join(returned, ", "),
                            executed.empty() ? ": nothing was executed twice" : "");
    return text;
}

} // namespace

std::vector<Finding> find_partial_aliases(const RunModel& model, const std::vector<Finding>& duplicates)
{
    std::vector<Finding> findings;
    for (const auto& alias : model.aliases) {
        const std::string& key = alias.event.key;
        const std::string& original = alias.event.module_name;
        std::vector<ExecutedTwice> twice;
        std::vector<std::string> names;
        for (const auto& r : model.modules) {
            if (r.journal != alias.journal || r.pid != alias.pid || !r.name.starts_with(key + "."))
                continue;
            const std::string original_name = original + r.name.substr(key.size());
            const auto o = std::find_if(model.modules.begin(), model.modules.end(), [&](const ModuleRecord& m) {
                return m.journal == r.journal && m.pid == r.pid && m.name == original_name && same_file(m, r);
            });
            if (o == model.modules.end())
                continue;
            names.push_back(r.name);
            ExecutedTwice entry{r.name, original_name, r.file(), to_string(r.status), std::nullopt, {}};
            if (!r.existing_module.empty())
                entry.gave_back = r.existing_module; // its init returned that module: nothing ran
            twice.push_back(std::move(entry));
        }
        if (names.empty())
            continue;
        const bool all_gave_back =
            std::all_of(twice.begin(), twice.end(), [](const ExecutedTwice& e) { return e.gave_back.has_value(); });
        // An error when an extension was initialized twice for real; a warning when the submodules
        // executed again are pure Python, or when every init gave back the module it had made.
        const bool led_to_reinit = std::any_of(duplicates.begin(), duplicates.end(), [&](const Finding& d) {
            return d.pid == alias.pid && d.severity == Severity::error &&
                   std::any_of(d.module_names.begin(), d.module_names.end(), [&](const auto& n) {
                       return std::find(names.begin(), names.end(), n) != names.end();
                   });
        });
        Finding f;
        f.kind = "partial-alias";
        f.severity = led_to_reinit ? Severity::error : Severity::warning;
        f.pid = alias.pid;
        f.module_names = {key, original};
        f.file = alias.event.file;
        f.message = what_the_alias_did(key, original, twice);
        f.explanation = "Putting a package into sys.modules under a second name aliases that one module object only. "
                        "Its submodules are still unknown under the new name, so `import " +
                        key +
                        ".<sub>` finds the package's files through the alias's __path__ and executes them "
                        "again as new modules: module-level state is duplicated, and an extension among them is "
                        "initialized a second time.";
        if (all_gave_back)
            f.explanation += " Here each extension reached that way found its module made already and gave it "
                             "back (Cython's guard), so nothing ran twice; a pure-Python submodule, or an "
                             "extension without that guard, imported the same way would be executed again.";
        f.advice = fmt::format("Alias every loaded submodule as well, for example:\n"
                               "    for name, module in list(sys.modules.items()):\n"
                               "        if name == \"{0}\" or name.startswith(\"{0}.\"):\n"
                               "            sys.modules.setdefault(\"{1}\" + name[len(\"{0}\"):], module)\n"
                               "or import through {0} instead of {1}.",
                               original, key);
        PartialAliasEvidence evidence;
        evidence.alias = key;
        evidence.original = original;
        evidence.executed_twice = std::move(twice);
        evidence.nothing_ran_twice = all_gave_back;
        evidence.alias_first_used_at = alias.event.stack;
        if (!alias.event.set_by.empty())
            evidence.alias_set_at = alias.event.set_by;
        else if (!alias.event.set_in_code.empty())
            evidence.alias_set_in_code = alias.event.set_in_code;
        f.evidence = std::move(evidence);
        findings.push_back(std::move(f));
    }
    return findings;
}

std::vector<Finding> find_duplicate_source_execs(const RunModel& model)
{
    const auto executed = [](const ModuleRecord& r) {
        return r.identity && r.via_finder && (r.kind == "source" || r.kind == "bytecode");
    };
    // Nearly every file runs once: only records whose process ran their file again go further.
    // Sorted by file and process, the runs of a file in one process are neighbours (a list a
    // fraction of the size of a hash table of them; stable: each keeps the model's order).
    const auto place = [](const ModuleRecord* r) { return std::tuple(r->identity->dev, r->identity->ino, r->pid); };
    std::vector<const ModuleRecord*> runs;
    for (const auto& r : model.modules)
        if (executed(r))
            runs.push_back(&r);
    std::stable_sort(runs.begin(), runs.end(),
                     [&](const ModuleRecord* a, const ModuleRecord* b) { return place(a) < place(b); });
    std::map<std::tuple<std::string, int, journal::FileIdentity>, std::vector<const ModuleRecord*>> by_file;
    for (auto first = runs.begin(); first != runs.end();) {
        const auto last =
            std::find_if(first, runs.end(), [&](const ModuleRecord* r) { return place(r) != place(*first); });
        if (last - first > 1)
            for (auto run = first; run != last; ++run)
                by_file[{(*run)->journal, (*run)->pid, *(*run)->identity}].push_back(*run);
        first = last;
    }

    std::vector<Finding> findings;
    for (const auto& [key, records] : by_file) {
        std::set<std::string> names;
        for (const auto* r : records)
            names.insert(r->name);
        if (names.size() < 2)
            continue;
        Finding f;
        f.kind = "duplicate-source-exec";
        f.severity = Severity::warning;
        f.pid = records.front()->pid;
        f.file = records.front()->file();
        DuplicateSourceExecEvidence evidence;
        for (const auto* r : records) {
            f.module_names.push_back(r->name);
            SourceExecution& e = evidence.executions.emplace_back();
            e.module = r->name;
            e.status = to_string(r->status);
            e.stack = r->stack_frames();
            if (const auto* site = r->call_site())
                e.call_site = *site;
        }
        f.message = fmt::format("{} was executed {} times in process {}, as {}", f.file, records.size(), f.pid,
                                fmt::join(f.module_names, " and "));
        f.explanation = "One source file ran as two different modules (the double import trap): each copy has its "
                        "own globals, classes and registries, so isinstance checks and singletons silently split, "
                        "and any extension it imports relatively is loaded under a second name too.";
        f.advice = names.count("__main__") > 0
                       ? "Run the program as one module only: do not import the main script by its module name "
                         "(move what other modules need from it into a module of its own), and do not run "
                         "`python -m pkg.mod` for a module that its package imports."
                       : "Make the file reachable under one module name only: do not put a package's own directory "
                         "on sys.path, and alias whole package trees rather than single modules.";
        f.evidence = std::move(evidence);
        findings.push_back(std::move(f));
    }
    return findings;
}

} // namespace importscope::analysis
