#pragma once

// A finding's evidence, typed per finding kind (docs/report-format.md, docs/findings.md): one
// record per kind, each declaring its JSON form once (json_fields.hpp). A finding holds the one of
// its kind; a kind this importscope does not know keeps its evidence as it was read, and every
// record keeps the keys it does not know, so that a report from another version is written back
// unchanged. The same for a root cause's evidence, typed per cause kind.

#include "importscope/journal/event.hpp"
#include "importscope/util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace importscope::analysis {

using json_fields::from_json;
using json_fields::to_json;

/// A line of a file: {file, line}.
struct SourcePlace {
    std::string file;
    int line = 0;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.rest(e.rest);
    }
};

/// An environment variable read on a finding's import path (environment_reads.hpp).
struct EnvironmentReadEvidence {
    std::string name;
    bool set = false;
    std::optional<std::string> value; ///< null when unset
    std::string file;                 ///< where it was read
    int line = 0;
    bool on_import_path = false;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("set", e.set);
        f.nullable("value", e.value);
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("on_import_path", e.on_import_path);
        f.rest(e.rest);
    }
};

/// What the evidence of every kind may carry.
struct CommonEvidence {
    std::optional<std::vector<EnvironmentReadEvidence>> environment_read; ///< error findings whose path read some
    nlohmann::json rest; ///< the keys this importscope does not know, kept as they were

    template <typename Fields, typename Self>
    static void common_fields(Fields& f, Self& e)
    {
        f.optional("environment_read", e.environment_read);
    }
};

// ---- Root causes ----------------------------------------------------------------------------

/// "sys.modules alias": a package stored in sys.modules under a second name.
struct AliasCause {
    static constexpr std::string_view k_kind = "sys.modules alias";
    std::string kind{k_kind};
    std::string key;                                        ///< the alias
    std::string module;                                     ///< the package it is an alias of
    std::vector<journal::Frame> first_seen_at;              ///< the import that first went through it
    std::optional<std::vector<journal::Frame>> set_at;      ///< the store, CPython 3.12 and later
    std::optional<std::vector<journal::Frame>> set_in_code; ///< the lines found in the code, 3.10 and 3.11
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("kind", e.kind);
        f.field("key", e.key);
        f.field("module", e.module);
        f.field("first_seen_at", e.first_seen_at);
        f.optional("set_at", e.set_at);
        f.optional("set_in_code", e.set_in_code);
        f.rest(e.rest);
    }
};

/// "load by path": the program loaded an extension's file itself, under a name of its choosing.
struct LoadByPathCause {
    static constexpr std::string_view k_kind = "load by path";
    std::string kind{k_kind};
    std::string module;            ///< the name it chose
    std::string loaded_first_as;   ///< the name the import system had loaded the file as
    std::optional<SourcePlace> at; ///< the call that loaded it
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("kind", e.kind);
        f.field("module", e.module);
        f.field("loaded_first_as", e.loaded_first_as);
        f.optional("at", e.at);
        f.rest(e.rest);
    }
};

/// How an entry came onto sys.path, as the hooks recorded it.
struct SysPathOrigin {
    std::string path;   ///< as sys.path holds it
    std::string origin; ///< "PYTHONPATH", ".pth file", "script directory", "program", ...
    std::optional<std::string> pth_file;
    /// For an entry the program added: the stack of the import that first followed it.
    std::optional<std::vector<journal::Frame>> before_import_at;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("path", e.path);
        f.field("origin", e.origin);
        f.optional("pth_file", e.pth_file);
        f.optional("before_import_at", e.before_import_at);
        f.rest(e.rest);
    }
};

/// "package directory on sys.path": a package's own directory stands on sys.path.
struct PackageDirectoryCause {
    static constexpr std::string_view k_kind = "package directory on sys.path";
    std::string kind{k_kind};
    std::string entry;   ///< the directory
    std::string package; ///< the package it is the directory of
    std::optional<SysPathOrigin> added_by;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("kind", e.kind);
        f.field("entry", e.entry);
        f.field("package", e.package);
        f.optional("added_by", e.added_by);
        f.rest(e.rest);
    }
};

