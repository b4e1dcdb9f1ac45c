#include "report/sarif_rules.hpp"

#include "importscope/analysis/finding.hpp"

#include <array>
#include <string_view>

namespace importscope::report {

namespace {

/// What a rule says of one finding kind (docs/findings.md says it at length).
struct RuleText {
    const char* id;
    const char* name;
    const char* short_description;
    const char* full_description;
    const char* help;
    const char* level; ///< the kind's usual severity; each result states its own
};

constexpr std::array<RuleText, analysis::k_finding_kinds.size()> k_rules = {{
    {"duplicate-extension-init", "DuplicateExtensionInit",
     "A native extension initialized twice under two module names in one process",
     "One extension file ran its PyInit under two or more module names in one process. The dynamic loader "
     "returns the library it already loaded, so both initializations share one set of C++ statics: pybind11 "
     "refuses the second (\"type is already registered\"), other libraries register twice and may crash at exit.",
     "Import the extension under one name only. The usual cause is a sys.modules alias of its package, or a "
     "package directory on sys.path: alias the package's loaded submodules too (or import through the real "
     "name), or take the directory off sys.path. The result's own advice names the cause.",
     "error"},
    {"partial-alias", "PartialAlias", "A package aliased in sys.modules without its submodules",
     "A sys.modules key whose module has another __name__ was used as a parent package: submodules imported "
     "through the alias execute the package's files again as new modules, up to its extensions.",
     "Alias the package's loaded submodules together with the package, or import through the real name. An "
     "error when the chain reaches an extension, which would be initialized a second time.",
     "error"},
    {"duplicate-source-exec", "DuplicateSourceExec", "A source file executed as two different modules",
     "One .py file executed as two different modules in one process (the double import trap): each copy has its "
     "own globals, classes and registries.",
     "Import the module under one name only: no package directory on sys.path, no alias of its package.", "warning"},
    {"native-type-conflict", "NativeTypeConflict", "A binding library asked to bind a C++ type twice",
     "A binding library was asked to bind a C++ type it had bound already in this process: pybind11 fails the "
     "import (\"generic_type: type is already registered!\"), nanobind binds a second Python type over it.",
     "Find the module that bound the type first (the result names it) and load one of the two only, or give "
     "the bindings module_local types.",
     "error"},
    {"duplicate-extension-copy", "DuplicateExtensionCopy", "Two copies of one extension loaded in one process",
     "Two different extension files with identical content or the same package-relative path were loaded in one "
     "process (a vendored copy beside the installed one, say): each copy has its own C++ state.",
     "Load one copy only: remove the vendored or stale copy, or import the one that the rest of the program uses.",
     "warning"},
    {"multiple-installations", "MultipleInstallations", "A top-level package installed in more than one place",
     "A top-level package is importable from two or more places on sys.path, or two distributions claim it in "
     "one directory: the first entry shadows the others, and what is imported depends on sys.path's order.",
     "Keep one installation of the package: uninstall the others, or take the shadowing entry off sys.path.",
     "warning"},
    {"extension-load-failed", "ExtensionLoadFailed", "An extension the program went on without",
     "An extension's load raised and the process went on (a missing shared library, an undefined symbol, no "
     "PyInit of that name), or its package holds builds for other interpreters only.",
     "Install the library or the build that the result names (ldd FILE lists what a file needs).", "warning"},
    {"package-directory-on-sys-path", "PackageDirectoryOnSysPath", "A package's own directory on sys.path",
     "A sys.path entry is a package's own directory while an outer entry imports that package: each of its "
     "modules is importable under two names, and an extension in it would be initialized twice.",
     "Take the package's directory off sys.path (the result names the .pth line or variable that adds it) and "
     "import the package by its full name.",
     "warning"},
}};

constexpr bool rules_follow_the_kinds()
{
    for (std::size_t i = 0; i < k_rules.size(); ++i)
        if (std::string_view(k_rules[i].id) != std::string_view(analysis::k_finding_kinds[i]))
            return false;
    return true;
}
static_assert(rules_follow_the_kinds(), "one rule per finding kind, in the order of analysis::k_finding_kinds");

nlohmann::json rule_of(const RuleText& rule)
{
    return {{"id", rule.id},
            {"name", rule.name},
            {"shortDescription", {{"text", rule.short_description}}},
            {"fullDescription", {{"text", rule.full_description}}},
            {"help", {{"text", rule.help}}},
            {"defaultConfiguration", {{"level", rule.level}}}};
}

} // namespace

nlohmann::json sarif_rules()
{
    nlohmann::json rules = nlohmann::json::array();
    for (const RuleText& rule : k_rules)
        rules.push_back(rule_of(rule));
    return rules;
}

std::optional<std::size_t> sarif_rule_index(const std::string& kind)
{
    for (std::size_t i = 0; i < k_rules.size(); ++i)
        if (kind == k_rules[i].id)
            return i;
    return std::nullopt;
}

} // namespace importscope::report
