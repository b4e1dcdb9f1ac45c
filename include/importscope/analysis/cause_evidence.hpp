#pragma once

// A root cause's evidence, typed per cause kind (docs/report-format.md, "causes[]"): a
// sys.modules alias, a load by path, a package directory on sys.path; another kind is kept as read.

#include "importscope/analysis/evidence_common.hpp"
#include "importscope/journal/event.hpp"

#include <nlohmann/json.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace importscope::analysis {

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

} // namespace importscope::analysis