/// A cause of another kind ("unknown", or one a newer importscope names), as it was read.
struct OtherCause {
    nlohmann::json json = nlohmann::json::object();
};

/// A root cause's evidence, chosen by its "kind".
using CauseEvidence = std::variant<OtherCause, AliasCause, LoadByPathCause, PackageDirectoryCause>;

void write_cause(nlohmann::json& j, const CauseEvidence& cause);
void from_json(const nlohmann::json& j, CauseEvidence& cause);

/// A template, so that nlohmann's look-up never tries to convert another record into the variant.
template <typename T>
requires std::same_as<T, CauseEvidence>
void to_json(nlohmann::json& j, const T& cause)
{
    write_cause(j, cause);
}

/// The cause's "kind", "" for one without.
std::string kind_of(const CauseEvidence& cause);

// ---- Findings -------------------------------------------------------------------------------

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

/// What a scan saw, where (evidence.static).
struct StaticSeen {
    std::vector<SourcePlace> seen;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("seen", e.seen);
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
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("module", e.module);
        f.field("executes_again", e.executes_again);
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

/// An installed distribution, as its metadata names it.
struct DistributionEvidence {
    std::string name;
    std::string version;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("version", e.version);
        f.rest(e.rest);
    }
};

/// One copy of an extension: a run's has the status of its load, a scan's the distributions that
/// install it.
struct ExtensionCopy {
    std::string module;
    std::string file;
    std::optional<std::string> status;
    std::optional<std::vector<DistributionEvidence>> distributions;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("file", e.file);
        f.optional("status", e.status);
        f.optional("distributions", e.distributions);
        f.rest(e.rest);
    }
};

/// `duplicate-extension-copy`.
struct DuplicateCopyEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "duplicate-extension-copy";
    std::vector<ExtensionCopy> copies;
    std::string matched_by;            ///< "sha256" or "package-relative path"
    std::optional<std::string> sha256; ///< a run's, when matched by content
    std::optional<StaticSeen> static_seen;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("copies", e.copies);
        f.field("matched_by", e.matched_by);
        f.optional("sha256", e.sha256);
        f.optional("static", e.static_seen);
        f.rest(e.rest);
    }
};

/// A place a top-level package is importable from, with the distribution installed there (or null).
struct InstallationPlace {
    std::string place;
    std::string origin;
    std::optional<DistributionEvidence> distribution;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("place", e.place);
        f.field("origin", e.origin);
        f.nullable("distribution", e.distribution);
        f.rest(e.rest);
    }
};

/// `multiple-installations`, of one of three shapes: a package shadowing others along sys.path
/// (`shadowed`, `places`), one directory claimed by two distributions (`distributions`), or a
/// package loaded from elsewhere than where it is importable from (`also_loaded_from`, with the
/// `distribution` installed there, or null).
struct MultipleInstallationsEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "multiple-installations";
    std::string name;
    std::string importable_from;
    std::optional<std::vector<std::string>> shadowed;
    std::optional<std::vector<InstallationPlace>> places;
    std::optional<std::vector<DistributionEvidence>> distributions;
    std::optional<std::vector<std::string>> also_loaded_from;
    std::optional<DistributionEvidence> distribution; ///< with also_loaded_from only
    std::optional<StaticSeen> static_seen;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("name", e.name);
        f.field("importable_from", e.importable_from);
        f.optional("shadowed", e.shadowed);
        f.optional("places", e.places);
        f.optional("distributions", e.distributions);
        f.optional("also_loaded_from", e.also_loaded_from);
        if (e.also_loaded_from) // read before it
            f.nullable("distribution", e.distribution);
        f.optional("static", e.static_seen);
        f.rest(e.rest);
    }
};

