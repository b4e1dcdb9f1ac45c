#pragma once

// The evidence of the kinds an import makes (evidence.hpp): duplicate-extension-init,
// partial-alias (a run's and a scan's), duplicate-source-exec and native-type-conflict.

#include "importscope/analysis/cause_evidence.hpp"
#include "importscope/analysis/evidence_common.hpp"
#include "importscope/journal/event.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::analysis {

/// One load of an extension file (a duplicate init's initializations).
struct ExtensionInit {
    std::string module;
    std::uint64_t order = 0; ///< its place in the process's events
    std::string status;      ///< "ok", "error", "incomplete" or "unknown"
    std::string origin;
    std::vector<journal::Frame> stack;
    std::optional<journal::Frame> call_site;
    std::optional<journal::ExceptionInfo> error;
    std::optional<std::string> existing_module; ///< the module its init gave back (Cython's guard)
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("order", e.order);
        f.field("status", e.status);
        f.field("origin", e.origin);
        f.field("stack", e.stack);
        f.optional("call_site", e.call_site);
        f.optional("error", e.error);
        f.optional("existing_module", e.existing_module);
        f.rest(e.rest);
    }
};

/// A file's (st_dev, st_ino).
struct FileIdentityEvidence {
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("dev", e.dev);
        f.field("ino", e.ino);
    }
};

/// `duplicate-extension-init`.
struct DuplicateInitEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "duplicate-extension-init";
    std::vector<ExtensionInit> initializations; ///< in order
    CauseEvidence cause;                        ///< why the file was loaded under a second name
    std::optional<FileIdentityEvidence> file_identity;
    std::optional<std::string> binding; ///< the binding library, when known (explain_by_binding)

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("initializations", e.initializations);
        f.field("cause", e.cause);
        f.optional("file_identity", e.file_identity);
        f.optional("binding", e.binding);
        f.rest(e.rest);
    }
};

/// A submodule imported again through an alias (a partial alias's executed_twice).
struct ExecutedTwice {
    std::string alias_name;
    std::string original_name;
    std::string file;
    std::string status;
    std::optional<std::string> gave_back; ///< the module its init gave back: nothing ran
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("alias_name", e.alias_name);
        f.field("original_name", e.original_name);
        f.field("file", e.file);
        f.field("status", e.status);
        f.optional("gave_back", e.gave_back);
        f.rest(e.rest);
    }
};

/// A line of code, with its enclosing function ("" at a module's top).
struct CodeLine {
    std::string file;
    int line = 0;
    std::string function;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("function", e.function);
        f.rest(e.rest);
    }
};

/// A module a scan found executed again through an alias, and where it is imported.
struct ChainStep {
    std::string module;
    std::string file;
    std::optional<SourcePlace> imported_at;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("file", e.file);
        f.optional("imported_at", e.imported_at);
        f.rest(e.rest);
    }
};

/// An import under an alias that a scan found, and what it executes again.
struct StaticImporter {
    std::string file;
    int line = 0;
    std::string module;
    std::vector<ChainStep> executes_again;
    /// What it executes under the alias that also runs under the package's own names (scan.hpp).
    std::optional<std::vector<std::string>> under_both_names;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("module", e.module);
        f.field("executes_again", e.executes_again);
        f.optional("under_both_names", e.under_both_names);
        f.rest(e.rest);
    }
};

/// The condition a loop that aliases submodules runs under.
struct LoopCondition {
    std::string condition;
    int line = 0;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("condition", e.condition);
        f.field("line", e.line);
    }
};

/// A loop that aliases the submodules as well.
struct AliasingLoop {
    std::string file;
    int line = 0;
    std::optional<LoopCondition> only;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.optional("only", e.only);
        f.rest(e.rest);
    }
};

/// `partial-alias`: a run's (the submodules executed again) or a scan's (the alias in the code).
struct PartialAliasEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "partial-alias";
    std::string alias;
    // A run's:
    std::optional<std::string> original;
    std::optional<std::vector<ExecutedTwice>> executed_twice;
    std::optional<bool> nothing_ran_twice; ///< every init reached through the alias gave its module back
    std::optional<std::vector<journal::Frame>> alias_first_used_at;
    std::optional<std::vector<journal::Frame>> alias_set_at;
    std::optional<std::vector<journal::Frame>> alias_set_in_code;
    // A scan's:
    std::optional<StaticSeen> static_seen; ///< "static"
    std::optional<std::string> value;
    std::optional<std::vector<std::string>> targets;
    std::optional<std::string> target_file;
    std::optional<std::vector<CodeLine>> set_at;
    std::optional<std::vector<StaticImporter>> importers;
    std::optional<std::vector<AliasingLoop>> submodules_aliased_at;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("alias", e.alias);
        f.optional("original", e.original);
        f.optional("executed_twice", e.executed_twice);
        f.optional("nothing_ran_twice", e.nothing_ran_twice);
        f.optional("alias_first_used_at", e.alias_first_used_at);
        f.optional("alias_set_at", e.alias_set_at);
        f.optional("alias_set_in_code", e.alias_set_in_code);
        f.optional("static", e.static_seen);
        f.optional("value", e.value);
        f.optional("targets", e.targets);
        f.optional("target_file", e.target_file);
        f.optional("set_at", e.set_at);
        f.optional("importers", e.importers);
        f.optional("submodules_aliased_at", e.submodules_aliased_at);
        f.rest(e.rest);
    }
};

/// One execution of a source file (a duplicate source exec's executions).
struct SourceExecution {
    std::string module;
    std::string status;
    std::vector<journal::Frame> stack;
    std::optional<journal::Frame> call_site;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("status", e.status);
        f.field("stack", e.stack);
        f.optional("call_site", e.call_site);
        f.rest(e.rest);
    }
};

/// `duplicate-source-exec`.
struct DuplicateSourceExecEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "duplicate-source-exec";
    std::vector<SourceExecution> executions;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("executions", e.executions);
        f.rest(e.rest);
    }
};

/// A loaded module that already exposes the type a native type conflict is about.
struct TypeOwnerEvidence {
    std::string module;
    std::string file;
    std::string type;      ///< its qualified name
    bool pybind11 = false; ///< its metaclass is pybind11's
    std::string relation;  ///< "same-file", "copies" or "different-libraries"
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("file", e.file);
        f.field("type", e.type);
        f.field("pybind11", e.pybind11);
        f.field("relation", e.relation);
        f.rest(e.rest);
    }
};

/// `native-type-conflict`.
struct NativeTypeConflictEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "native-type-conflict";
    std::string type_name;
    std::string binding;                         ///< "pybind11" or "nanobind"
    std::optional<journal::ExceptionInfo> error; ///< null when the binding only warned
    std::optional<std::string> warning;          ///< nanobind's warning, else null
    std::string failed_module;
    std::vector<TypeOwnerEvidence> owners;
    std::optional<std::string> relation; ///< the first owner's, null without owners
    std::vector<journal::Frame> stack;   ///< the failed import's

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("type_name", e.type_name);
        f.field("binding", e.binding);
        f.nullable("error", e.error);
        f.nullable("warning", e.warning);
        f.field("failed_module", e.failed_module);
        f.field("owners", e.owners);
        f.nullable("relation", e.relation);
        f.field("stack", e.stack);
        f.rest(e.rest);
    }
};

} // namespace importscope::analysis