/// An exception's type and message.
struct ErrorText {
    std::string type;
    std::string message;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("type", e.type);
        f.field("message", e.message);
        f.rest(e.rest);
    }
};

/// `extension-load-failed`: a load that raised (`error`), or no build for this interpreter
/// (`files` and `suffixes`).
struct LoadFailedEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "extension-load-failed";
    std::string reason; ///< "missing-shared-library", "no-build-for-this-interpreter", ...
    std::string module;
    std::optional<ErrorText> error;
    std::optional<std::vector<std::string>> files;    ///< the builds its package has
    std::optional<std::vector<std::string>> suffixes; ///< the suffixes this interpreter loads
    std::optional<journal::Frame> import_site;
    std::optional<journal::Frame> caught_at;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("reason", e.reason);
        f.field("module", e.module);
        f.optional("error", e.error);
        f.optional("files", e.files);
        f.optional("suffixes", e.suffixes);
        f.nullable("import_site", e.import_site);
        f.nullable("caught_at", e.caught_at);
        f.rest(e.rest);
    }
};

/// `package-directory-on-sys-path` (a scan's): a sys.path entry inside a package that another
/// entry imports too.
struct PackageDirectoryEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "package-directory-on-sys-path";
    std::string entry;
    std::string origin; ///< how the entry is on sys.path
    std::string outer_entry;
    std::string package;
    std::vector<std::string> extensions; ///< that would be initialized twice
    std::optional<StaticSeen> static_seen;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("entry", e.entry);
        f.field("origin", e.origin);
        f.field("outer_entry", e.outer_entry);
        f.field("package", e.package);
        f.field("extensions", e.extensions);
        f.optional("static", e.static_seen);
        f.rest(e.rest);
    }
};

/// The evidence of a kind this importscope does not type, as it was read.
struct OtherEvidence {
    nlohmann::json json = nlohmann::json::object();
};

/// A finding's evidence: the record of its kind (Finding::kind).
using Evidence = std::variant<OtherEvidence, DuplicateInitEvidence, PartialAliasEvidence, DuplicateSourceExecEvidence,
                              NativeTypeConflictEvidence, DuplicateCopyEvidence, MultipleInstallationsEvidence,
                              LoadFailedEvidence, PackageDirectoryEvidence>;

void write_evidence(nlohmann::json& j, const Evidence& evidence);

/// A template, so that nlohmann's look-up never tries to convert another record into the variant.
template <typename T>
requires std::same_as<T, Evidence>
void to_json(nlohmann::json& j, const T& evidence)
{
    write_evidence(j, evidence);
}

/// Reads `value` as the evidence of a finding of `kind` (json_fields' `tagged`); `path` names it
/// in what is thrown.
void read_tagged(const nlohmann::json& value, Evidence& evidence, const std::string& kind, const std::string& path);

/// `value` read as the evidence of a finding of `kind`; throws std::invalid_argument as read_tagged.
Evidence evidence_of(const std::string& kind, const nlohmann::json& value);

/// Sets the variables read on the finding's import path (environment_reads.hpp).
void set_environment_read(Evidence& evidence, std::vector<EnvironmentReadEvidence> reads);

/// The variables read on the finding's import path (evidence.environment_read), for every kind.
std::vector<EnvironmentReadEvidence> environment_read_of(const Evidence& evidence);

/// Where a scan saw what the evidence says (evidence.static.seen); none for a run's evidence.
std::vector<SourcePlace> static_seen_of(const Evidence& evidence);

/// What of a finding's evidence tells which environment reads could have chosen its import path:
/// the files of the frames and lines it names, and the event order of its last load (0: none).
struct ImportPath {
    std::set<std::string> files;
    std::uint64_t last_load = 0;
};
ImportPath import_path_of(const Evidence& evidence);

} // namespace importscope::analysis
